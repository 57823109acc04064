// Package ndjson reads newline-delimited JSON (one JSON value per line)
// incrementally, one line at a time, with a maximum line size, reporting
// the byte offset of every line and of every fault.
//
// Lines end with LF; a CR before the LF is dropped. Blank lines (only
// spaces, tabs or CR) are skipped. A last line without a final LF is still
// returned. Memory is bounded by the maximum line size whatever the number
// of lines.
package ndjson

import (
	"bufio"
	"fmt"
	"io"
	"sync"

	"github.com/toolconform/conform/core"
)

// DefaultMaxLine is the default largest line, in bytes.
const DefaultMaxLine = 4 << 20

// bufSize is the size of the read buffer: a line that fits in it is
// returned as a view of it, a longer one is gathered in a buffer of its own.
const bufSize = 8 << 10

// ErrLineTooLong is wrapped by the error for a line longer than the limit;
// it wraps core.ErrTooLarge.
var ErrLineTooLong = fmt.Errorf("ndjson: line %w", core.ErrTooLarge)

// Error is a read fault at a byte offset of the stream.
type Error struct {
	Offset int64
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("ndjson: at byte offset %d: %v", e.Offset, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// Reader reads lines from an io.Reader.
type Reader struct {
	br   *bufio.Reader
	max  int
	off  int64
	line []byte
	err  error
}

// NewReader returns a Reader that accepts lines of at most max bytes
// (max <= 0 means DefaultMaxLine).
func NewReader(r io.Reader, max int) *Reader {
	lr := new(Reader)
	lr.Init(r, max)
	return lr
}

// Init makes lr a Reader of r as NewReader returns it, for a Reader kept
// in a decoder of its own. It drops whatever lr held.
func (lr *Reader) Init(r io.Reader, max int) {
	if max <= 0 {
		max = DefaultMaxLine
	}
	br, _ := readers.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(r, bufSize)
	} else {
		br.Reset(r)
	}
	*lr = Reader{br: br, max: max}
}

// readers holds the read buffers of ended Readers for the next Reader: a
// stream of a few lines then costs no buffer allocation.
var readers sync.Pool

// release hands the read buffer to the next Reader once the stream has
// ended and Next has been called after its last line, when no line it
// returned is valid any more.
func (r *Reader) release() {
	if r.br != nil {
		r.br.Reset(nil)
		readers.Put(r.br)
		r.br = nil
	}
}

// Next returns the next non-blank line, without its line end, and the byte
// offset where it starts. The slice is valid until the next call. After the
// last line it returns io.EOF; any other error is an *Error and is
// returned again by later calls.
func (r *Reader) Next() ([]byte, int64, error) {
	for {
		if r.err != nil {
			r.release()
			return nil, r.off, r.err
		}
		start := r.off
		r.line = r.line[:0]
		var whole []byte
		for {
			frag, err := r.br.ReadSlice('\n')
			if len(r.line)+len(frag) > r.max+2 { // +2 for CR LF
				r.err = &Error{Offset: start, Err: fmt.Errorf("%w: the line starting here exceeds %d bytes", ErrLineTooLong, r.max)}
				return nil, start, r.err
			}
			if len(r.line) == 0 && err != bufio.ErrBufferFull {
				whole = frag // the whole line, a view of the read buffer
			} else {
				r.line = append(r.line, frag...)
				whole = r.line
			}
			r.off += int64(len(frag))
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				r.err = io.EOF
				break
			}
			if err != nil {
				r.err = &Error{Offset: r.off, Err: fmt.Errorf("read: %w", err)}
				return nil, r.off, r.err
			}
			break
		}
		line := trimEnd(whole)
		if len(line) > r.max {
			r.err = &Error{Offset: start, Err: fmt.Errorf("%w: the line starting here exceeds %d bytes", ErrLineTooLong, r.max)}
			return nil, start, r.err
		}
		if blank(line) {
			if r.err != nil {
				// No line is handed out with this error: the last one
				// is no longer valid, and the buffer can go.
				r.release()
				return nil, r.off, r.err
			}
			continue
		}
		// At the end of input the last line is returned now and io.EOF on
		// the next call.
		return line, start, nil
	}
}

func trimEnd(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
