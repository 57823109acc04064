package core

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// NameMapper maps tool names that providers reject (MCP names with dots,
// slashes or spaces, E01; prefixed names longer than 64 bytes, E02) to
// valid ones, and back. It is safe for concurrent use; the zero value is
// ready to use.
//
// The mapping is deterministic for a given order of first calls: a valid
// name maps to itself; an invalid one has every disallowed byte replaced by
// '_' (runs collapsed). When that name is too long or already taken, valid
// or not, it is cut and given an 8-hex-digit suffix from the SHA-256 of the
// original. Only a name that collides with an earlier one depends on the
// order, and then only in which of the two keeps the plain form. A valid
// name holds its slot only once it has been through Sanitize, which is why
// WithNameMapper sends every name through the mapper (E01–E03).
type NameMapper struct {
	mu   sync.Mutex
	to   map[string]string // original → sanitised
	from map[string]string // sanitised → original
}

// NewNameMapper returns an empty NameMapper.
func NewNameMapper() *NameMapper { return &NameMapper{} }

// Sanitize returns the valid name for original, the same one on every call.
// Two different originals never share a sanitised name.
func (m *NameMapper) Sanitize(original string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.to[original]; ok {
		return s
	}
	if m.to == nil {
		m.to = map[string]string{}
		m.from = map[string]string{}
	}
	cand := original
	if CheckName(cand) != nil {
		cand = cleanName(original)
	}
	for i := 0; ; i++ {
		if _, taken := m.from[cand]; !taken && len(cand) <= MaxNameLen {
			break
		}
		cand = suffixed(cleanName(original), original, i)
	}
	m.to[original] = cand
	m.from[cand] = original
	return cand
}

// Original returns the name sanitized was made from, and whether sanitized
// came from this mapper.
func (m *NameMapper) Original(sanitized string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.from[sanitized]
	return o, ok
}

// cleanName replaces runs of disallowed bytes with one '_'. An empty result
// becomes "tool".
func cleanName(s string) string {
	var b strings.Builder
	under := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if nameByte(c) {
			b.WriteByte(c)
			under = false
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	if b.Len() == 0 {
		return "tool"
	}
	return b.String()
}

// suffixed cuts clean so that "_" and an 8-hex-digit hash fit in
// MaxNameLen. The attempt number enters the hash, so that the rare 32-bit
// collision gets a new suffix on the next attempt.
func suffixed(clean, original string, attempt int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s", attempt, original))
	suf := "_" + hex.EncodeToString(h[:4])
	if len(clean)+len(suf) > MaxNameLen {
		clean = clean[:MaxNameLen-len(suf)]
	}
	return clean + suf
}
