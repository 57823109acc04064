package process

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Output keeps the first head and the last tail bytes written to it: a
// crash says why at the start of its output (a Go panic's message comes
// before every goroutine's stack) and where it ended at the end.
type Output struct {
	mu         sync.Mutex
	head, tail int
	first      []byte
	last       []byte
	cut        int // bytes between first and last that were dropped
}

// NewOutput returns an Output that keeps the first head and the last tail
// bytes written to it.
func NewOutput(head, tail int) *Output { return &Output{head: head, tail: tail} }

// Write keeps what fits in the head, then the latest bytes in the tail.
func (b *Output) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.head - len(b.first); room > 0 {
		k := min(room, len(p))
		b.first = append(b.first, p[:k]...)
		p = p[k:]
	}
	b.last = append(b.last, p...)
	if over := len(b.last) - b.tail; over > 0 {
		b.cut += over
		b.last = append(b.last[:0], b.last[over:]...)
	}
	return n, nil
}

// String returns the head and the tail, with a line counting the bytes
// cut between them when any were.
func (b *Output) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut == 0 {
		return string(b.first) + string(b.last)
	}
	return fmt.Sprintf("%s\n… (%d bytes cut) …\n%s", b.first, b.cut, b.last)
}

// crashLine matches the line that names a crash: a Go panic or fatal
// error, a Python exception after its traceback, an uncaught JavaScript
// error (Node prints the error's name and message before the "at" frames).
var crashLine = regexp.MustCompile(`^(panic: |fatal error: |Traceback \(most recent call last\)|(Uncaught )?[A-Z][A-Za-z]*(Error|Exception)(\s*\[[^\]]*\])?: )`)

// PanicLine returns the first line of stderr that names a crash (for a
// Python traceback, the exception line that ends it), or "".
func PanicLine(stderr string) string {
	lines := strings.Split(stderr, "\n")
	for i, l := range lines {
		if !crashLine.MatchString(l) {
			continue
		}
		if strings.HasPrefix(l, "Traceback") {
			// The exception is the last unindented line of the traceback.
			for j := i + 1; j < len(lines); j++ {
				if t := lines[j]; t != "" && t[0] != ' ' {
					return strings.TrimSpace(t)
				}
			}
			continue
		}
		return strings.TrimSpace(l)
	}
	return ""
}
