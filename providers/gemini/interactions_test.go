package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

// interactionCalls assembles calls from DecodeInteractionStream events
// (start, deltas, end routed by id; Args on the end replaces the deltas).
func interactionCalls(evs []core.Event) []core.Call {
	var out []core.Call
	open := map[string]*core.Call{}
	text := map[string]string{}
	for _, ev := range evs {
		c := ev.Chunk
		switch ev.Kind {
		case core.EventCallStart:
			open[c.ID] = &core.Call{ID: c.ID, Name: c.Name}
		case core.EventCallDelta:
			text[c.ID] += c.ArgsDelta
		case core.EventCallEnd:
			call := open[c.ID]
			if call == nil {
				continue
			}
			args := text[c.ID]
			if c.Args != nil {
				args = *c.Args
			}
			call.Arguments = json.RawMessage(args)
			out = append(out, *call)
		}
	}
	return out
}

// TestInteractionsCorpusGolden decodes the four Gemini Interactions API
// recordings and compares them with testdata/golden/interactions/.
func TestInteractionsCorpusGolden(t *testing.T) {
	entries := adaptertest.Recordings(t, "other")
	if len(entries) != 4 {
		t.Fatalf("%d recordings in cassettes/other, want the 4 Interactions recordings", len(entries))
	}
	a := New()
	calls := 0
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			exs := e.Exchanges
			var g goldenExchange
			var err error
			if strings.HasSuffix(e.Name, ".chunks.txt") {
				g.Stream = true
				g.Events, err = adaptertest.Drain(a.DecodeInteractionStream(bytes.NewReader(exs[0].Response)))
				g.Calls = interactionCalls(g.Events)
			} else {
				g.Response, err = a.DecodeInteraction(exs[0].Response)
				if g.Response != nil {
					g.Calls = g.Response.Calls()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			calls += len(g.Calls)
			adaptertest.CheckGolden(t, goldenPath("interactions", e.Name), g)
		})
	}
	if !adaptertest.Updating() && calls != 2 {
		t.Errorf("%d calls in the Interactions recordings, want 2 (one getWeather per step-1 file)", calls)
	}
}

func TestInteractionStream(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		body string
		want []core.Event
	}{
		{
			name: "A18 arguments only on step.start are used once",
			body: sseBody(
				`{"index":0,"step":{"id":"c1","type":"function_call","name":"f","arguments":{"a":1}},"event_type":"step.start"}`,
				`{"index":0,"event_type":"step.stop"}`,
				`{"interaction":{"status":"requires_action"},"event_type":"interaction.completed"}`),
			want: []core.Event{
				{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c1", HasIndex: true, Name: "f", Start: true}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "c1", HasIndex: true, Done: true, Args: s(`{"a":1}`)}},
				{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "requires_action"},
			},
		},
		{
			name: "arguments deltas and id-less calls",
			body: sseBody(
				`{"interaction":{"id":"i1","model":"gemini-2.5-flash"},"event_type":"interaction.created"}`,
				`{"index":2,"step":{"type":"function_call","name":"f","arguments":{}},"event_type":"step.start"}`,
				`{"index":2,"delta":{"type":"arguments_delta","arguments":"{\"a\":"},"event_type":"step.delta"}`,
				`{"index":2,"delta":{"type":"arguments_delta","arguments":"2}"},"event_type":"step.delta"}`,
				`{"index":2,"event_type":"step.stop"}`),
			want: []core.Event{
				{Kind: core.EventCallStart, ID: "i1", Model: "gemini-2.5-flash", Chunk: &core.Chunk{ID: "gemini_call_d67941eebe18_0", Index: 2, HasIndex: true, Name: "f", Start: true}},
				{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: "gemini_call_d67941eebe18_0", Index: 2, HasIndex: true, ArgsDelta: `{"a":`}},
				{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: "gemini_call_d67941eebe18_0", Index: 2, HasIndex: true, ArgsDelta: `2}`}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "gemini_call_d67941eebe18_0", Index: 2, HasIndex: true, Done: true}},
			},
		},
		{
			name: "an id-less call before any interaction id is held until its stop",
			body: sseBody(
				`{"index":0,"step":{"type":"function_call","name":"f","arguments":{}},"event_type":"step.start"}`,
				`{"index":0,"delta":{"type":"arguments_delta","arguments":"{\"a\":"},"event_type":"step.delta"}`,
				`{"index":1,"step":{"type":"model_output"},"event_type":"step.start"}`,
				`{"index":1,"delta":{"type":"text","text":"hi"},"event_type":"step.delta"}`,
				`{"index":0,"delta":{"type":"arguments_delta","arguments":"2}"},"event_type":"step.delta"}`,
				`{"index":0,"event_type":"step.stop"}`,
				`{"index":2,"step":{"type":"function_call","name":"f","arguments":{"a":2}},"event_type":"step.start"}`,
				`{"index":2,"event_type":"step.stop"}`),
			want: []core.Event{
				{Kind: core.EventText, Text: "hi"},
				{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "gemini_call_2a77c1edfcf7_0", HasIndex: true, Name: "f", Start: true}},
				{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: "gemini_call_2a77c1edfcf7_0", HasIndex: true, ArgsDelta: `{"a":2}`}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "gemini_call_2a77c1edfcf7_0", HasIndex: true, Done: true}},
				{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "gemini_call_2a77c1edfcf7_1", Index: 2, HasIndex: true, Name: "f", Start: true}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "gemini_call_2a77c1edfcf7_1", Index: 2, HasIndex: true, Done: true, Args: s(`{"a":2}`)}},
			},
		},
		{
			name: "a held call cut before its stop is emitted without an end",
			body: sseBody(
				`{"index":0,"step":{"type":"function_call","name":"f","signature":"sig"},"event_type":"step.start"}`,
				`{"index":0,"delta":{"type":"arguments_delta","arguments":"{\"a\":"},"event_type":"step.delta"}`),
			want: []core.Event{
				{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "gemini_call_ddbb77e30b24_0", HasIndex: true, Name: "f", Start: true, Signature: "sig"}},
				{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: "gemini_call_ddbb77e30b24_0", HasIndex: true, ArgsDelta: `{"a":`}},
			},
		},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adaptertest.Drain(a.DecodeInteractionStream(strings.NewReader(tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
	errTests := []struct{ name, body, wantIn string }{
		{"delta with no step", sseBody(`{"index":1,"delta":{"type":"text","text":"x"},"event_type":"step.delta"}`), "no open step"},
		{"malformed data", "data: {\"index\":\n\n", "at byte"},
		{"bad start arguments", sseBody(`{"index":0,"step":{"type":"function_call","name":"f","arguments":[1]},"event_type":"step.start"}`, `{"index":0,"event_type":"step.stop"}`), "args must be a JSON object"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adaptertest.Drain(a.DecodeInteractionStream(strings.NewReader(tt.body)))
			if err == nil || !errors.Is(err, core.ErrMalformed) || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("err = %v, want core.ErrMalformed with %q", err, tt.wantIn)
			}
		})
	}
}

// maxFuzzInteraction bounds the inputs FuzzDecodeInteractionStream decodes:
// twice the largest recording. Go's fuzzer minimises every input that finds
// new coverage by trying on the order of n² cuts of its n bytes, so large
// inputs keep its workers minimising instead of fuzzing; larger inputs are
// returned from at once.
const maxFuzzInteraction = 4 << 10

// knownBadInteractions are Interactions API streams that break the rules
// DecodeInteractionStream checks: steps without an index or a start, an
// arguments delta for a thought, arguments that are not an object, an
// error event, data that is not JSON, a stream cut inside an event.
var knownBadInteractions = []string{
	"data: {\"event_type\":\"step.start\",\"step\":{\"type\":\"function_call\",\"name\":\"f\"}}\n\n",
	"data: {\"event_type\":\"step.delta\",\"index\":3,\"delta\":{\"type\":\"text\",\"text\":\"x\"}}\n\n",
	"data: {\"event_type\":\"step.stop\",\"index\":0}\n\n",
	"data: {\"event_type\":\"step.start\",\"index\":0,\"step\":{\"type\":\"thought\"}}\n\n" +
		"data: {\"event_type\":\"step.delta\",\"index\":0,\"delta\":{\"type\":\"arguments_delta\",\"arguments\":\"{}\"}}\n\n",
	"data: {\"event_type\":\"step.start\",\"index\":0,\"step\":{\"type\":\"function_call\",\"name\":\"f\",\"arguments\":[1]}}\n\n" +
		"data: {\"event_type\":\"step.stop\",\"index\":0}\n\n",
	"data: {\"event_type\":\"step.start\",\"index\":0,\"step\":{\"type\":\"function_call\",\"id\":\"c\",\"name\":\"f\"}}\n\n" +
		"data: {\"event_type\":\"step.delta\",\"index\":0,\"delta\":{\"type\":\"arguments_delta\",\"arguments\":\"{\\\"a\\\":\"}}\n\n" +
		"data: {\"event_type\":\"interaction.completed\",\"interaction\":{\"status\":\"incomplete\"}}\n\n",
	"data: {\"event_type\":\"error\",\"error\":{\"code\":429,\"message\":\"quota\"}}\n\n",
	"data: {\"event_type\":\"interaction.completed\",\"interaction\":null}\n\ndata: {\"index\":-1}\n\n",
	"data: not json\n\n",
	"data: {\"event_type\":\"step.start\",\"index\":0,",
}

// FuzzDecodeInteractionStream: arbitrary bytes never panic the Interactions
// API stream decoder or DecodeInteraction, and the stream ends, giving at
// most a few events more than it has bytes; its vouches are sound and
// core.Collect gives the same with and without its optional methods. Its seeds are the four
// recordings of testdata/corpus/other (two streams, two responses, about 1
// to 2 KB each, as recorded) and knownBadInteractions.
func FuzzDecodeInteractionStream(f *testing.F) {
	for _, e := range adaptertest.Recordings(f, "other") {
		f.Add(e.Exchanges[0].Response)
	}
	for _, s := range knownBadInteractions {
		f.Add([]byte(s))
	}
	a := New(WithMaxEventSize(1 << 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInteraction {
			return
		}
		s := a.DecodeInteractionStream(bytes.NewReader(data))
		for n := 0; ; n++ {
			if _, err := s.Next(); err != nil {
				break
			}
			if n > len(data)+4 {
				t.Fatalf("%d events from %d bytes", n, len(data))
			}
		}
		adaptertest.CheckVouches(t, a.DecodeInteractionStream(bytes.NewReader(data)), len(data)+8)
		adaptertest.CheckCollectReused(t, [][]byte{data}, a.DecodeInteractionStream)
		_, _ = a.DecodeInteraction(data)
	})
}

// interactionCall is one function_call step drawn by
// TestInteractionIDsProperty.
type interactionCall struct {
	id, name string
	args     json.RawMessage
	deltas   []string // nil: the arguments ride on step.start
}

// interactionBodies writes the same interaction as a response body and as
// a stream, with interaction.created first when created is set.
func interactionBodies(iid string, created bool, calls []interactionCall) (body []byte, stream string) {
	type step struct {
		Type      string          `json:"type"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	mustJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	var steps []step
	var events []string
	if created {
		events = append(events, mustJSON(map[string]any{"event_type": "interaction.created", "interaction": map[string]any{"id": iid, "model": "m"}}))
	}
	for i, c := range calls {
		steps = append(steps, step{Type: "function_call", ID: c.id, Name: c.name, Arguments: c.args})
		st := step{Type: "function_call", ID: c.id, Name: c.name, Arguments: c.args}
		if c.deltas != nil {
			st.Arguments = json.RawMessage(`{}`)
		}
		events = append(events, mustJSON(map[string]any{"event_type": "step.start", "index": i, "step": st}))
		for _, d := range c.deltas {
			events = append(events, mustJSON(map[string]any{"event_type": "step.delta", "index": i, "delta": map[string]any{"type": "arguments_delta", "arguments": d}}))
		}
		events = append(events, mustJSON(map[string]any{"event_type": "step.stop", "index": i}))
	}
	events = append(events, mustJSON(map[string]any{"event_type": "interaction.completed", "interaction": map[string]any{"id": iid, "status": "requires_action"}}))
	body = []byte(mustJSON(map[string]any{"id": iid, "status": "requires_action", "steps": steps}))
	return body, sseBody(events...)
}

// TestInteractionIDsProperty draws interactions with and without an id,
// with calls with and without ids whose arguments come whole or in deltas,
// and checks that streamed and whole decoding give the same calls, ids
// included; that every id in a response is its own, generated ones of the
// form gemini_call_<12 hex>_<k>; and that the same calls in an interaction
// with another id get other generated ids.
func TestInteractionIDsProperty(t *testing.T) {
	generated := regexp.MustCompile(`^gemini_call_[0-9a-f]{12}_[0-9]+$`)
	a := New()
	rapid.Check(t, func(t *rapid.T) {
		iid := rapid.SampledFrom([]string{"", "v1_a", "v1_b"}).Draw(t, "interaction id")
		created := iid != "" || rapid.Bool().Draw(t, "created without id")
		var calls []interactionCall
		for i := range rapid.IntRange(1, 4).Draw(t, "calls") {
			c := interactionCall{
				name: rapid.SampledFrom([]string{"f", "g"}).Draw(t, "name"),
				args: adaptertest.DrawArgs(t, "args"),
			}
			if rapid.IntRange(0, 3).Draw(t, "has id") == 0 {
				c.id = fmt.Sprintf("c%d", i)
			}
			if rapid.Bool().Draw(t, "in deltas") {
				c.deltas = adaptertest.DrawCuts(t, string(c.args))
			}
			calls = append(calls, c)
		}
		body, stream := interactionBodies(iid, created, calls)
		whole, err := a.DecodeInteraction(body)
		if err != nil {
			t.Fatalf("decode interaction: %v\n%s", err, body)
		}
		streamed, err := core.Collect(a.DecodeInteractionStream(strings.NewReader(stream)))
		if err != nil {
			t.Fatalf("collect interaction stream: %v\n%s", err, stream)
		}
		if diff := cmp.Diff(whole.Calls(), streamed.Calls()); diff != "" {
			t.Fatalf("calls (-whole +streamed):\n%s", diff)
		}
		seen := map[string]bool{}
		for i, c := range whole.Calls() {
			if seen[c.ID] {
				t.Fatalf("id %q repeats in one interaction", c.ID)
			}
			seen[c.ID] = true
			if calls[i].id == "" && !generated.MatchString(c.ID) {
				t.Fatalf("generated id %q, want gemini_call_<12 hex>_<k>", c.ID)
			}
			if calls[i].id != "" && c.ID != calls[i].id {
				t.Fatalf("id %q, want %q as sent", c.ID, calls[i].id)
			}
		}
		if iid == "" {
			return
		}
		other, _ := interactionBodies(iid+"x", true, calls)
		again, err := a.DecodeInteraction(other)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range again.Calls() {
			if calls[i].id == "" && seen[c.ID] {
				t.Fatalf("id %q of interaction %q repeats in interaction %q", c.ID, iid, iid+"x")
			}
		}
	})
}
