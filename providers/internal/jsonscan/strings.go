package jsonscan

import (
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/providers/internal/wire"
)

// The string arena: small strings are copied into shared append-only
// blocks instead of allocated one by one.
const (
	// ArenaBlock is the size of one arena block.
	ArenaBlock = 8 << 10
	// ArenaMax is the longest string kept in the arena; longer strings get
	// an allocation of their own.
	ArenaMax = 1 << 10
)

// Strings turns the string contents a Scanner returns into Go strings,
// reusing one unescape buffer and an arena for small strings. The zero
// value is ready to use; a fast path keeps one for its whole stream.
type Strings struct {
	arena, scratch []byte
}

// String returns b as a string. Strings of up to ArenaMax bytes are
// appended to the current arena block and returned as a view of it; a
// block is never written again where a string points, so the strings are
// immutable as Go requires, and a block is freed when no string points
// into it.
func (t *Strings) String(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > ArenaMax:
		return string(b)
	}
	if cap(t.arena)-len(t.arena) < len(b) {
		t.arena = make([]byte, 0, ArenaBlock)
	}
	start := len(t.arena)
	t.arena = append(t.arena, b...)
	return unsafe.String(&t.arena[start], len(b))
}

// Text returns the value of a string from its content between the quotes,
// as Str returned it, exactly as encoding/json would decode it. It reports
// false for invalid UTF-8 and for \u escapes of lone surrogates, which
// encoding/json replaces with U+FFFD and a general path must handle.
func (t *Strings) Text(raw []byte, esc bool) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	if !esc {
		return t.String(raw), true
	}
	out, lone, err := wire.AppendUnescaped(t.scratch[:0], raw)
	t.scratch = out
	if err != nil || lone {
		return "", false
	}
	return t.String(out), true
}

// Raw returns the value of a string from its content between the quotes
// as wire.UnquoteRaw would: bytes that are not valid UTF-8 pass unchanged
// and a \u escape of a lone surrogate becomes U+FFFD. It reports false
// only for a malformed escape, which Str never returns.
func (t *Strings) Raw(raw []byte, esc bool) (string, bool) {
	if !esc {
		return t.String(raw), true
	}
	out, _, err := wire.AppendUnescaped(t.scratch[:0], raw)
	t.scratch = out
	if err != nil {
		return "", false
	}
	return t.String(out), true
}

// Unescaped returns the value of a string from its content between the
// quotes, refusing invalid UTF-8 and lone surrogate escapes as Text does,
// as a view that is valid until the next call of a Strings method: for a
// caller that looks a value up before deciding to keep it.
func (t *Strings) Unescaped(raw []byte, esc bool) ([]byte, bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	if !esc {
		return raw, true
	}
	out, lone, err := wire.AppendUnescaped(t.scratch[:0], raw)
	t.scratch = out
	if err != nil || lone {
		return nil, false
	}
	return out, true
}
