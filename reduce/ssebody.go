package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/sse"
)

// sseEvent is one piece of an SSE body as package sse reads it: a
// dispatched event with the bytes of its block (its closing blank line
// included), or a filler, the bytes between two events' blocks that
// dispatch nothing (comment blocks such as ": OPENROUTER PROCESSING",
// blank lines, a byte order mark). Writing every piece's raw bytes in
// order gives the body back exactly.
type sseEvent struct {
	name string
	data []byte
	raw  []byte
	// lines are where each data line's value starts, in data and in raw.
	lines  []lineStart
	filler bool
}

type lineStart struct{ pos, off int }

// parseSSE splits a body into the events package sse reads from it, the
// end of input ending the last event as every SSE adapter reads it
// (sse.FlushAtEOF), and the fillers between them. It fails with the
// codec's error, or when the pieces would not give the body back.
func parseSSE(body []byte) ([]sseEvent, error) {
	if len(body) > maxBody {
		return nil, fmt.Errorf("the body has %d bytes, more than the %d the simplifications take apart", len(body), maxBody)
	}
	dec := sse.NewDecoder(bytes.NewReader(body), sse.FlushAtEOF(), sse.MaxEventSize(maxBody))
	var out []sseEvent
	at := 0 // the first byte not yet in a piece
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		start := int(dec.Offset())
		if start < at || start > len(body) {
			return nil, fmt.Errorf("sse: event at byte %d overlaps the one before", start)
		}
		if start > at {
			out = append(out, sseEvent{raw: body[at:start], filler: true})
		}
		end := blockEnd(body, start)
		e := sseEvent{name: ev.Type, data: []byte(ev.Data), raw: body[start:end]}
		for pos := 0; ; {
			e.lines = append(e.lines, lineStart{pos: pos, off: int(dec.DataOffset(pos)) - start})
			i := bytes.IndexByte(e.data[pos:], '\n')
			if i < 0 {
				break
			}
			pos += i + 1
		}
		out = append(out, e)
		at = end
	}
	if at < len(body) {
		out = append(out, sseEvent{raw: body[at:], filler: true})
	}
	if !bytes.Equal(writeSSE(out), body) {
		return nil, errors.New("the events read do not give the body back")
	}
	return out, nil
}

// blockEnd returns the offset just past the blank line that ends the
// block starting at start (LF, CR and CRLF line ends), or the end of the
// body for a last block without one.
func blockEnd(body []byte, start int) int {
	i := start
	for i < len(body) {
		n := bytes.IndexAny(body[i:], "\r\n")
		if n < 0 {
			return len(body)
		}
		end := i + n + 1
		if body[i+n] == '\r' && end < len(body) && body[end] == '\n' {
			end++
		}
		if n == 0 {
			return end // a blank line
		}
		i = end
	}
	return len(body)
}

// writeSSE writes the pieces back.
func writeSSE(evs []sseEvent) []byte {
	var b bytes.Buffer
	for _, ev := range evs {
		b.Write(ev.raw)
	}
	return b.Bytes()
}

// withData returns the event with its data replaced, changing in its raw
// bytes only those that differ; it fails when the change spans a line
// end of the data (data over several lines) or adds one.
func (e sseEvent) withData(data []byte) (sseEvent, bool) {
	p := 0
	for p < len(e.data) && p < len(data) && e.data[p] == data[p] {
		p++
	}
	s := 0
	for s < len(e.data)-p && s < len(data)-p && e.data[len(e.data)-1-s] == data[len(data)-1-s] {
		s++
	}
	oldEnd, add := len(e.data)-s, data[p:len(data)-s]
	if bytes.IndexByte(add, '\n') >= 0 || bytes.IndexByte(add, '\r') >= 0 || bytes.IndexByte(e.data[p:oldEnd], '\n') >= 0 {
		return e, false
	}
	j := len(e.lines) - 1
	for j > 0 && e.lines[j].pos > p {
		j--
	}
	at := e.lines[j].off + p - e.lines[j].pos
	raw := make([]byte, 0, len(e.raw)+len(add))
	raw = append(raw, e.raw[:at]...)
	raw = append(raw, add...)
	raw = append(raw, e.raw[at+oldEnd-p:]...)
	e.raw, e.data = raw, data
	// The lines after the change move by the difference in length.
	lines := make([]lineStart, len(e.lines))
	for i, l := range e.lines {
		if i > j {
			l.pos += len(add) - (oldEnd - p)
			l.off += len(add) - (oldEnd - p)
		}
		lines[i] = l
	}
	e.lines = lines
	return e, true
}
