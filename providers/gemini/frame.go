package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// The states of jsonFrames.
const (
	framesSequence   = iota // a bare sequence of JSON values
	framesArrayStart        // the array form, its '[' not read yet
	framesInArray           // the array form, inside the array
	framesAfterArray        // the array form, after its ']'
)

// errFramesLimit is what jsonFrames.fill returns when the bytes held
// would pass the size limit.
var errFramesLimit = errors.New("gemini: frame size limit")

// framesBufSize is the first size of a framer's buffer, which it keeps
// across the streams of a pooled decoder while it is no larger than
// framesKeepSize.
const (
	framesBufSize  = 4 << 10
	framesKeepSize = 64 << 10
)

// jsonFrames finds the values of the JSON forms of a stream: the elements
// of the one-JSON-array form, or the values of a bare sequence, in a
// buffer it reuses. It finds where an object ends by its brackets and
// strings alone (escapes included): the object is then handed on
// unchecked, and json.Unmarshal or the fast path, which check it, report a
// syntax error in it as encoding/json's Decoder did. A value that is no
// object (which no stream sends), or an object cut by the end of input or
// the size limit, goes through encoding/json's own Decoder over the bytes
// held (slowValue), which gives the Decoder's end, its errors and their
// offsets.
//
// Memory: the bytes held start at the end of the last value, or after
// the '[' of the array, and never reach past it by more than max; a
// larger value is refused with core.ErrTooLarge, placed there.
type jsonFrames struct {
	src   io.Reader
	max   int64
	state int
	// buf holds the bytes read and not yet dropped; buf[0] is at stream
	// offset at, and pos is the index of the first byte not yet framed.
	// The bytes of the value next returned stay there until the
	// following call of next.
	buf []byte
	at  int64
	pos int
	// last is the stream offset of the end of the last value, or of the
	// array's '[': the size limit counts from there.
	last int64
	// elems counts the array's elements.
	elems int
	// err is the read error that ends the input, io.EOF at its end,
	// returned once the bytes read before it are used.
	err error
}

func (f *jsonFrames) init(src io.Reader, max int, base int64, array bool) {
	buf := f.buf[:0]
	*f = jsonFrames{src: src, max: int64(max), at: base, last: base, buf: buf}
	if array {
		f.state = framesArrayStart
	}
}

// keep returns the buffer for the framer of the next stream, if it is
// small enough to keep.
func (f *jsonFrames) keep() []byte {
	if cap(f.buf) > framesKeepSize {
		return nil
	}
	return f.buf[:0]
}

// next returns the next value and its stream offset, or io.EOF at the
// end of the stream.
func (f *jsonFrames) next() ([]byte, int64, error) {
	f.drop()
	switch f.state {
	case framesSequence:
		i, err := f.skipSpace(f.pos)
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, f.readError(err)
		}
		if c := f.buf[i]; c == ']' || c == '}' {
			return nil, 0, f.invalid(i, "looking for beginning of value")
		}
		return f.element(i)
	case framesArrayStart:
		// detect saw the '[' as the first byte that is not white space.
		i, err := f.skipSpace(f.pos)
		if err != nil {
			return nil, 0, f.readError(err)
		}
		f.pos, f.last, f.state = i+1, f.at+int64(i+1), framesInArray
		f.drop()
		fallthrough
	case framesInArray:
		i, err := f.skipSpace(f.pos)
		if err == io.EOF {
			return nil, 0, wire.Placed(streamOp, f.last, "", fmt.Errorf("%w: stream ended before the closing ] of the JSON array", core.ErrMalformed))
		}
		if err != nil {
			return nil, 0, f.readError(err)
		}
		switch c := f.buf[i]; {
		case c == ']':
			f.pos, f.last, f.state = i+1, f.at+int64(i+1), framesAfterArray
			return f.next()
		case c == '}' && f.elems == 0:
			return nil, 0, f.invalid(i, "looking for beginning of value")
		case c == '}':
			return nil, 0, f.invalid(i, "after array element")
		case f.elems == 0:
			return f.element(i)
		case c == ',':
			return f.element(i + 1)
		default:
			return nil, 0, wire.Placed(streamOp, f.at+int64(i), "", fmt.Errorf("%w: expected comma after array element", core.ErrMalformed))
		}
	default: // framesAfterArray: only space may follow
		i, err := f.skipSpace(f.pos)
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, f.readError(err)
		}
		return nil, 0, wire.Placed(streamOp, f.at+int64(i), "", fmt.Errorf("%w: data after the end of the stream", core.ErrMalformed))
	}
}

// drop drops the bytes before pos: those of the value last returned,
// whose events have all been taken, and what came before it.
func (f *jsonFrames) drop() {
	if f.pos > 0 {
		n := copy(f.buf, f.buf[f.pos:])
		f.buf = f.buf[:n]
		f.at += int64(f.pos)
		f.pos = 0
	}
}

// invalid is the error of the byte at index i where a value, a ',' or
// the array's ']' belongs, in encoding/json's words.
func (f *jsonFrames) invalid(i int, context string) error {
	return wire.Placed(streamOp, f.at+int64(i), "", fmt.Errorf("%w: invalid character '%c' %s", core.ErrMalformed, f.buf[i], context))
}

// readError is the error of a fill that found no byte where one belongs
// (other than at the end of input, which each caller places itself).
func (f *jsonFrames) readError(err error) error {
	if err == errFramesLimit {
		return f.tooLarge()
	}
	return fmt.Errorf("%s: %w", streamOp, err)
}

func (f *jsonFrames) tooLarge() error {
	return wire.Placed(streamOp, f.last, "", fmt.Errorf("%w: JSON value starting near here exceeds %d bytes", core.ErrTooLarge, f.max))
}

// element frames the value that starts at the first byte that is not
// white space at or after index from, the first byte after its ',' for
// an array element after the first.
func (f *jsonFrames) element(from int) ([]byte, int64, error) {
	start, err := f.skipSpace(from)
	if err != nil {
		return nil, 0, f.cut(from, err)
	}
	end := -1
	if c := f.buf[start]; c == '{' || c == '[' {
		end = f.container(start)
	}
	if end < 0 {
		var raw []byte
		if raw, err = f.slowValue(from, start); err != nil {
			return nil, 0, err
		}
		end = start + len(raw)
	}
	f.elems++
	f.pos, f.last = end, f.at+int64(end)
	return f.buf[start:end], f.at + int64(start), nil
}

// cut is the error of a value starting at index from that the end of
// input, the size limit or a read error cut short.
func (f *jsonFrames) cut(from int, err error) error {
	if err == io.EOF {
		return wire.Placed(streamOp, f.at+int64(from), "", fmt.Errorf("%w: stream ended inside a JSON value", core.ErrMalformed))
	}
	return f.readError(err)
}

// container returns the index just past the bracket that closes the
// object or array at index start, found by its brackets and strings
// alone, or -1 when input ended, or the size limit or a read error came,
// before it: slowValue then tells what is wrong. The nesting depth is a
// count, with no recursion; bytes, not depth, bound it.
func (f *jsonFrames) container(start int) int {
	i, depth, inString := start, 0, false
	for {
		b := f.buf
		for i < len(b) {
			if inString {
				j, closed := stringEnd(b, i)
				i = j
				if !closed {
					break
				}
				inString = false
				continue
			}
			switch b[i] {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		if f.fill() != nil {
			return -1
		}
	}
}

// stringEnd returns the index just past the '"' that closes the string
// whose contents start at b[i], and true; or, when b ends first, the index
// to go on from once more bytes follow (that of a '\' whose escaped byte
// has not come yet) and false.
func stringEnd(b []byte, i int) (int, bool) {
	q := -1 // the index of the first '"' at or after i, len(b) for none
	for {
		if q < i {
			if q = bytes.IndexByte(b[i:], '"'); q < 0 {
				q = len(b)
			} else {
				q += i
			}
		}
		e := bytes.IndexByte(b[i:q], '\\')
		if e < 0 {
			if q == len(b) {
				return len(b), false
			}
			return q + 1, true
		}
		if i += e + 2; i > len(b) {
			return i - 2, false
		}
	}
}

// slowValue frames the value at index start as encoding/json's Decoder
// does, decoding the bytes held from start, and more as they come, until
// they make a value, hold a syntax error, or run out: a value other than
// an object or array, or one cut or refused. from is where an error of
// input that ends inside the value is placed. It first reads the bytes
// the Decoder needs to settle a string, number or literal (holdScalar),
// so that a long one is decoded once.
func (f *jsonFrames) slowValue(from, start int) ([]byte, error) {
	f.holdScalar(start)
	for {
		held := f.buf[start:]
		d := json.NewDecoder(bytes.NewReader(held))
		var v json.RawMessage
		err := d.Decode(&v)
		n := int(d.InputOffset())
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// Offset counts the bytes read, the bad one included.
			return nil, wire.Placed(streamOp, f.at+int64(start)+se.Offset-1, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
		case err == nil && (n < len(held) || f.err == io.EOF || v[0] == '{' || v[0] == '['):
			// A string, a number or a literal ends, for the Decoder,
			// at the byte after it, or at the end of input.
			return held[:n], nil
		case f.err != nil:
			return nil, f.cut(from, f.err)
		}
		if err := f.fill(); err != nil && err != io.EOF {
			return nil, f.cut(from, err)
		}
	}
}

// holdScalar reads until the bytes held from index start hold the string
// that starts there and one byte after it, or a byte that can be no part
// of a number or literal starting there, or until fill fails.
func (f *jsonFrames) holdScalar(start int) {
	switch c := f.buf[start]; {
	case c == '{' || c == '[':
		// Cut or refused: the bytes held reach where.
	case c == '"':
		i := start + 1
		for {
			j, closed := stringEnd(f.buf, i)
			if i = j; closed {
				break
			}
			if f.fill() != nil {
				return
			}
		}
		for i >= len(f.buf) {
			if f.fill() != nil {
				return
			}
		}
	default:
		i := start
		for {
			for i < len(f.buf) && scalarByte(f.buf[i]) {
				i++
			}
			if i < len(f.buf) || f.fill() != nil {
				return
			}
		}
	}
}

// scalarByte reports whether c can be part of a number or literal.
func scalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '+' || c == '-'
}

// skipSpace returns the index of the first byte that is not white space
// at or after index i, reading more as needed, or the error of fill.
func (f *jsonFrames) skipSpace(i int) (int, error) {
	for {
		for ; i < len(f.buf); i++ {
			if c := f.buf[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				return i, nil
			}
		}
		if err := f.fill(); err != nil {
			return 0, err
		}
	}
}

// fill reads more bytes into buf, growing it as needed up to the size
// limit. It returns errFramesLimit when the bytes held reach max past
// last, else the read error that ended input (io.EOF at its end) once
// every byte read before it is in buf.
func (f *jsonFrames) fill() error {
	if f.err != nil {
		return f.err
	}
	held := int64(len(f.buf))
	room := f.max - (f.at + held - f.last)
	if room <= 0 {
		return errFramesLimit
	}
	if len(f.buf) == cap(f.buf) {
		size := int64(max(2*cap(f.buf), framesBufSize))
		if room < size-held {
			size = held + room
		}
		b := make([]byte, len(f.buf), size)
		copy(b, f.buf)
		f.buf = b
	}
	p := f.buf[len(f.buf):cap(f.buf)]
	if int64(len(p)) > room {
		p = p[:room]
	}
	for range 100 {
		n, err := f.src.Read(p)
		f.buf = f.buf[:len(f.buf)+n]
		if err != nil {
			f.err = err
			if n == 0 {
				return err
			}
		}
		if n > 0 {
			return nil
		}
	}
	f.err = io.ErrNoProgress
	return f.err
}
