package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// refEvent is an event of the reference splitter with the stream offset
// of the block that dispatched it.
type refEvent struct {
	Event
	Offset int64
}

// refSplit is the reference for the decoder's line splitting, offsets and
// size bound: the whole input cut into lines by a plain scan for CR and
// LF (CRLF being one line end), a block being the lines up to a blank
// one. It returns the events, each with the offset of its block's first
// line, and the offset of the first block whose lines (their bytes
// without line ends, a partial byte order mark included) exceed max, or
// -1. The event contents are refDecode's.
func refSplit(in string, flush bool, max int) (evs []refEvent, tooLargeAt int64) {
	start := 0
	if strings.HasPrefix(in, "\xEF\xBB\xBF") {
		start = 3
	}
	type line struct {
		text string
		off  int
	}
	var lines []line
	i := start
	for {
		j := strings.IndexAny(in[i:], "\r\n")
		if j < 0 {
			break
		}
		lines = append(lines, line{in[i : i+j], i})
		i += j + 1
		if in[i-1] == '\r' && i < len(in) && in[i] == '\n' {
			i++
		}
	}
	rest := line{in[i:], i}
	all := append(lines, rest)
	// The decoder counts the unterminated rest against the bound whether
	// or not it flushes it.
	block, blockOff := 0, -1
	for _, l := range all {
		if blockOff < 0 {
			blockOff = l.off
		}
		if block += len(l.text); block > max {
			tooLargeAt = int64(blockOff)
			break
		}
		if l.text == "" {
			block, blockOff = 0, -1
		}
	}
	if block <= max {
		tooLargeAt = -1
	}
	// Offsets of the blocks that dispatch an event, in order.
	var offs []int64
	blockOff, hasData := -1, false
	end := lines
	if flush {
		end = all
	}
	for k, l := range end {
		if blockOff < 0 {
			blockOff = l.off
		}
		if l.text == "data" || strings.HasPrefix(l.text, "data:") {
			hasData = true
		}
		if l.text == "" || flush && k == len(end)-1 {
			if hasData {
				offs = append(offs, int64(blockOff))
			}
			blockOff, hasData = -1, false
		}
	}
	for k, ev := range refDecode(in, flush) {
		evs = append(evs, refEvent{ev, offs[k]})
	}
	return evs, tooLargeAt
}

// genLongText draws a stream whose lines are long next to the read
// buffer: data, comment and other field lines of up to 300 bytes, ended
// by LF, CR or CRLF, blank lines between blocks, an optional byte order
// mark (whole or cut short) and an optional last line without an end.
func genLongText(t *rapid.T) string {
	var b strings.Builder
	switch rapid.IntRange(0, 9).Draw(t, "bom") {
	case 0:
		b.WriteString("\xEF\xBB\xBF")
	case 1:
		b.WriteString("\xEF\xBB")
	}
	for range rapid.IntRange(0, 12).Draw(t, "lines") {
		if rapid.IntRange(0, 3).Draw(t, "blank") > 0 {
			name := rapid.SampledFrom([]string{"data: ", "data:", "data", ": ", "event: ", "id: ", "retry: ", "x: "}).Draw(t, "field")
			body := strings.Repeat(rapid.SampledFrom([]string{"a", "{\"k\":1}", "é", " ", ":"}).Draw(t, "unit"), rapid.IntRange(0, 60).Draw(t, "repeat"))
			if name == "event: " || name == "id: " {
				body = body[:min(len(body), 5)]
			}
			b.WriteString(name + body)
		}
		b.WriteString(rapid.SampledFrom([]string{"\n", "\r", "\r\n"}).Draw(t, "eol"))
	}
	if rapid.Bool().Draw(t, "tail") {
		b.WriteString("data: tail")
	}
	return b.String()
}

// TestLineSplitMatchesReference: whatever the read sizes and the size of
// the decoder's buffer (down to one byte, so that lines, CRLF pairs and
// the byte order mark straddle refills), the decoder yields refSplit's
// events at its offsets, maps every data byte to its place in the stream,
// and fails with ErrEventTooLarge at the first oversized block, for
// NextRaw as for Next.
func TestLineSplitMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := genLongText(t)
		flush := rapid.Bool().Draw(t, "flush")
		max := rapid.IntRange(4, 400).Draw(t, "max")
		bufSize := rapid.SampledFrom([]int{1, 2, 3, 7, 64, 4096}).Draw(t, "buffer")
		raw := rapid.Bool().Draw(t, "raw")
		opts := []Option{MaxEventSize(max)}
		if flush {
			opts = append(opts, FlushAtEOF())
		}
		d := NewDecoder(&pieces{p: genSplit(t, text)}, opts...)
		d.buf = make([]byte, bufSize)
		var got []refEvent
		var err error
		for {
			var ev Event
			if raw {
				var r RawEvent
				r, err = d.NextRaw()
				ev = Event{Type: r.Type, Data: string(r.Data), ID: r.ID, Retry: r.Retry}
			} else {
				ev, err = d.Next()
			}
			if err != nil {
				break
			}
			got = append(got, refEvent{ev, d.Offset()})
			for i := 0; i < len(ev.Data); i++ {
				if off := d.DataOffset(i); ev.Data[i] != '\n' && (off < 0 || off >= int64(len(text)) || text[off] != ev.Data[i]) {
					t.Fatalf("%q: data byte %d (%q) of event %d mapped to offset %d", text, i, ev.Data[i], len(got), off)
				}
			}
		}
		want, tooLargeAt := refSplit(text, flush, max)
		if tooLargeAt < 0 {
			if err != io.EOF {
				t.Fatalf("%q: error %v, want io.EOF", text, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q (-ref +got):\n%s", text, diff)
			}
			return
		}
		var se *Error
		if !errors.As(err, &se) || !errors.Is(err, ErrEventTooLarge) || se.Offset != tooLargeAt {
			t.Fatalf("%q, max %d: error %v, want ErrEventTooLarge at byte %d", text, max, err, tooLargeAt)
		}
		var before []refEvent
		for _, ev := range want {
			if ev.Offset < tooLargeAt {
				before = append(before, ev)
			}
		}
		if diff := cmp.Diff(before, got); diff != "" {
			t.Fatalf("%q: events before the oversized block (-ref +got):\n%s", text, diff)
		}
	})
}
