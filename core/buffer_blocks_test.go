package core

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestBufferLongArgumentsInBlocks: a call whose text outgrows argBlock,
// streamed in deltas of any size, with previews between them and whole
// Args values (the delta after one replaces it, A18), comes out with
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
				want = `{"s":"` + strings.Repeat("w", rapid.SampledFrom([]int{0, 10, 70000}).Draw(t, "whole size"))
				if _, err := b.Add(Chunk{ID: "c1", Args: &want}); err != nil {
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
