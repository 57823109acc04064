package textcalls_test

import (
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

// TestCheckReference grades the reference parsers with the kit a parser
// under test is graded with: nothing to find.
func TestCheckReference(t *testing.T) {
	vectors := loadVectors(t)
	for _, f := range textcalls.Formats() {
		for _, finding := range textcallstest.Check(f, vectors, textcallstest.ParserSubject(f.New)) {
			t.Errorf("%s: %v", f.Name, finding)
		}
	}
}

// TestCheckFindsFaults is Check's positive control: two parsers with a
// planted fault each, the faults engines' trackers report, are found.
func TestCheckFindsFaults(t *testing.T) {
	vectors := loadVectors(t)
	hermes, _ := textcalls.Lookup("hermes")
	for _, tc := range []struct {
		name    string
		subject textcallstest.Subject
		mode    string
	}{
		// Each delta parsed on its own: a marker split across deltas is
		// lost (T01, seen as T05).
		{"each delta alone", func(v *textcallstest.Vector, deltas []string) textcallstest.Result {
			var all []core.Event
			for i, d := range deltas {
				p := hermes.New(v.Options())
				evs := p.Close(p.Feed(nil, d))
				for j := range evs {
					if evs[j].Chunk != nil {
						c := *evs[j].Chunk
						c.Index += 1000 * i
						evs[j].Chunk = &c
					}
				}
				all = append(all, evs...)
			}
			return textcallstest.EventsResult(all)
		}, "T05"},
		// Calls left open at the end are ended: a cut call is complete.
		{"cut calls completed", textcallstest.ParserSubject(func(o textcalls.Options) textcalls.Parser {
			return &closesOpen{Parser: hermes.New(o)}
		}), "T09"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, f := range textcallstest.Check(hermes, vectors, tc.subject) {
				if f.Severity == textcallstest.Must && f.Mode == tc.mode {
					n++
				}
			}
			if n == 0 {
				t.Errorf("no MUST %s finding for a parser whose fault is %s", tc.mode, tc.name)
			}
		})
	}
}

// closesOpen ends, at the end of the text, every call its parser left
// open.
type closesOpen struct {
	textcalls.Parser
	open map[int]bool
}

func (c *closesOpen) Feed(dst []core.Event, delta string) []core.Event {
	return c.track(c.Parser.Feed(dst, delta), len(dst))
}

func (c *closesOpen) Close(dst []core.Event) []core.Event {
	out := c.track(c.Parser.Close(dst), len(dst))
	for i := range c.open {
		out = append(out, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: i, HasIndex: true}})
	}
	// What was left open was cut, not malformed: drop the errors.
	kept := out[:0]
	for _, ev := range out {
		if ev.Kind != core.EventError || !strings.Contains(ev.Error.Message, "not closed") {
			kept = append(kept, ev)
		}
	}
	return kept
}

func (c *closesOpen) track(evs []core.Event, from int) []core.Event {
	if c.open == nil {
		c.open = map[int]bool{}
	}
	for _, ev := range evs[from:] {
		switch ev.Kind {
		case core.EventCallStart:
			c.open[ev.Chunk.Index] = true
		case core.EventCallEnd:
			delete(c.open, ev.Chunk.Index)
		}
	}
	return evs
}
