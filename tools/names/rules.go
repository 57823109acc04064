package names

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
)

// For returns the tool-name rules adapter declares (core.NameRuler).
func For(adapter core.Adapter) (core.NameRules, bool) {
	if r, ok := adapter.(core.NameRuler); ok {
		return r.ToolNameRules(), true
	}
	return core.NameRules{}, false
}

// ErrInvalidName is wrapped by every *NameError.
var ErrInvalidName = errors.New("invalid tool name")

// NameError is a name that rules refuse. Offset is the byte offset of the
// first bad byte, or -1 when the fault is the length or emptiness.
type NameError struct {
	Name, Pattern, Reason string
	Offset                int
}

func (e *NameError) Error() string {
	return fmt.Sprintf("tool name %q: %s; names must match %s", e.Name, e.Reason, e.Pattern)
}

// Unwrap returns ErrInvalidName.
func (e *NameError) Unwrap() error { return ErrInvalidName }

// Check returns a *NameError when name breaks rules (core.NameRules.Check,
// the check every built-in adapter's EncodeRequest applies).
func Check(r core.NameRules, name string) error {
	var ne *core.NameError
	if errors.As(r.Check(name), &ne) {
		return &NameError{Name: name, Pattern: r.Pattern, Reason: ne.Reason, Offset: ne.Offset}
	}
	return nil
}

// byteOK and firstOK say which bytes clean keeps: those r allows, and
// those r allows first.
func byteOK(r core.NameRules, c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || strings.IndexByte(r.Extra, c) >= 0
}

func firstOK(r core.NameRules, c byte) bool {
	if r.LetterFirst {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	return byteOK(r, c)
}

// clean replaces each run of bytes the rules refuse with one '_' and puts
// '_' before a first byte that may not start a name; the result may be
// longer than MaxLen. An empty result becomes "tool".
func clean(r core.NameRules, s string) string {
	var b strings.Builder
	under := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; byteOK(r, c) {
			b.WriteByte(c)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := b.String()
	if out == "" {
		out = "tool"
	}
	if !firstOK(r, out[0]) {
		out = "_" + out
	}
	return out
}
