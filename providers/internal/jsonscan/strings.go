package jsonscan

import (
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/providers/internal/jsonstr"
)

// The string arena: small strings are copied into shared append-only
// blocks instead of allocated one by one.
const (
	// ArenaBlock is the size of one arena block.
	ArenaBlock = 8 << 10
	// ArenaMax is the longest string kept in the arena; longer strings get
	// an allocation of their own.
	ArenaMax = 1 << 10
	// arenaFirst is the size of the first block.
	arenaFirst = 256
)

// Arena holds the bytes of small strings: an append-only block that
// String copies them into, so that a stream of small values costs an
// allocation per block rather than one per string; blocks grow from
// arenaFirst bytes to ArenaBlock. The zero value is
// ready to use.
type Arena []byte

// String returns b as a string. Strings of up to ArenaMax bytes are
// appended to the current arena block and returned as a view of it; a
// block is never written again where a string points, so the strings are
// immutable as Go requires, and a block is freed when no string points
// into it.
func (a *Arena) String(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > ArenaMax:
		return string(b)
	}
	if cap(*a)-len(*a) < len(b) {
		// Blocks start small and double up to ArenaBlock, so that a short
		// stream does not pay for a block it does not fill.
		*a = make([]byte, 0, min(ArenaBlock, max(2*cap(*a), 4*len(b), arenaFirst)))
	}
	start := len(*a)
	*a = append(*a, b...)
	return unsafe.String(&(*a)[start], len(b))
}

// Unescape returns the value of a string from its content between the
// quotes, as Str returned it, exactly as encoding/json would decode it:
// the content itself when it holds no escapes, else the value unescaped
// into *scratch, which it reuses, valid until the next use of *scratch.
// It reports false for invalid UTF-8 and for \u escapes of lone
// surrogates, which encoding/json replaces with U+FFFD and a general path
// must handle.
func Unescape(scratch *[]byte, raw []byte, esc bool) ([]byte, bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	if !esc {
		return raw, true
	}
	out, lone, err := jsonstr.AppendUnescaped(reserve(scratch, len(raw)), raw)
	*scratch = out
	if err != nil || lone {
		return nil, false
	}
	return out, true
}

// reserve returns *scratch emptied, with room for the value of a string
// of n bytes of content (never longer than its content), growing it to at
// least minScratch bytes at once rather than through every small size.
func reserve(scratch *[]byte, n int) []byte {
	if cap(*scratch) < n {
		*scratch = make([]byte, 0, max(n, 2*cap(*scratch), minScratch))
	}
	return (*scratch)[:0]
}

// minScratch is the least capacity reserve gives an unescape buffer.
const minScratch = 256

// UnescapeRaw is Unescape as jsonstr.UnquoteRaw decodes: bytes that are not
// valid UTF-8 pass unchanged and a \u escape of a lone surrogate becomes
// U+FFFD. It reports false only for a malformed escape, which Str never
// returns.
func UnescapeRaw(scratch *[]byte, raw []byte, esc bool) ([]byte, bool) {
	if !esc {
		return raw, true
	}
	out, _, err := jsonstr.AppendUnescaped(reserve(scratch, len(raw)), raw)
	*scratch = out
	if err != nil {
		return nil, false
	}
	return out, true
}

// Strings turns the string contents a Scanner returns into Go strings,
// with an Arena for small strings and one reused unescape buffer. The zero
// value is ready to use; a fast path keeps one for its whole stream.
type Strings struct {
	arena   Arena
	scratch []byte
}

// String returns b as a string, from the arena when it is small (see
// Arena.String).
func (t *Strings) String(b []byte) string { return t.arena.String(b) }

// Text returns the value of a string from its content between the quotes
// as a string, refusing what Unescape refuses.
func (t *Strings) Text(raw []byte, esc bool) (string, bool) {
	v, ok := Unescape(&t.scratch, raw, esc)
	if !ok {
		return "", false
	}
	return t.arena.String(v), true
}

// Raw returns the value of a string from its content between the quotes
// as a string, decoded as UnescapeRaw decodes it.
func (t *Strings) Raw(raw []byte, esc bool) (string, bool) {
	v, ok := UnescapeRaw(&t.scratch, raw, esc)
	if !ok {
		return "", false
	}
	return t.arena.String(v), true
}

// Unescaped is Unescape into the reused buffer of t: a view valid until
// the next call of a Strings method, for a caller that looks a value up
// before deciding to keep it.
func (t *Strings) Unescaped(raw []byte, esc bool) ([]byte, bool) {
	return Unescape(&t.scratch, raw, esc)
}

// Compact is the package's Compact into the reused buffer of t: the
// compacted value, valid until the next call of a Strings method.
func (t *Strings) Compact(src []byte) []byte { return Compact(&t.scratch, src) }
