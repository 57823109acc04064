package textcalls

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
)

// machine is what every parser shares: the input not yet consumed, the
// marker scan that holds back only a possible marker prefix, and the
// events it makes.
type machine struct {
	opts  Options
	pend  string // input not yet consumed
	off   int    // bytes of input consumed before pend
	final bool   // the text has ended: hold nothing back
	out   []core.Event
	calls int // calls started
	cur   int // index of the open call, -1 for none
	id    string
	dead  bool // a limit was hit: the rest is ignored
	// cutEnd is the input offset where the text the last cut returned
	// ends.
	cutEnd int
	// The last delta of this Feed, kept as bytes while more of the same
	// kind (and call) may join it, so that joining costs what it adds:
	// pk is its kind ("" for none), pbuf its text, pidx and pid its call.
	pk   core.EventKind
	pbuf []byte
	pidx int
	pid  string
}

func newMachine(opts Options) machine {
	return machine{opts: opts.withDefaults(), cur: -1}
}

// begin starts a Feed or Close: delta joins the input, events go to dst.
// The Feed or Close returns done().
func (m *machine) begin(dst []core.Event, delta string, final bool) {
	m.out, m.final = dst, final
	if m.dead {
		return
	}
	if m.pend == "" {
		m.pend = delta
	} else {
		m.pend += delta
	}
}

// done ends a Feed or Close and returns its events.
func (m *machine) done() []core.Event {
	m.flush()
	return m.out
}

// consume drops the first n bytes of the input.
func (m *machine) consume(n int) {
	m.pend = m.pend[n:]
	m.off += n
}

// cut finds the earliest of markers in the input (the longest where two
// begin at one byte; a marker that may yet grow into a longer one waits
// for it). Found, it consumes the text before the marker and
// the marker, and returns the text and the marker's index. Not found, it
// consumes and returns all the text that cannot begin a marker, holding
// back the longest tail that is a proper prefix of one, and a UTF-8
// character the input cuts, unless the text has ended; which is -1.
func (m *machine) cut(markers ...string) (before string, which int) {
	// One pass over the input, stopping at the first byte that begins a
	// marker there: the cost is the bytes consumed, not the input left.
	var first [256]bool
	for _, mk := range markers {
		first[mk[0]] = true
	}
	at, which := -1, -1
	for i := 0; i < len(m.pend) && which < 0; i++ {
		if !first[m.pend[i]] {
			continue
		}
		for k, mk := range markers {
			if strings.HasPrefix(m.pend[i:], mk) && (which < 0 || len(mk) > len(markers[which])) {
				at, which = i, k
			}
		}
	}
	if which >= 0 && !m.final {
		// A longer marker that begins where this one does may still
		// come: wait for it.
		rest := m.pend[at:]
		for _, mk := range markers {
			if len(mk) > len(rest) && strings.HasPrefix(mk, rest) {
				before = m.pend[:at]
				m.consume(at)
				m.cutEnd = m.off
				return before, -1
			}
		}
	}
	if which >= 0 {
		before = m.pend[:at]
		m.cutEnd = m.off + at
		m.consume(at + len(markers[which]))
		return before, which
	}
	keep := 0
	if !m.final {
		keep = holdback(m.pend, markers)
	}
	before = m.pend[:len(m.pend)-keep]
	m.consume(len(before))
	m.cutEnd = m.off
	return before, -1
}

// holdback is how many bytes at the end of s may begin one of markers,
// or end in a cut UTF-8 character.
func holdback(s string, markers []string) int {
	keep := 0
	for _, mk := range markers {
		// The longest tail of s that begins mk starts at the first
		// place, within len(mk)-1 of the end, that holds mk's first byte
		// and from which s's rest is a prefix of mk.
		for i := max(0, len(s)-len(mk)+1); i < len(s)-keep; i++ {
			if s[i] == mk[0] && strings.HasPrefix(mk, s[i:]) {
				keep = len(s) - i
				break
			}
		}
	}
	// A character cut at the end is held back whole.
	for k := 1; k <= 3 && k <= len(s); k++ {
		c := s[len(s)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRuneInString(s[len(s)-k:]) {
				keep = max(keep, k)
			}
			break
		}
	}
	return keep
}

// appendCapped appends piece, text the last cut returned, to acc up to
// maxHeader+1 bytes and gives the rest back to the input, so that a header
// too long is cut at the same byte whatever the deltas; it reports
// whether acc is past maxHeader.
func (m *machine) appendCapped(acc *strings.Builder, piece string) bool {
	if room := maxHeader + 1 - acc.Len(); len(piece) > room {
		room = max(room, 0)
		rest := piece[room:]
		piece = piece[:room]
		m.pend = rest + m.pend
		m.off -= len(rest)
		m.cutEnd -= len(rest)
	}
	acc.WriteString(piece)
	return acc.Len() > maxHeader
}

// need reports whether at least n bytes of input are there, or the text
// has ended (then the caller works with what there is).
func (m *machine) need(n int) bool { return len(m.pend) >= n || m.final }

// skip consumes prefix when the input begins with it.
func (m *machine) skip(prefix string) bool {
	if strings.HasPrefix(m.pend, prefix) {
		m.consume(len(prefix))
		return true
	}
	return false
}

// emit appends a text or thinking delta, joined with the last delta of
// this Feed when that is of the same kind.
func (m *machine) emit(kind core.EventKind, s string) {
	if s == "" {
		return
	}
	if m.pk != kind {
		m.flush()
		m.pk = kind
	}
	m.pbuf = append(m.pbuf, s...)
}

// flush makes the delta being joined an event.
func (m *machine) flush() {
	switch m.pk {
	case "":
		return
	case core.EventCallDelta:
		m.out = append(m.out, core.Event{Kind: m.pk, Chunk: &core.Chunk{Index: m.pidx, HasIndex: true, ID: m.pid, ArgsDelta: string(m.pbuf)}})
	default:
		m.out = append(m.out, core.Event{Kind: m.pk, Text: string(m.pbuf)})
	}
	m.pk, m.pbuf = "", m.pbuf[:0]
}

func (m *machine) text(s string)     { m.emit(core.EventText, s) }
func (m *machine) thinking(s string) { m.emit(core.EventThinking, s) }

// start opens the next call.
func (m *machine) start(name, id string) {
	m.flush()
	m.cur, m.id = m.calls, id
	m.calls++
	m.out = append(m.out, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: m.cur, HasIndex: true, ID: id, Name: name}})
}

// args appends argument text to the open call.
func (m *machine) args(s string) {
	if s == "" || m.cur < 0 {
		return
	}
	if m.pk != core.EventCallDelta || m.pidx != m.cur {
		m.flush()
		m.pk, m.pidx, m.pid = core.EventCallDelta, m.cur, m.id
	}
	m.pbuf = append(m.pbuf, s...)
}

// end closes the open call.
func (m *machine) end() {
	if m.cur < 0 {
		return
	}
	m.flush()
	m.out = append(m.out, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: m.cur, HasIndex: true, ID: m.id}})
	m.cur, m.id = -1, ""
}

// abandon leaves the open call without its end (it is incomplete) and
// reports why; a call with no name yet is opened nameless with its text,
// so that the call is never lost.
func (m *machine) abandon(name, raw string, format string, args ...any) {
	m.abandonAt(m.off, name, raw, format, args...)
}

// abandonAt is abandon reporting the problem at input offset off.
func (m *machine) abandonAt(off int, name, raw string, format string, args ...any) {
	if m.cur < 0 {
		m.start(name, "")
		m.args(raw)
	}
	m.cur, m.id = -1, ""
	m.failAt(off, format, args...)
}

// fail reports a problem at the current input offset.
func (m *machine) fail(format string, args ...any) { m.failAt(m.off, format, args...) }

// failAt reports a problem at input offset off.
func (m *machine) failAt(off int, format string, args ...any) {
	m.flush()
	m.out = append(m.out, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: ErrorType, Message: fmt.Sprintf("at byte %d: ", off) + fmt.Sprintf(format, args...)}})
}

// strayAt is the input offset of the first character of before, the
// text the last cut returned, that is not white space.
func (m *machine) strayAt(before string) int {
	return m.cutEnd - len(strings.TrimLeftFunc(before, unicode.IsSpace))
}

// die reports a limit hit; the rest of the input is ignored.
func (m *machine) die(err error) {
	if m.cur >= 0 {
		m.cur, m.id = -1, ""
	}
	m.fail("%v", err)
	m.dead, m.pend = true, ""
}

// blank reports whether s is only white space.
func blank(s string) bool {
	return strings.TrimFunc(s, unicode.IsSpace) == ""
}
