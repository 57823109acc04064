package core

import (
	"fmt"
	"strings"
	"testing"
)

// TestCollectScratchStaysCollects: the arguments of calls sent whole pass
// through a block Collect's pooled Buffer keeps for the next stream, and
// the Buffer keeps spare 64 KB blocks of long delta texts too; a call whose
// whole arguments are one block long, replaced by deltas longer than a
// block (A18), must not hand the kept block over as a spare one, which a
// long delta call would then fill over the small whole arguments of a
// later stream. Streams of such calls, and streams of small whole
// arguments before a long delta call, collected one after another, each
// keep their calls after all were collected.
func TestCollectScratchStaysCollects(t *testing.T) {
	long := func(c byte, n int) string { return `{"s":"` + strings.Repeat(string(c), n-8) + `"}` }
	lim := WithLimits(Limits{MaxArgBytes: 1 << 20})
	type want struct{ id, args string }
	var got []*Response
	var wants [][]want
	for i := range 10 {
		c := byte('a' + i)
		whole := long(c, argBlock)
		replaced := long(c+1, 3*argBlock)
		small := fmt.Sprintf(`{"n":%d}`, i)
		delta := long(c+2, 2*argBlock+100)
		var evs []Event
		var w []want
		if i%2 == 0 {
			evs = []Event{
				{Kind: EventCallStart, Chunk: &Chunk{ID: "w", Name: "f"}},
				{Kind: EventCallDelta, Chunk: &Chunk{ID: "w", Args: &whole}},
				{Kind: EventCallDelta, Chunk: &Chunk{ID: "w", ArgsDelta: replaced[:argBlock+10]}},
				{Kind: EventCallEnd, Chunk: &Chunk{ID: "w", ArgsDelta: replaced[argBlock+10:]}},
			}
			w = append(w, want{"w", replaced})
		}
		evs = append(evs, Event{Kind: EventCallEnd, Chunk: &Chunk{ID: "s", Name: "g", Args: &small}},
			Event{Kind: EventCallStart, Chunk: &Chunk{ID: "d", Name: "h"}})
		for off := 0; off < len(delta); off += 5000 {
			evs = append(evs, Event{Kind: EventCallDelta, Chunk: &Chunk{ID: "d", ArgsDelta: delta[off:min(off+5000, len(delta))]}})
		}
		evs = append(evs, Event{Kind: EventCallEnd, Chunk: &Chunk{ID: "d"}}, Event{Kind: EventFinish, Finish: FinishToolCalls})
		resp, err := Collect(SliceStream(evs), lim)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		got = append(got, resp)
		wants = append(wants, append(w, want{"s", small}, want{"d", delta}))
	}
	for i, resp := range got {
		calls := resp.Calls()
		if len(calls) != len(wants[i]) {
			t.Fatalf("stream %d: %d calls, want %d", i, len(calls), len(wants[i]))
		}
		for k, w := range wants[i] {
			if calls[k].ID != w.id || string(calls[k].Arguments) != w.args {
				t.Errorf("stream %d, call %s: %d bytes of arguments %.20q…, want %d %.20q…", i, w.id, len(calls[k].Arguments), calls[k].Arguments, len(w.args), w.args)
			}
		}
	}
}
