package openairesponses

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/sse"
)

// shapeGroup names the kind of an event's payload: its type, and the type
// of the item it carries when it carries one.
func shapeGroup(m map[string]any) string {
	g, _ := m["type"].(string)
	for _, k := range []string{"item", "part"} {
		if o, ok := m[k].(map[string]any); ok {
			if t, ok := o["type"].(string); ok {
				g += "/" + t
			}
		}
	}
	return g
}

// shapeKeys lists the keys of a payload and, one level down, of its object
// values ("response.created_at").
func shapeKeys(m map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k, v := range m {
		keys[k] = true
		if o, ok := v.(map[string]any); ok {
			for k2 := range o {
				keys[k+"."+k2] = true
			}
		}
	}
	return keys
}

// shapesOf reads an SSE stream's JSON payloads and returns, per group, the
// key sets of its events.
func shapesOf(t *testing.T, body []byte) map[string][]map[string]bool {
	t.Helper()
	out := map[string][]map[string]bool{}
	d := sse.NewDecoder(bytes.NewReader(body))
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read stream: %v", err)
		}
		var m map[string]any
		if json.Unmarshal([]byte(ev.Data), &m) != nil {
			continue // [DONE] and the like
		}
		g := shapeGroup(m)
		out[g] = append(out[g], shapeKeys(m))
	}
}

// shapeOmitted are the keys of recorded events that EncodeStream leaves out
// on purpose: settings echoed from the request, which conform's canonical
// events do not carry, and per-delta noise.
var shapeOmitted = map[string]bool{
	// Random padding that OpenAI adds to deltas against length side
	// channels; it carries nothing.
	"obfuscation": true,
	// The request's settings, echoed in every response object; the
	// canonical events do not carry the request.
	"response.background": true, "response.instructions": true, "response.max_output_tokens": true,
	"response.max_tool_calls": true, "response.metadata": true, "response.parallel_tool_calls": true,
	"response.previous_response_id": true, "response.prompt_cache_key": true, "response.reasoning": true,
	"response.safety_identifier": true, "response.service_tier": true, "response.store": true,
	"response.temperature": true, "response.text": true, "response.tool_choice": true, "response.tools": true,
	"response.top_logprobs": true, "response.top_p": true, "response.truncation": true,
}

// TestEncodeStreamShapeMatchesRecordings checks that every event
// EncodeStream writes carries each key that every recorded event of its
// kind carries (one level deep), except those listed in shapeOmitted. SDKs
// validate events against schemas written from real traffic, so a key real
// streams always send and conform omits makes them reject conform's
// stream (response.created without created_at failed the Vercel AI SDK).
func TestEncodeStreamShapeMatchesRecordings(t *testing.T) {
	streams, _ := adaptertest.ResponseBodies(t, "openai-responses", adaptertest.IsSSE)
	if len(streams) < 5 {
		t.Fatalf("found %d recorded streams, want at least 5", len(streams))
	}
	always := map[string]map[string]bool{}
	for _, s := range streams {
		for g, sets := range shapesOf(t, s) {
			for _, keys := range sets {
				if cur, ok := always[g]; ok {
					maps.DeleteFunc(cur, func(k string, _ bool) bool { return !keys[k] })
				} else {
					always[g] = maps.Clone(keys)
				}
			}
		}
	}
	args := `{"q":"a"}`
	events := []core.Event{
		{Kind: core.EventThinking, Text: "plan", ItemID: "rs_1"},
		{Kind: core.EventThinking, Signature: "enc", ItemID: "rs_1"},
		{Kind: core.EventText, Text: "Hi"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 2, HasIndex: true, ID: "call_1", ItemID: "fc_1", Name: "search", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 2, HasIndex: true, ItemID: "fc_1", ArgsDelta: args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 2, HasIndex: true, ItemID: "fc_1", Done: true}},
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "completed"},
	}
	events[0].ID, events[0].Model = "resp_1", "gpt"
	// The same stream without its usage event: the terminal event must
	// still carry the usage key (null).
	noUsage := slices.DeleteFunc(slices.Clone(events), func(e core.Event) bool { return e.Kind == core.EventUsage })
	var buf bytes.Buffer
	for _, evs := range [][]core.Event{events, noUsage} {
		if err := New().EncodeStream(&buf, evs); err != nil {
			t.Fatal(err)
		}
	}
	got := shapesOf(t, buf.Bytes())
	compared := 0
	missing := map[string][]string{}
	for g, sets := range got {
		want, ok := always[g]
		if !ok {
			continue
		}
		compared++
		for _, keys := range sets {
			for k := range want {
				if !keys[k] && !shapeOmitted[k] && !slices.Contains(missing[g], k) {
					missing[g] = append(missing[g], k)
				}
			}
		}
		sort.Strings(missing[g])
	}
	if compared < 12 {
		t.Errorf("compared %d event kinds with recordings, want at least 12; kinds written: %s", compared, strings.Join(slices.Sorted(maps.Keys(got)), ", "))
	}
	if diff := cmp.Diff(map[string][]string{}, missing); diff != "" {
		t.Errorf("keys every recorded event of a kind has but EncodeStream's lack (-want +got):\n%s\nwire:\n%s", diff, buf.String())
	}
}

// TestEncodeResponseShapeMatchesRecordings checks that a body
// EncodeResponse writes carries each key that every recorded /v1/responses
// body carries (one level deep), except those listed in shapeOmitted.
func TestEncodeResponseShapeMatchesRecordings(t *testing.T) {
	_, bodies := adaptertest.ResponseBodies(t, "openai-responses", adaptertest.IsSSE)
	var always map[string]bool
	n := 0
	for _, body := range bodies {
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || m["object"] != "response" {
			continue // error bodies
		}
		n++
		keys := shapeKeys(map[string]any{"response": m})
		if always == nil {
			always = keys
		} else {
			maps.DeleteFunc(always, func(k string, _ bool) bool { return !keys[k] })
		}
	}
	if n < 5 {
		t.Fatalf("found %d recorded response bodies, want at least 5", n)
	}
	resp := &core.Response{ID: "resp_1", Model: "gpt", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("Hi")}}, Finish: core.FinishStop}
	body, err := New().EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	got := shapeKeys(map[string]any{"response": m})
	var missing []string
	for k := range always {
		if !got[k] && !shapeOmitted[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("keys every recorded body has but EncodeResponse's lacks: %s\nbody: %s", strings.Join(missing, " "), body)
	}
}
