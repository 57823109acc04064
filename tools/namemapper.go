package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/toolconform/conform/core"
)

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
	if core.CommonNameRules.Check(cand) != nil {
		cand = cleanName(original)
	}
	for i := 0; ; i++ {
		if _, taken := m.from[cand]; !taken && len(cand) <= core.CommonNameRules.MaxLen {
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
// core.CommonNameRules.MaxLen. The attempt number enters the hash, so that the rare
// 32-bit collision gets a new suffix on the next attempt.
func suffixed(clean, original string, attempt int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s", attempt, original))
	suf := "_" + hex.EncodeToString(h[:4])
	if len(clean)+len(suf) > core.CommonNameRules.MaxLen {
		clean = clean[:core.CommonNameRules.MaxLen-len(suf)]
	}
	return clean + suf
}

// nameByte reports whether c may appear in a name every provider accepts
// (core.CommonNameRules).
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
