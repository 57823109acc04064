package gemini

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// decodeInteractWith decodes a whole Interactions stream from r with the
// fast path on or off and returns its events, the text of the error that
// ended it ("" for io.EOF) and how many events the fast path decoded.
func decodeInteractWith(a *Adapter, r io.Reader, fast bool) ([]core.Event, string, int) {
	st := a.DecodeInteractionStream(r).(*interactionStream)
	st.fast.off = !fast
	var evs []core.Event
	for {
		ev, err := st.Next()
		if err == io.EOF {
			return evs, "", st.fast.hits
		}
		if err != nil {
			return evs, err.Error(), st.fast.hits
		}
		evs = append(evs, ev)
	}
}

// checkInteractSame fails when the fast path changes anything an
// Interactions stream yields, and returns the number of events it decoded.
func checkInteractSame(t interface {
	Helper()
	Fatalf(string, ...any)
}, name string, body []byte) int {
	t.Helper()
	a := New()
	slow, serr, hits := decodeInteractWith(a, bytes.NewReader(body), false)
	if hits != 0 {
		t.Fatalf("%s: fast path decoded %d events while turned off", name, hits)
	}
	fast, ferr, hits := decodeInteractWith(a, bytes.NewReader(body), true)
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Fatalf("%s: fast path changes the events (-general +fast):\n%s", name, diff)
	}
	if serr != ferr {
		t.Fatalf("%s: fast path changes the error: general %q, fast %q", name, serr, ferr)
	}
	return hits
}

// interactStreams returns the recorded Interactions streams.
func interactStreams(t testing.TB) [][]byte {
	var out [][]byte
	for _, e := range adaptertest.Recordings(t, "other") {
		if strings.HasSuffix(e.Name, ".chunks.txt") {
			out = append(out, e.Exchanges[0].Response)
		}
	}
	if len(out) < 2 {
		t.Fatalf("%d recorded Interactions streams, want 2", len(out))
	}
	return out
}

// TestInteractFastPathCorpus: on every recorded Interactions stream the
// fast path yields what the general path yields, and decodes every event.
func TestInteractFastPathCorpus(t *testing.T) {
	for i, body := range interactStreams(t) {
		events := bytes.Count(body, []byte("data:"))
		if hits := checkInteractSame(t, fmt.Sprintf("stream %d", i), body); hits != events {
			t.Errorf("stream %d: fast path decoded %d of %d events", i, hits, events)
		}
	}
}

// interactFastCases are events at the edge of the fast path's subset.
var interactFastCases = []string{
	`{"event_type":"interaction.created","interaction":{"id":"v1_a","status":"in_progress","object":"interaction","model":"gemini-2.5-flash"}}`,
	`{"interaction_id":"v1_a","status":"in_progress","event_type":"interaction.status_update"}`,
	`{"index":0,"step":{"type":"thought"},"event_type":"step.start"}`,
	`{"index":0,"delta":{"signature":"c2ln","type":"thought_signature"},"event_type":"step.delta"}`,
	`{"index":0,"delta":{"text":"hm","type":"text"},"event_type":"step.delta"}`,
	`{"index":0,"event_type":"step.stop"}`,
	`{"index":1,"step":{"id":"c1","signature":"","type":"function_call","name":"getWeather","arguments":{}},"event_type":"step.start"}`,
	`{"index":1,"step":{"type":"function_call","name":"f","arguments":{ "a" : [1, {"b":null}] }},"event_type":"step.start"}`,
	`{"index":1,"delta":{"arguments":"{\"location\":\"San Francisco\"}","type":"arguments_delta"},"event_type":"step.delta"}`,
	`{"index":1,"event_type":"step.stop"}`,
	`{"index":2,"step":{"type":"model_output"},"event_type":"step.start"}`,
	`{"index":2,"delta":{"text":"The w\u00e9ather \"x\"\n","type":"text"},"event_type":"step.delta"}`,
	`{"index":2,"event_type":"step.stop"}`,
	`{"interaction":{"id":"v1_a","status":"requires_action","usage":{"total_tokens":133,"total_input_tokens":53,"input_tokens_by_modality":[{"modality":"text","tokens":53}],"total_cached_tokens":0,"total_output_tokens":15,"total_tool_use_tokens":0,"total_thought_tokens":65},"created":"2026-05-15T18:52:03Z","object":"interaction","model":"gemini-2.5-flash"},"event_type":"interaction.completed"}`,
	`{"interaction":{"status":"completed","usage":{}},"event_type":"interaction.completed"}`,
	`{"event_type":"something.new","index":7}`,
	`{}`,
	// Outside the subset.
	`{"event_type":"error","error":{"code":429,"message":"quota"}}`,
	`{"event_type":"interaction.completed","interaction":null}`,
	`{"event_type":"interaction.completed","interaction":{"steps":[]}}`,
	`{"index":1,"step":{"type":"function_call","name":"f","arguments":[1]},"event_type":"step.start"}`,
	`{"index":1,"step":{"type":"function_call","name":"f","arguments":null},"event_type":"step.start"}`,
	`{"index":1,"step":{"type":"model_output","content":[{"type":"text","text":"a"}]},"event_type":"step.start"}`,
	`{"index":-1,"event_type":"step.stop"}`,
	`{"index":1.0,"event_type":"step.stop"}`,
	`{"index":null,"event_type":"step.stop"}`,
	`{"index":0,"delta":null,"event_type":"step.delta"}`,
	`{"index":0,"delta":{"text":null,"type":"text"},"event_type":"step.delta"}`,
	`{"index":0,"delta":{"text":"\ud800","type":"text"},"event_type":"step.delta"}`,
	"{\"index\":0,\"delta\":{\"text\":\"\xff\",\"type\":\"text\"},\"event_type\":\"step.delta\"}",
	`{"index":0,"delta":{"text":"a","type":"t\u0065xt"},"event_type":"step.delta"}`,
	`{"index":0,"Index":1,"event_type":"step.stop"}`,
	`{"index":0,"index":1,"event_type":"step.stop"}`,
	`{"index":0,"event_type":"step.stop","EVENT_TYPE":"step.start"}`,
	`{"interaction":{"usage":{"total_input_tokens":-1}},"event_type":"interaction.completed"}`,
	`{"index":0,"event_type":"step.stop"} x`,
	`{"index":0,"event_type":"step.stop",}`,
	`{"index":0 "event_type":"step.stop"}`,
	`{"index":0,"extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"event_type":"step.stop"}`,
}

// TestInteractFastPathCases: every edge case decodes the same with and
// without the fast path, alone, after a call's start and in a stream.
func TestInteractFastPathCases(t *testing.T) {
	start := `{"index":0,"step":{"type":"function_call","name":"f","arguments":{}},"event_type":"step.start"}`
	for i, c := range interactFastCases {
		name := fmt.Sprintf("case %d", i)
		checkInteractSame(t, name, []byte(sseBody(c)))
		checkInteractSame(t, name+" after a start", []byte(sseBody(start, c, c)))
		checkInteractSame(t, name+" after created", []byte(sseBody(interactFastCases[0], start, c)))
	}
}

// TestInteractFastPathSplit: cut into random reads, every recorded stream
// and every case decodes with the fast path as the general path decodes
// it whole.
func TestInteractFastPathSplit(t *testing.T) {
	streams := interactStreams(t)
	for _, c := range interactFastCases {
		streams = append(streams, []byte(sseBody(interactFastCases[0], c, interactFastCases[13])))
	}
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]string, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeInteractWith(a, bytes.NewReader(body), false)
	}
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.IntRange(0, len(streams)-1).Draw(t, "stream")
		got, errText, _ := decodeInteractWith(a, adaptertest.DrawSplitReader(t, streams[i]), true)
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Fatalf("stream %d split, fast path (-general whole +fast split):\n%s", i, diff)
		}
		if errText != wantErr[i] {
			t.Fatalf("stream %d split: error %q, want %q", i, errText, wantErr[i])
		}
	})
}

// FuzzInteractFastPath: for any event, alone and twice after a call's
// start, the fast path changes nothing an Interactions stream yields.
func FuzzInteractFastPath(f *testing.F) {
	for _, c := range interactFastCases {
		f.Add(c)
	}
	for _, body := range interactStreams(f) {
		for line := range strings.SplitSeq(string(body), "\n") {
			if c, ok := strings.CutPrefix(line, "data: "); ok {
				f.Add(c)
			}
		}
	}
	start := `{"index":0,"step":{"type":"function_call","name":"f","arguments":{}},"event_type":"step.start"}`
	f.Fuzz(func(t *testing.T, c string) {
		checkInteractSame(t, "alone", []byte(sseBody(c)))
		checkInteractSame(t, "after a start", []byte(sseBody(start, c, c)))
	})
}
