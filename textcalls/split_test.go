package textcalls_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

// joined is a parser's events with every run of deltas of one kind (text,
// thinking, one call's arguments) joined into one: what a split of the
// text may not change.
func joined(evs []core.Event) []core.Event {
	var out []core.Event
	for _, ev := range evs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			switch {
			case ev.Kind == last.Kind && (ev.Kind == core.EventText || ev.Kind == core.EventThinking):
				last.Text += ev.Text
				continue
			case ev.Kind == core.EventCallDelta && last.Kind == core.EventCallDelta && ev.Chunk.Index == last.Chunk.Index:
				c := *last.Chunk
				c.ArgsDelta += ev.Chunk.ArgsDelta
				last.Chunk = &c
				continue
			}
		}
		if ev.Chunk != nil {
			c := *ev.Chunk
			ev.Chunk = &c
		}
		out = append(out, ev)
	}
	return out
}

// splits are the ways the property cuts a text, besides random pieces.
func splits(text string, markers []string) map[string][]string {
	bytes := make([]string, len(text))
	for i := 0; i < len(text); i++ {
		bytes[i] = text[i : i+1]
	}
	var runes []string
	for i := 0; i < len(text); {
		_, n := utf8.DecodeRuneInString(text[i:])
		runes = append(runes, text[i:i+n])
		i += n
	}
	// Cut inside and around every marker: at each of its bytes.
	cuts := map[int]bool{}
	for _, mk := range markers {
		for at := 0; ; {
			j := strings.Index(text[at:], mk)
			if j < 0 {
				break
			}
			for k := 0; k <= len(mk); k++ {
				cuts[at+j+k] = true
			}
			at += j + 1
		}
	}
	var marked []string
	last := 0
	for i := 1; i < len(text); i++ {
		if cuts[i] {
			marked = append(marked, text[last:i])
			last = i
		}
	}
	marked = append(marked, text[last:])
	return map[string][]string{"bytes": bytes, "code points": runes, "marker boundaries": marked}
}

// markersOf are strings that look like a format's markers in a text: any
// run from '<' or '[' to the next '>' or ']', and the fullwidth bars.
func markersOf(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '<' && text[i] != '[' {
			continue
		}
		j := strings.IndexAny(text[i+1:], ">]")
		if j >= 0 && j < 64 {
			out = append(out, text[i:i+j+2])
		}
	}
	return out
}

// TestSplitInvariance checks, for every vector of every built-in format,
// that the text cut into single bytes, single code points and pieces cut
// at every marker boundary gives the same events, joined, as the whole.
func TestSplitInvariance(t *testing.T) {
	for _, v := range loadVectors(t) {
		f, err := textcalls.Lookup(v.Format)
		if err != nil {
			continue
		}
		text := strings.Join(input(&v), "")
		whole := joined(textcalls.Parse(f, v.Options(), text))
		for how, pieces := range splits(text, markersOf(text)) {
			got := joined(textcalls.Parse(f, v.Options(), pieces...))
			if diff := cmp.Diff(whole, got); diff != "" {
				t.Errorf("%s cut into %s: events differ from the whole text's (-whole +cut):\n%s", v.ID, how, diff)
			}
		}
		if len(v.Chunks) > 0 {
			got := joined(textcalls.Parse(f, v.Options(), v.Chunks...))
			if diff := cmp.Diff(whole, got); diff != "" {
				t.Errorf("%s in the source's chunks: events differ from the whole text's (-whole +chunks):\n%s", v.ID, diff)
			}
		}
	}
}

// TestSplitInvarianceRandom cuts every vector's text at random places.
func TestSplitInvarianceRandom(t *testing.T) {
	vectors := loadVectors(t)
	var usable []textcallstest.Vector
	for _, v := range vectors {
		if _, err := textcalls.Lookup(v.Format); err == nil {
			usable = append(usable, v)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.SampledFrom(usable).Draw(rt, "vector")
		f, _ := textcalls.Lookup(v.Format)
		text := strings.Join(input(&v), "")
		pieces := randomPieces(rt, text)
		whole := joined(textcalls.Parse(f, v.Options(), text))
		got := joined(textcalls.Parse(f, v.Options(), pieces...))
		if diff := cmp.Diff(whole, got); diff != "" {
			rt.Fatalf("%s cut into %q: events differ (-whole +cut):\n%s", v.ID, pieces, diff)
		}
	})
}

// randomPieces cuts text at random byte offsets, empty pieces included.
func randomPieces(rt *rapid.T, text string) []string {
	cuts := rapid.SliceOfN(rapid.IntRange(0, len(text)), 0, 12).Draw(rt, "cuts")
	var pieces []string
	last := 0
	for _, c := range sortedInts(cuts) {
		pieces = append(pieces, text[last:c])
		last = c
	}
	return append(pieces, text[last:])
}

func sortedInts(xs []int) []int {
	out := append([]int(nil), xs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
