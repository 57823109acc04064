package textcalls_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
)

// BenchmarkParse parses, in every format, a turn of reasoning, 64 KiB of
// text and 64 calls rendered in it, whole and in 4-byte deltas:
//
//	go test -run '^$' -bench BenchmarkParse -benchmem ./textcalls
func BenchmarkParse(b *testing.B) {
	turn := textcalls.Turn{Thinking: strings.Repeat("weighing it. ", 200), Text: strings.Repeat("Some prose, then calls. ", 2730)}
	for i := range 64 {
		args, _ := json.Marshal(map[string]any{"city": fmt.Sprintf("Paris %d", i), "note": strings.Repeat("é", 100)})
		turn.Calls = append(turn.Calls, core.Call{Name: fmt.Sprintf("tool_%d", i), Arguments: args})
	}
	for _, f := range textcalls.Formats() {
		text, err := renderSome(f, turn)
		if err != nil {
			continue
		}
		for _, piece := range []int{0, 4} {
			deltas := []string{text}
			if piece > 0 {
				deltas = nil
				for s := text; s != ""; s = s[min(piece, len(s)):] {
					deltas = append(deltas, s[:min(piece, len(s))])
				}
			}
			b.Run(fmt.Sprintf("%s/delta=%d", f.Name, piece), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				var evs []core.Event
				for b.Loop() {
					p := f.New(textcalls.Options{})
					evs = evs[:0]
					for _, d := range deltas {
						evs = p.Feed(evs, d)
					}
					evs = p.Close(evs)
				}
			})
		}
	}
}

// renderSome renders as much of turn as the format can write.
func renderSome(f *textcalls.Format, t textcalls.Turn) (string, error) {
	if s, err := f.Render(t); err == nil {
		return s, nil
	}
	t.Thinking = ""
	if s, err := f.Render(t); err == nil {
		return s, nil
	}
	t.Text = ""
	return f.Render(t)
}
