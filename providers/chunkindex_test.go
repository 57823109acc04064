package providers

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// TestChunkIndexIsARoutingKey checks that every adapter's stream encoder
// reads core.Chunk.Index the same way, as a routing key: calls at Index 0
// and 1 after a text event (which some wires put at block or output index
// 0 too), their chunks interleaved, encode and decode back to the text and
// both calls with their arguments.
func TestChunkIndexIsARoutingKey(t *testing.T) {
	str := func(s string) *string { return &s }
	events := []core.Event{
		{Kind: core.EventText, Text: "Checking both."},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, Index: 0, ID: "call_a", Name: "get_weather", Start: true}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, Index: 1, ID: "call_b", Name: "get_time", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{HasIndex: true, Index: 0, ArgsDelta: `{"city":`}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{HasIndex: true, Index: 1, ArgsDelta: `{"zone":"UTC"}`}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{HasIndex: true, Index: 0, ArgsDelta: `"Oslo"}`}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{HasIndex: true, Index: 0, Done: true, Args: str(`{"city":"Oslo"}`)}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{HasIndex: true, Index: 1, Done: true, Args: str(`{"zone":"UTC"}`)}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls},
	}
	type call struct {
		Name string
		Args string
	}
	want := []call{{"get_weather", `{"city":"Oslo"}`}, {"get_time", `{"zone":"UTC"}`}}
	for _, a := range All() {
		t.Run(a.Name(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := a.EncodeStream(&buf, events); err != nil {
				t.Fatalf("EncodeStream: %v", err)
			}
			resp, err := core.Collect(a.DecodeStream(bytes.NewReader(buf.Bytes())))
			if err != nil {
				t.Fatalf("decode what EncodeStream wrote: %v", err)
			}
			var got []call
			for _, c := range resp.Calls() {
				var v any
				if err := json.Unmarshal(c.Arguments, &v); err != nil {
					t.Fatalf("call %s arguments %s: %v", c.Name, c.Arguments, err)
				}
				b, _ := json.Marshal(v)
				got = append(got, call{c.Name, string(b)})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if resp.Text() != "Checking both." {
				t.Errorf("text = %q", resp.Text())
			}
		})
	}
}
