package anthropic

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
// of the content block or delta it carries when it carries one.
func shapeGroup(m map[string]any) string {
	g, _ := m["type"].(string)
	for _, k := range []string{"content_block", "delta"} {
		if o, ok := m[k].(map[string]any); ok {
			if t, ok := o["type"].(string); ok {
				g += "/" + t
			}
		}
	}
	return g
}

// shapeKeys lists the keys of a payload and, one level down, of its object
// values ("message.usage").
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
// on purpose. There are none: every key that all recorded events of a kind
// carry is written.
var shapeOmitted = map[string]bool{}

// TestEncodeStreamShapeMatchesRecordings checks that every event
// EncodeStream writes carries each key that every recorded event of its
// kind carries (one level deep), except those listed in shapeOmitted. SDKs
// validate events against schemas written from real traffic, so a key real
// streams always send and conform omits makes them reject conform's
// stream (message_delta without usage failed @anthropic-ai/sdk).
func TestEncodeStreamShapeMatchesRecordings(t *testing.T) {
	streams, _ := adaptertest.ResponseBodies(t, "anthropic", adaptertest.IsSSE)
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
		{Kind: core.EventThinking, Text: "plan"},
		{Kind: core.EventThinking, Signature: "sig"},
		{Kind: core.EventText, Text: "Hi"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 2, HasIndex: true, ID: "toolu_1", Name: "search", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 2, HasIndex: true, ArgsDelta: args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 2, HasIndex: true, Done: true}},
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"},
	}
	events[0].ID, events[0].Model = "msg_1", "claude"
	// The same stream without its usage event: message_start and
	// message_delta must still carry usage.
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
	if compared < 11 {
		t.Errorf("compared %d event kinds with recordings, want at least 11; kinds written: %s", compared, strings.Join(slices.Sorted(maps.Keys(got)), ", "))
	}
	if diff := cmp.Diff(map[string][]string{}, missing); diff != "" {
		t.Errorf("keys every recorded event of a kind has but EncodeStream's lack (-want +got):\n%s\nwire:\n%s", diff, buf.String())
	}
}
