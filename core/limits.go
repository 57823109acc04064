package core

import (
	"errors"
	"fmt"

	"github.com/toolconform/conform/core/internal/jsondepth"
)

// singleCallIndex is the one negative index a Chunk may carry: AWS
// Bedrock's OpenAI-compatible endpoint sends index -1 for a lone call (A11;
// openai-go's stream accumulator reads it as 0 for that reason). The Buffer
// routes it like any other index, so such a call is assembled, never
// rejected; an index below it is ErrIndexOutOfRange.
const singleCallIndex = -1

// The sentinel errors of the limits a Buffer and Collect enforce. Each
// error returned for a limit wraps one of them, so callers can branch with
// errors.Is.
var (
	// ErrArgumentsTooLarge reports a call whose arguments would grow
	// beyond Limits.MaxArgBytes; tools.Validate wraps it too, for
	// arguments longer than DefaultMaxArgBytes.
	ErrArgumentsTooLarge = fmt.Errorf("arguments %w", ErrTooLarge)
	// ErrTooManyCalls reports a chunk that would open more calls than
	// Limits.MaxCalls; a count limit is a size limit, so it is a kind of
	// ErrTooLarge.
	ErrTooManyCalls = fmt.Errorf("tool call count %w", ErrTooLarge)
	// ErrIndexOutOfRange reports a chunk whose index is below -1, a lone
	// call's index (A11), or larger than Limits.MaxIndex (A12).
	ErrIndexOutOfRange = errors.New("tool call index out of range")
)

// The default limits; see Limits.
const (
	DefaultMaxCalls     = 256
	DefaultMaxArgBytes  = 4 << 20
	DefaultMaxIndex     = 1023
	DefaultMaxTextBytes = 16 << 20
)

// Limits bounds what a Buffer and Collect keep. A zero field takes its
// default, so Limits{} is the default limits.
type Limits struct {
	// MaxCalls is the number of calls one Buffer may open, completed or
	// not. Default 256.
	MaxCalls int
	// MaxArgBytes bounds the argument text of one call, deltas
	// accumulated or patches merged. Default 4 MiB, the most core/repair
	// accepts.
	MaxArgBytes int
	// MaxIndex is the largest call index a chunk may carry. The smallest
	// is -1, a lone call's index (A11); an index below it is
	// ErrIndexOutOfRange too. Default 1023.
	MaxIndex int
	// MaxTextBytes bounds the text, thinking and plan deltas Collect
	// keeps for one response. Default 16 MiB.
	MaxTextBytes int
}

// withDefaults returns l with every zero or negative field set to its
// default.
func (l Limits) withDefaults() Limits {
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.MaxArgBytes <= 0 {
		l.MaxArgBytes = DefaultMaxArgBytes
	}
	if l.MaxIndex <= 0 {
		l.MaxIndex = DefaultMaxIndex
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultMaxTextBytes
	}
	return l
}

// MaxDepth is the deepest nesting of JSON arrays and objects that conform
// reads or writes anywhere: in arguments, schemas, repair, provider bodies
// and decode's output. Real tool arguments and schemas stay within a few
// dozen levels; the bound keeps every recursive reader's stack and every
// indented rendering small. core/repair and tools/schema enforce the same
// constant (repair.MaxDepth).
const MaxDepth = jsondepth.Max

// ErrTooDeep reports JSON nested deeper than MaxDepth. Errors from
// core/repair and tools/schema for the same condition wrap it too.
var ErrTooDeep = jsondepth.ErrTooDeep

// DepthError is the error CheckDepth returns: Offset is the byte offset of
// the bracket that opens level MaxDepth+1.
type DepthError = jsondepth.Error

// CheckDepth reports whether data nests arrays and objects deeper than
// MaxDepth, without recursion: it counts brackets outside strings (a
// closer without an opener is ignored) and returns an error wrapping
// ErrTooDeep, a *DepthError naming the byte offset of the bracket that goes
// one level too deep. It does not check that data is
// valid JSON.
func CheckDepth(data []byte) error {
	return jsondepth.Check(data, false)
}
