package core

import (
	"errors"
	"fmt"
)

// MaxNameLen is the longest tool name the strictest providers accept
// (Anthropic and OpenAI: ^[a-zA-Z0-9_-]{1,64}$, E02).
const MaxNameLen = 64

// ErrInvalidName is wrapped by every NameError.
var ErrInvalidName = errors.New("invalid tool name")

// NameError reports a tool name that providers reject. Offset is the byte
// offset of the first bad character, or -1 when the fault is the length.
type NameError struct {
	Name   string
	Offset int
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("check tool name %q: %s; names must match ^[a-zA-Z0-9_-]{1,64}$ (use a NameMapper to map other names)", e.Name, e.Reason)
}

// Unwrap returns ErrInvalidName.
func (e *NameError) Unwrap() error { return ErrInvalidName }

// CheckName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$, the
// pattern every provider accepts. A digit-leading name is valid (E03).
func CheckName(name string) error {
	if name == "" {
		return &NameError{Name: name, Offset: -1, Reason: "empty"}
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return &NameError{Name: name, Offset: i, Reason: fmt.Sprintf("character %q at byte %d not allowed", firstRune(name[i:]), i)}
		}
	}
	if len(name) > MaxNameLen {
		return &NameError{Name: name, Offset: -1, Reason: fmt.Sprintf("%d bytes long, more than %d", len(name), MaxNameLen)}
	}
	return nil
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
