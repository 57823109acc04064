// Package jsondepth holds the one bound on JSON nesting that core and
// core/repair share (core.MaxDepth and core.CheckDepth re-export it for
// every other package), and the check that enforces it without recursion.
package jsondepth

import (
	"errors"
	"fmt"
)

// Max is the deepest nesting of JSON arrays and objects conform reads or
// writes anywhere.
const Max = 512

// ErrTooDeep reports JSON nested deeper than Max.
var ErrTooDeep = errors.New("JSON nested too deeply")

// Error is JSON nested deeper than Max: Offset is the byte offset of the
// bracket that opens level Max+1.
type Error struct {
	Offset int
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v: more than %d levels at byte %d", ErrTooDeep, Max, e.Offset)
}

// Unwrap returns ErrTooDeep.
func (e *Error) Unwrap() error { return ErrTooDeep }

// Check returns an *Error when data nests arrays and objects deeper than
// Max, counting brackets outside double-quoted strings; a closer without
// an opener is ignored. With single set,
// single-quoted strings count as strings too (for repair's model-made
// input). It does not check that data is valid JSON.
func Check[T ~string | ~[]byte](data T, single bool) error {
	depth := 0
	var quote byte
	escaped := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
			}
		case c == '"' || (single && c == '\''):
			quote = c
		case c == '[' || c == '{':
			depth++
			if depth > Max {
				return &Error{Offset: i}
			}
		case (c == ']' || c == '}') && depth > 0:
			// A closer without an opener (invalid JSON) is ignored, so
			// that it cannot buy room for deeper nesting after it.
			depth--
		}
	}
	return nil
}
