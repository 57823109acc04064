package core

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestBufferLongArgumentsInBlocks: a call whose text outgrows argBlock,
// streamed in deltas of any size, with previews between them and whole
// Args values (a copy of the text streamed so far, B02, or, after another
// whole value, any text; the delta after one replaces it, A18), comes out with
// exactly the text sent, complete or, without its end, incomplete with
// that text as Original.
func TestBufferLongArgumentsInBlocks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := NewBuffer(WithLimits(Limits{MaxArgBytes: 1 << 22}))
		want := `{"s":"`
		if _, err := b.Add(Chunk{ID: "c1", Name: "f", Start: true, ArgsDelta: want}); err != nil {
			t.Fatal(err)
		}
		whole := false
		for i := range rapid.IntRange(1, 40).Draw(t, "deltas") {
			if rapid.IntRange(0, 19).Draw(t, "whole") == 0 {
				size := rapid.SampledFrom([]int{0, 10, 70000}).Draw(t, "whole size")
				if whole {
					want = `{"s":"` + strings.Repeat("w", size)
				}
				args := strings.Clone(want)
				if _, err := b.Add(Chunk{ID: "c1", Args: &args}); err != nil {
					t.Fatal(err)
				}
				whole = true
				continue
			}
			d := strings.Repeat(string(rune('a'+i%26)), rapid.SampledFrom([]int{1, 7, 100, 4096, 30000, 65536, 70000}).Draw(t, "size"))
			if whole {
				d, want, whole = `{"s":"`+d, "", false
			}
			want += d
			if _, err := b.Add(Chunk{ID: "c1", ArgsDelta: d}); err != nil {
				t.Fatal(err)
			}
			if rapid.IntRange(0, 9).Draw(t, "preview") == 0 {
				if _, ok := b.Preview(Chunk{ID: "c1"}); !ok {
					t.Fatalf("no preview after %d bytes", len(want))
				}
			}
		}
		end := `"}`
		if whole {
			end, want = `{"s":"`+end, ""
		}
		want += end
		if rapid.Bool().Draw(t, "cut") {
			b.Add(Chunk{ID: "c1", ArgsDelta: end})
			inc, _ := b.Finish()
			if len(inc) != 1 || inc[0].Original != want {
				t.Fatalf("incomplete call holds %d bytes, want the %d sent", len(inc[0].Original), len(want))
			}
			return
		}
		calls, err := b.Add(Chunk{ID: "c1", ArgsDelta: end, Done: true})
		if err != nil || len(calls) != 1 || string(calls[0].Arguments) != want {
			t.Fatalf("call: %v; %d calls, want one with the %d bytes sent", err, len(calls), len(want))
		}
	})
}

// longCall is a call of blockStreams: its id, its argument text, how it
// is sent, and what it must come out as.
type longCall struct {
	id   string
	args string
	// whole ends the call, streamed in deltas, with a copy of its text as
	// one Args value, which replaces the deltas' blocks (B02); cut leaves
	// the call without its end, so that it comes out incomplete with its
	// text as Original.
	whole, cut bool
}

// blockStream returns the events of a stream of long calls, each sent in
// deltas of the given size.
func blockStream(calls []longCall, delta int) []Event {
	var evs []Event
	for _, c := range calls {
		evs = append(evs, Event{Kind: EventCallStart, Chunk: &Chunk{ID: c.id, Name: "f"}})
		for off := 0; off < len(c.args); off += delta {
			evs = append(evs, Event{Kind: EventCallDelta, Chunk: &Chunk{ID: c.id, ArgsDelta: c.args[off:min(off+delta, len(c.args))]}})
		}
		if c.whole {
			evs = append(evs, Event{Kind: EventCallEnd, Chunk: &Chunk{ID: c.id, Args: sp(strings.Clone(c.args))}})
			continue
		}
		if !c.cut {
			evs = append(evs, Event{Kind: EventCallEnd, Chunk: &Chunk{ID: c.id}})
		}
	}
	return evs
}

// TestCollectReusesNoArgumentBlock: the blocks a long call's text grows
// in go, once joined, to the Buffer's spare blocks, which later long
// texts of the stream, and of the streams Collect gives the pooled Buffer
// to, fill again. No call's arguments, complete or incomplete, is ever
// one of them: every Response holds the text of its own calls when
// Collect returns it and after all the collections that follow, whatever
// the length of the texts around argBlock and of the deltas.
func TestCollectReusesNoArgumentBlock(t *testing.T) {
	text := func(fill byte, n int) string {
		return `{"s":"` + strings.Repeat(string(rune(fill)), n-8) + `"}`
	}
	type stream struct {
		calls []longCall
		delta int
	}
	var streams []stream
	for i, sizes := range [][]int{
		{3 * argBlock, argBlock},
		{argBlock - 1, argBlock + 1, 2*argBlock + 5},
		{5 * argBlock, 100},
		{argBlock, argBlock, argBlock + 7},
		{maxSpareBlocks*argBlock + 3*argBlock + 1},
		{7 * argBlock, 2 * argBlock},
	} {
		var calls []longCall
		for j, n := range sizes {
			calls = append(calls, longCall{id: fmt.Sprintf("s%d_%d", i, j), args: text(byte('a'+(i*3+j)%26), n), whole: (i+j)%4 == 3, cut: (i+j)%5 == 4})
		}
		streams = append(streams, stream{calls, []int{128, 4096, argBlock + 3, 1000, 65536, 77}[i]})
	}
	check := func(i int, resp *Response, when string) {
		t.Helper()
		got := map[string]string{}
		for _, p := range resp.Message.Parts {
			got[p.Call.ID] = string(p.Call.Arguments)
		}
		for _, c := range resp.Incomplete {
			got[c.ID] = "incomplete " + c.Original
		}
		want := map[string]string{}
		for _, c := range streams[i].calls {
			want[c.id] = c.args
			if c.cut {
				want[c.id] = "incomplete " + c.args
			}
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("stream %d, call %s %s: %d bytes, want the %d sent (first difference at byte %d)", i, id, when, len(got[id]), len(w), firstDiff(got[id], w))
			}
		}
	}
	var got []*Response
	for i, s := range streams {
		resp, _ := Collect(SliceStream(append(blockStream(s.calls, s.delta), Event{Kind: EventFinish, Finish: FinishLength})), WithLimits(Limits{MaxArgBytes: 64 << 20}))
		check(i, resp, "when collected")
		got = append(got, resp)
	}
	for i, resp := range got {
		check(i, resp, fmt.Sprintf("after %d more collections", len(got)-1-i))
	}
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestBufferSpareBlocks: a Buffer fills the spare blocks of a call's
// joined text before it allocates new ones, keeps at most maxSpareBlocks
// of them, and reset keeps them only after a stream that used blocks.
func TestBufferSpareBlocks(t *testing.T) {
	b := NewBuffer(WithLimits(Limits{MaxArgBytes: 64 << 20}))
	long := strings.Repeat("x", (maxSpareBlocks+10)*argBlock)
	add := func(id, delta string, done bool) {
		t.Helper()
		if _, err := b.Add(Chunk{ID: id, Name: "f", ArgsDelta: delta, Done: done}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", `{"s":"`, false)
	for off := 0; off < 3*argBlock; off += 4096 {
		add("a", long[:4096], false)
	}
	add("a", `"}`, true)
	// 3*argBlock+8 bytes: the first block (grown by doubling), two more
	// and the last, partly filled.
	if len(b.spare) != 4 {
		t.Fatalf("%d spare blocks after a call of 4 blocks, want 4", len(b.spare))
	}
	b.Add(Chunk{ID: "b", Name: "f", ArgsDelta: long[:argBlock]})
	b.Add(Chunk{ID: "b", ArgsDelta: long[:2*argBlock]}) // larger than a block: a block of its own
	b.Add(Chunk{ID: "b", ArgsDelta: long[:argBlock]})
	if len(b.spare) != 3 {
		t.Fatalf("%d spare blocks, want 3 (one taken, none for a delta larger than a block)", len(b.spare))
	}
	for off := 0; off < len(long); off += 4096 {
		b.Add(Chunk{ID: "b", ArgsDelta: long[off : off+4096]})
	}
	b.Add(Chunk{ID: "b", Done: true})
	if len(b.spare) != maxSpareBlocks {
		t.Fatalf("%d spare blocks, want the bound, %d", len(b.spare), maxSpareBlocks)
	}
	b.reset()
	if len(b.spare) != maxSpareBlocks {
		t.Fatalf("reset after a stream that used blocks keeps %d spare blocks, want %d", len(b.spare), maxSpareBlocks)
	}
	b.Add(Chunk{ID: "c", Name: "f", ArgsDelta: `{}`, Done: true})
	b.reset()
	if b.spare != nil {
		t.Fatalf("reset after a stream without long calls keeps %d spare blocks, want none", len(b.spare))
	}
}
