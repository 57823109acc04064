package jsonstr

import (
	"fmt"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// CheckUTF8 returns a *wire.DecodeError wrapping core.ErrInvalidUTF8 that names
// the first byte of body that is not UTF-8, or nil when body is UTF-8.
func CheckUTF8(protocol, op string, body []byte) error {
	if bad := InvalidUTF8At(body); bad >= 0 {
		return &wire.DecodeError{Protocol: protocol, Op: op, Offset: int64(bad), Err: core.ErrInvalidUTF8}
	}
	return nil
}

// InvalidUTF8At returns the offset of the first byte of b that does not
// begin a valid UTF-8 sequence, or -1.
func InvalidUTF8At(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// CheckText returns s with the text of every event checked for UTF-8: text
// and argument deltas, whole arguments, patch values and names. A stream
// decoder copies the bytes of a JSON string through unchanged, so that a
// character split between two deltas comes out whole (B05); a delta may
// therefore begin with the rest of a character and end with its start, and
// only those two places may hold an incomplete sequence. Any other byte
// that is not UTF-8 ends the stream with a *wire.DecodeError wrapping
// core.ErrInvalidUTF8 that names the event, the field and the byte of it.
func CheckText(protocol string, s core.EventStream) core.EventStream {
	return &textCheck{TextCheck: TextCheck{Protocol: protocol}, s: s}
}

type textCheck struct {
	TextCheck
	s core.EventStream
}

func (c *textCheck) Next() (core.Event, error) { return c.TextCheck.Next(c.s.Next) }

// TextCheck is CheckText kept in a stream decoder instead of wrapped
// around it, which spares its allocation: the decoder's Next returns
// Next(next), next being its own Next. Protocol names the decoder's
// protocol in errors.
type TextCheck struct {
	Protocol string
	n        int
	err      error
}

// Next returns the event next gives, or the error CheckText gives for it.
func (c *TextCheck) Next(next func() (core.Event, error)) (core.Event, error) {
	if c.err != nil {
		return core.Event{}, c.err
	}
	ev, err := next()
	if err != nil {
		return ev, err
	}
	if err := c.Check(&ev); err != nil {
		return core.Event{}, err
	}
	return ev, nil
}

// Err returns the error that ended the stream's events, or nil.
func (c *TextCheck) Err() error { return c.err }

// Check is Next for an event the decoder already has, for a Next that
// calls no next: it counts ev and returns the error CheckText gives for
// it, which then ends the stream, or nil. Call it only while Err is nil.
func (c *TextCheck) Check(ev *core.Event) error {
	c.n++
	if field, at := invalidText(ev); at >= 0 {
		c.err = &wire.DecodeError{Protocol: c.Protocol, Op: "decode stream", Offset: -1, Path: fmt.Sprintf("event %d, %s", c.n, field), Err: fmt.Errorf("byte %d: %w", at, core.ErrInvalidUTF8)}
		return c.err
	}
	return nil
}

// invalidText returns the field of ev holding a byte that is not UTF-8 and
// that byte's offset in it, or -1.
func invalidText(ev *core.Event) (field string, at int) {
	if at := invalidInDelta(ev.Text); at >= 0 {
		return "text", at
	}
	c := ev.Chunk
	if c == nil {
		return "", -1
	}
	if at := invalidInDelta(c.ArgsDelta); at >= 0 {
		return fmt.Sprintf("arguments delta of call %q", c.ID), at
	}
	if c.Args != nil {
		if at := InvalidUTF8At([]byte(*c.Args)); at >= 0 {
			return fmt.Sprintf("arguments of call %q", c.ID), at
		}
	}
	for k, v := range c.Patch {
		if at := InvalidUTF8At(v); at >= 0 {
			return fmt.Sprintf("argument %q of call %q", k, c.ID), at
		}
	}
	if !utf8.ValidString(c.Name) {
		return fmt.Sprintf("name of call %q", c.ID), InvalidUTF8At([]byte(c.Name))
	}
	return "", -1
}

// invalidInDelta returns the offset of the first byte of a delta that is
// not UTF-8, or -1, allowing the rest of a character at its start (at most
// three continuation bytes) and the start of one at its end.
func invalidInDelta(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	i := 0
	for i < len(s) && i < utf8.UTFMax-1 && !utf8.RuneStart(s[i]) {
		i++
	}
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRuneInString(s[i:]) {
				return -1 // cut by the end: the next delta may complete it
			}
			return i
		}
		i += size
	}
	return -1
}
