package core

import (
	"errors"
	"fmt"
	"strings"
)

// CommonNameRules is ^[a-zA-Z0-9_-]{1,64}$, the rule of OpenAI, Anthropic,
// Bedrock and Mistral, and the one every provider accepts: a name that
// keeps it travels unchanged. A digit-leading name is valid there (E03);
// a name longer than 64 bytes is not (E02).
var CommonNameRules = NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
	Source: "OpenAI, Anthropic, Bedrock and Mistral: ^[a-zA-Z0-9_-]{1,64}$"}

// ErrInvalidName is wrapped by every NameError.
var ErrInvalidName = errors.New("invalid tool name")

// NameError reports a tool name that a provider's rules refuse. Offset is
// the byte offset of the first bad character, or -1 when the fault is the
// length or emptiness. Pattern is the rule broken.
type NameError struct {
	Name    string
	Offset  int
	Reason  string
	Pattern string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("check tool name %q: %s; names must match %s (use a NameMapper to map other names)", e.Name, e.Reason, e.Pattern)
}

// Unwrap returns ErrInvalidName.
func (e *NameError) Unwrap() error { return ErrInvalidName }

// Check returns a *NameError when name breaks r: empty, a byte r does not
// allow (at the start, when LetterFirst, a digit or an Extra byte), or
// longer than MaxLen.
func (r NameRules) Check(name string) error {
	bad := func(off int, reason string) error {
		return &NameError{Name: name, Offset: off, Reason: reason, Pattern: r.Pattern}
	}
	if name == "" {
		return bad(-1, "empty")
	}
	if !r.allowsFirst(name[0]) && r.allows(name[0]) {
		return bad(0, fmt.Sprintf("starts with %q, not a letter or '_'", name[0]))
	}
	for i := 0; i < len(name); i++ {
		if !r.allows(name[i]) {
			return bad(i, fmt.Sprintf("character %q at byte %d not allowed", firstRune(name[i:]), i))
		}
	}
	if len(name) > r.MaxLen {
		return bad(-1, fmt.Sprintf("%d bytes long, more than %d", len(name), r.MaxLen))
	}
	return nil
}

// allows reports whether c may appear in a name: an ASCII letter, digit,
// '_' or a byte of Extra.
func (r NameRules) allows(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || strings.IndexByte(r.Extra, c) >= 0
}

// allowsFirst reports whether c may start a name: with LetterFirst, only a
// letter or '_'.
func (r NameRules) allowsFirst(c byte) bool {
	if r.LetterFirst {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	return r.allows(c)
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}
