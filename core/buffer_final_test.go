package core

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestBufferFinalMustAgree: a call streamed in deltas and then sent whole
// (a Responses function_call_arguments.done, an output_item.done) keeps
// its deltas' text only when the whole agrees with it; any other whole,
// the empty text included, is a conflict naming both, and the call is
// lost, never complete (issue 28).
func TestBufferFinalMustAgree(t *testing.T) {
	const streamed = `{"cmd":"rm -rf /tmp/build"}`
	tests := []struct {
		name  string
		final string
		want  []Call // the calls completed
		text  string // the error of the final chunk, "" for none
	}{
		{name: "the same text", final: streamed, want: []Call{{ID: "call_1", ItemID: "fc_1", Name: "sh", Arguments: json.RawMessage(streamed)}}},
		// The deltas' text stays: the whole only vouches for it.
		{name: "the same text spaced", final: `{ "cmd": "rm -rf /tmp/build" }`, want: []Call{{ID: "call_1", ItemID: "fc_1", Name: "sh", Arguments: json.RawMessage(streamed)}}},
		{
			name:  "another value",
			final: `{"cmd":"rm -rf /"}`,
			text:  `buffer add chunk 4 (item id "fc_1"): chunk contradicts its tool call: final arguments differ from the streamed deltas: final "{\"cmd\":\"rm -rf /\"}", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`,
		},
		{
			name:  "empty text",
			final: ``,
			text:  `buffer add chunk 4 (item id "fc_1"): chunk contradicts its tool call: final arguments differ from the streamed deltas: final "", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`,
		},
		{name: "an empty object", final: `{}`, text: `buffer add chunk 4 (item id "fc_1"): chunk contradicts its tool call: final arguments differ from the streamed deltas: final "{}", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`},
		{name: "another key order", final: `{"b":1,"a":2}`, text: `buffer add chunk 4 (item id "fc_1"): chunk contradicts its tool call: final arguments differ from the streamed deltas: final "{\"b\":1,\"a\":2}", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuffer()
			for _, c := range []Chunk{
				{ItemID: "fc_1", ID: "call_1", Name: "sh", Start: true},
				{ItemID: "fc_1", ArgsDelta: streamed[:12]},
				{ItemID: "fc_1", ArgsDelta: streamed[12:]},
			} {
				if _, err := b.Add(c); err != nil {
					t.Fatal(err)
				}
			}
			final := tt.final
			before := snapshot(b)
			done, err := b.Add(Chunk{ItemID: "fc_1", Args: &final, Done: true})
			if tt.text == "" {
				if err != nil {
					t.Fatalf("final: %v", err)
				}
				if diff := cmp.Diff(tt.want, done); diff != "" {
					t.Errorf("completed (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || err.Error() != tt.text || !errors.Is(err, ErrConflict) {
				t.Fatalf("final: %v, %v; want %q, wrapping ErrConflict", done, err, tt.text)
			}
			checkRejected(t, before, b, Chunk{ItemID: "fc_1", Args: &final, Done: true})
			inc, err := b.Finish()
			want := []Call{{ID: "call_1", ItemID: "fc_1", Name: "sh", Original: streamed}}
			if diff := cmp.Diff(want, inc); diff != "" || !errors.Is(err, ErrLostChunk) || !errors.Is(err, ErrConflict) {
				t.Errorf("Finish = %v; incomplete (-want +got):\n%s", err, diff)
			}
		})
	}
}

// TestBufferFinalNeverChangesDeltas: whatever deltas a call streams and
// whatever final copy follows, a call that completes has exactly its
// deltas' text, or, repaired, says so and keeps them (issue 28).
func TestBufferFinalNeverChangesDeltas(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		value := rapid.SampledFrom([]string{`{"a":1}`, `{"a":2}`, `{"a": 1}`, `{}`, ``, `{"a":1,}`, `[1]`, `{"a":"x"}`}).Draw(t, "value")
		var deltas []string
		for rest := value; rest != ""; {
			n := rapid.IntRange(1, len(rest)).Draw(t, "delta")
			deltas = append(deltas, rest[:n])
			rest = rest[n:]
		}
		b := NewBuffer()
		b.Add(Chunk{ID: "c", Name: "f", Start: true})
		for _, d := range deltas {
			b.Add(Chunk{ID: "c", ArgsDelta: d})
		}
		var done []Call
		if rapid.Bool().Draw(t, "final") {
			final := rapid.SampledFrom([]string{value, `{}`, ``, `{"a":1}`, `{"a":2}`, `{ "a" : 1 }`, `{"a":"x"}`}).Draw(t, "final text")
			done, _ = b.Add(Chunk{ID: "c", Args: &final, Done: true})
		} else {
			done, _ = b.Add(Chunk{ID: "c", Done: true})
		}
		for _, c := range done {
			if value == "" {
				continue // nothing streamed: the final, or {}, is the call
			}
			if !c.Repaired && string(c.Arguments) != value {
				t.Fatalf("deltas %q, complete with %s", deltas, c.Arguments)
			}
			if c.Repaired && c.Original != strings.Join(deltas, "") {
				t.Fatalf("deltas %q, repaired from %q", deltas, c.Original)
			}
		}
	})
}

// TestBufferZeroChunkOpensNoCall: a chunk of zero values routed to no call
// (a zero-valued tool call entry) opens none, so a text answer has no
// incomplete call; routed to an open call, it changes nothing.
func TestBufferZeroChunkOpensNoCall(t *testing.T) {
	b := NewBuffer()
	if done, err := b.Add(Chunk{HasIndex: true, Index: 0}); err != nil || done != nil {
		t.Fatalf("Add(zero chunk) = %v, %v", done, err)
	}
	if inc, err := b.Finish(); inc != nil || err != nil {
		t.Errorf("Finish = %v, %v; want no call", inc, err)
	}
}
