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

func byteOK(r core.NameRules, c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || strings.IndexByte(r.Extra, c) >= 0
}

func firstOK(r core.NameRules, c byte) bool {
	if r.LetterFirst {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	return byteOK(r, c)
}

// Check returns a *NameError when name breaks rules.
func Check(r core.NameRules, name string) error {
	bad := func(off int, reason string) error {
		return &NameError{Name: name, Pattern: r.Pattern, Reason: reason, Offset: off}
	}
	if name == "" {
		return bad(-1, "empty")
	}
	if !firstOK(r, name[0]) {
		if byteOK(r, name[0]) {
			return bad(0, fmt.Sprintf("starts with %q, not a letter or '_'", name[0]))
		}
		return bad(0, fmt.Sprintf("character %q at byte 0 not allowed", firstRune(name)))
	}
	for i := 1; i < len(name); i++ {
		if !byteOK(r, name[i]) {
			return bad(i, fmt.Sprintf("character %q at byte %d not allowed", firstRune(name[i:]), i))
		}
	}
	if len(name) > r.MaxLen {
		return bad(-1, fmt.Sprintf("%d bytes long, more than %d", len(name), r.MaxLen))
	}
	return nil
}

func firstRune(s string) rune {
	for _, c := range s {
		return c
	}
	return 0
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
