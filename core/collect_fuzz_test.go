package core

import (
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// FuzzCollectMatchesBuffer cuts an arbitrary chunk sequence (decodeChunks)
// into up to four streams and collects them one after another, so that
// Collect's pooled Buffer, with its scratch block, slab and spare blocks,
// goes from stream to stream; once all are collected, each Response must
// hold the calls, complete and incomplete, that a Buffer of its own gives
// for the same chunks and a finish: nothing a later stream wrote may show
// in an earlier Response.
func FuzzCollectMatchesBuffer(f *testing.F) {
	f.Add([]byte{0}, seq(
		enc(fzIndex|fzID|fzName|fzStart, 0x10|1, ""),
		enc(fzIndex|fzDelta, 0, `{"locati`),
		enc(fzIndex|fzDelta, 0, `on": "Paris"}`),
		enc(fzIndex|fzDone, 0, ""),
	))
	f.Add([]byte{2, 3}, seq(
		enc(fzIndex|fzID|fzName, 0x10|3, ""),
		enc(fzIndex|fzID|fzName, 0x20|1|1, ""),
		enc(fzIndex|fzDelta, 1, `{"a": 2`),
		enc(fzIndex|fzDelta, 0, `{"a": 2`),
		enc(fzIndex|fzDelta|fzPatch, 0x10, `{"b":[1,2]}`),
		enc(fzIndex|fzDone, 1, `}`),
		enc(fzIndex|fzID|fzName|fzDelta, 0x20|2, `{}`),
	))
	f.Fuzz(func(t *testing.T, cuts, data []byte) {
		if len(data) > maxFuzzBuffer || len(cuts) > 3 {
			return
		}
		chunks := decodeChunks(data)
		var streams [][]Chunk
		for _, c := range cuts {
			n := min(int(c), len(chunks))
			streams, chunks = append(streams, chunks[:n]), chunks[n:]
		}
		streams = append(streams, chunks)
		got := make([]*Response, len(streams))
		for i, s := range streams {
			evs := make([]Event, 0, len(s)+1)
			for _, c := range s {
				evs = append(evs, Event{Kind: EventCallDelta, Chunk: &c})
			}
			got[i], _ = Collect(SliceStream(append(evs, Event{Kind: EventFinish, Finish: FinishToolCalls})))
		}
		for i, s := range streams {
			b := NewBuffer()
			var complete []Call
			for _, c := range s {
				done, _ := b.Add(c)
				complete = append(complete, done...)
			}
			done, _ := b.doneAll()
			complete = append(complete, done...)
			incomplete, _ := b.Finish()
			for _, ce := range b.failed {
				incomplete = append(incomplete, ce.Call)
			}
			if diff := gocmp.Diff(sortedCalls(complete), sortedCalls(got[i].Calls())); diff != "" {
				t.Fatalf("stream %d of %d: complete calls (-own Buffer +Collect, after all streams):\n%s", i, len(streams), diff)
			}
			if diff := gocmp.Diff(sortedCalls(incomplete), sortedCalls(got[i].Incomplete)); diff != "" {
				t.Fatalf("stream %d of %d: incomplete calls (-own Buffer +Collect, after all streams):\n%s", i, len(streams), diff)
			}
		}
	})
}

// sortedCalls returns calls sorted by id, then name and text, with empty
// and nil arguments alike: Collect lists calls in the order they opened, a
// Buffer in the order they ended.
func sortedCalls(calls []Call) []Call {
	out := slices.Clone(calls)
	for i := range out {
		if len(out[i].Arguments) == 0 {
			out[i].Arguments = nil
		}
	}
	slices.SortStableFunc(out, func(a, b Call) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Name, b.Name), cmp.Compare(string(a.Arguments), string(b.Arguments)), cmp.Compare(a.Original, b.Original))
	})
	return out
}
