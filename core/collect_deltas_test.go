package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestCollectDeltasKeepToThemselves: streams of calls whose argument deltas
// interleave, in pieces of any size, collected one after another (so that
// Collect's pooled Buffer and its scratch block go from stream to stream),
// give every call the text of its own deltas, checked once all streams
// were collected: a call's first delta, kept in the scratch block, must
// never grow into the next call's.
func TestCollectDeltasKeepToThemselves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var got []*Response
		var want [][]string
		for s := range rapid.IntRange(1, 4).Draw(t, "streams") {
			n := rapid.IntRange(1, 4).Draw(t, "calls")
			texts := make([]string, n)
			pieces := make([][]string, n)
			for i := range n {
				texts[i] = fmt.Sprintf(`{"s%d_%d":"%s"}`, s, i, strings.Repeat(string(rune('a'+i)), rapid.IntRange(0, 300).Draw(t, "size")))
				for rest := texts[i]; rest != ""; {
					k := min(len(rest), rapid.IntRange(1, 80).Draw(t, "piece"))
					pieces[i], rest = append(pieces[i], rest[:k]), rest[k:]
				}
			}
			var evs []Event
			for i := range n {
				evs = append(evs, callEv(EventCallStart, Chunk{Index: i, HasIndex: true, ID: fmt.Sprintf("c%d", i), Name: "f"}))
			}
			for open := n; open > 0; {
				i := rapid.IntRange(0, n-1).Draw(t, "next call")
				if len(pieces[i]) == 0 {
					continue
				}
				evs = append(evs, callEv(EventCallDelta, Chunk{Index: i, HasIndex: true, ArgsDelta: pieces[i][0]}))
				if pieces[i] = pieces[i][1:]; len(pieces[i]) == 0 {
					evs = append(evs, callEv(EventCallEnd, Chunk{Index: i, HasIndex: true}))
					open--
				}
			}
			resp, err := Collect(SliceStream(append(evs, Event{Kind: EventFinish, Finish: FinishToolCalls})))
			if err != nil {
				t.Fatalf("stream %d: %v", s, err)
			}
			got, want = append(got, resp), append(want, texts)
		}
		for s, resp := range got {
			var args []string
			for _, c := range resp.Calls() {
				args = append(args, string(c.Arguments))
			}
			if diff := cmp.Diff(want[s], args); diff != "" {
				t.Fatalf("stream %d, after all were collected: arguments (-sent +collected):\n%s", s, diff)
			}
		}
	})
}
