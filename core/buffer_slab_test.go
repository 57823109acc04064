package core

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestBufferWholeArgumentsKeepToThemselves: calls whose arguments come
// whole (Args, copied into the Buffer's shared slab), replaced by other
// whole values, by a final copy of their deltas (B02), by deltas after
// them (A18) or by deltas alone, in any
// order and size, each come out with exactly their own text; and every
// call returned keeps its text while the calls after it write theirs
// (the returned Arguments are not copied here, so a write into another
// call's bytes shows).
func TestBufferWholeArgumentsKeepToThemselves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := NewBuffer(WithLimits(Limits{MaxArgBytes: 1 << 20}))
		type model struct {
			id, text string
			whole    bool // the text was set whole, so a delta restarts it
			done     bool
		}
		calls := make([]model, rapid.IntRange(1, 8).Draw(t, "calls"))
		for i := range calls {
			calls[i].id = fmt.Sprintf("c%d", i)
		}
		var got []Call
		var want []string
		add := func(c Chunk) {
			done, err := b.Add(c)
			if err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			for _, call := range done {
				got = append(got, call)
				for _, m := range calls {
					if m.id == call.ID {
						want = append(want, m.text)
					}
				}
			}
		}
		sizes := []int{0, 1, 5, 300, 1000, 3000, 70000}
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			i := rapid.IntRange(0, len(calls)-1).Draw(t, "call")
			m := &calls[i]
			if m.done {
				continue
			}
			fill := strings.Repeat(string(rune('a'+(7*i+step)%26)), rapid.SampledFrom(sizes).Draw(t, "size"))
			c := Chunk{ID: m.id, Name: "f"}
			switch action := rapid.IntRange(0, 2).Draw(t, "action"); {
			case action == 0 && !m.whole && m.text != "":
				// A final copy of the streamed text agrees with it (B02).
				add(Chunk{ID: m.id, ArgsDelta: `"}`})
				m.text, m.whole = m.text+`"}`, true
				c.Args = sp(strings.Clone(m.text))
			case action == 0:
				m.text, m.whole = `{"k":"`+fill+`"}`, true
				c.Args = sp(m.text)
			case action == 1 && (m.whole || m.text == ""):
				c.ArgsDelta = `{"k":"` + fill
				m.text, m.whole = c.ArgsDelta, false
			case action == 1:
				c.ArgsDelta = fill
				m.text += fill
			case m.text == "":
				continue
			default:
				if !m.whole {
					c.ArgsDelta = `"}`
					m.text += c.ArgsDelta
				}
				c.Done, m.done = true, true
			}
			add(c)
		}
		for i := range calls {
			if m := &calls[i]; !m.done && m.text != "" {
				c := Chunk{ID: m.id, Done: true}
				if !m.whole {
					c.ArgsDelta = `"}`
					m.text += c.ArgsDelta
				}
				m.done = true
				add(c)
			}
		}
		for i, call := range got {
			if string(call.Arguments) != want[i] {
				t.Fatalf("call %s: %d bytes of arguments %.40q…, want the %d sent %.40q…", call.ID, len(call.Arguments), call.Arguments, len(want[i]), want[i])
			}
		}
	})
}
