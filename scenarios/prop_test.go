package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios/fakeadapter"
)

// TestPropertyInterleaving generates parallel calls whose argument
// fragments are interleaved at random and checks two things: the engine
// passes a correct adapter on every such stream (whatever the interleaving
// and the random re-splits of the bytes), and it fails the latest-call
// adapter exactly when some fragment arrives after a later call started.
func TestPropertyInterleaving(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "calls")
		var pieces [][]string
		var want []map[string]any
		for i := range n {
			v := rapid.StringMatching(`[a-zé😀 ]{0,12}`).Draw(t, fmt.Sprintf("value%d", i))
			args, _ := json.Marshal(map[string]string{"v": v})
			cuts := rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("fragments%d", i))
			// Cut at character boundaries: a JSON string delta cannot carry
			// half a UTF-8 sequence.
			var ps []string
			s := []rune(string(args))
			for c := 1; c < cuts && len(s) > 1; c++ {
				k := rapid.IntRange(1, len(s)-1).Draw(t, fmt.Sprintf("cut%d.%d", i, c))
				ps, s = append(ps, string(s[:k])), s[k:]
			}
			pieces = append(pieces, append(ps, string(s)))
			var obj any
			_ = json.Unmarshal(args, &obj)
			want = append(want, map[string]any{"id": fmt.Sprintf("c%d", i), "name": fmt.Sprintf("tool%d", i), "arguments": obj})
		}
		// A random schedule: call i starts before its first fragment, starts
		// come in call order, fragments of one call keep their order.
		next := make([]int, n) // next fragment per call; -1 = not started
		for i := range next {
			next[i] = -1
		}
		started := 0
		var events []core.Event
		interleaved := false
		for {
			var choices []int
			if started < n {
				choices = append(choices, -1)
			}
			for i := range started {
				if next[i] < len(pieces[i]) {
					choices = append(choices, i)
				}
			}
			if len(choices) == 0 {
				break
			}
			c := rapid.SampledFrom(choices).Draw(t, "step")
			if c == -1 {
				events = append(events, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: started, HasIndex: true, ID: fmt.Sprintf("c%d", started), Name: fmt.Sprintf("tool%d", started), Start: true}})
				next[started] = 0
				started++
				continue
			}
			if c < started-1 {
				interleaved = true
			}
			events = append(events, core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: c, HasIndex: true, ArgsDelta: pieces[c][next[c]]}})
			next[c]++
		}
		for i := range n {
			events = append(events, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: i, HasIndex: true, Done: true}})
		}
		events = append(events, core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls})
		var body strings.Builder
		if err := fakeadapter.New("fake").EncodeStream(&body, events); err != nil {
			t.Fatal(err)
		}
		sc := &Scenario{Name: "fake/prop/interleaving", Severity: MUST, Guards: []string{"A05"}, Protocols: []string{"fake"},
			Kind: KindStream, Body: []byte(body.String()), Want: Want{Calls: want}}

		if res := CheckOne(fakeadapter.New("fake"), sc, Options{}); res.Status != StatusPass {
			t.Fatalf("correct adapter: %s: %v\nstream:\n%s", res.Status, res.Problems, body.String())
		}
		res := CheckOne(latestCallAdapter{fakeadapter.New("fake")}, sc, Options{Splits: -1})
		if got := res.Status == StatusFail; got != interleaved {
			t.Fatalf("latest-call adapter failed = %v, want %v (interleaved); problems: %v\nstream:\n%s", got, interleaved, res.Problems, body.String())
		}
	})
}
