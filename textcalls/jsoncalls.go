package textcalls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
)

// callKeys name the members of a JSON call object.
type callKeys struct {
	name []string // the tool's name
	args []string // its arguments
	id   string   // its id, when the format writes one
}

var nameArgs = callKeys{name: []string{"name"}, args: []string{"arguments", "parameters"}}

// jsonCalls reads JSON call objects as their bytes arrive: one object, a
// JSON list of them, or objects separated by sep. A call starts as soon as
// its name is known and its arguments, when they are an object or a list,
// stream as they arrive; a call ends at its object's closing brace. A
// string holding a JSON object or list is that value (a Granite 4 habit);
// any other string stays a JSON string.
type jsonCalls struct {
	keys callKeys
	list bool // the calls may be in a JSON list
	sep  byte // a separator between calls (';'), or 0
	// tentative: the JSON is a call only once its name and arguments
	// are seen; until then nothing is emitted, and a value that turns
	// out no call (or malformed) is left to the caller as text.
	tentative bool
	committed bool // a call was started

	buf   []byte
	base  int // the input offset of buf[0]
	pos   int // bytes of buf scanned
	stack []byte
	inStr bool
	esc   bool
	bad   bool // the body is malformed from bad on
	badAt int
	any   bool // a call object was seen

	// The call object being read, at depth len(stack) == objDepth.
	objDepth int
	objStart int
	member   memberState
	keyStart int
	key      string
	valStart int
	valKind  byte
	name     string
	named    bool
	id       string
	argStart int // -1: not seen
	argEnd   int
	argKind  byte
	started  bool
	sent     int // bytes of the arguments sent
}

type memberState int

const (
	wantKey memberState = iota
	inKey
	wantColon
	wantValue
	inValue
	afterValue
)

func newJSONCalls(keys callKeys, list bool, sep byte) *jsonCalls {
	return &jsonCalls{keys: keys, list: list, sep: sep, objDepth: -1, argStart: -1}
}

// feedValue takes bytes of s until one top-level JSON value ends and
// returns how many it took; done says the value ended (or the JSON is
// malformed: see bad).
func (j *jsonCalls) feedValue(m *machine, s string) (used int, done bool) {
	if len(j.buf)+len(s) > m.opts.MaxBody {
		s = s[:max(0, m.opts.MaxBody-len(j.buf)+1)]
	}
	start := len(j.buf)
	j.base = m.off - start // s is the input from m.off on
	j.buf = append(j.buf, s...)
	for j.pos < len(j.buf) && !j.bad && !m.dead {
		j.byte(m, j.buf[j.pos])
		j.pos++
		if len(j.stack) == 0 && j.objDepth < 0 && !j.inStr && j.any {
			break
		}
	}
	j.stream(m)
	if len(j.buf) > m.opts.MaxBody && !j.bad {
		m.die(fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, m.opts.MaxBody))
	}
	used = j.pos - start
	j.buf = j.buf[:j.pos]
	return used, j.bad || len(j.stack) == 0 && j.objDepth < 0 && !j.inStr && j.any
}

// feed takes the next bytes of the body.
func (j *jsonCalls) feed(m *machine, s string) {
	if m.dead || s == "" {
		return
	}
	if len(j.buf)+len(s) > m.opts.MaxBody {
		m.die(fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, m.opts.MaxBody))
		return
	}
	// s is the text the last cut returned, which ends at m.cutEnd.
	j.base = m.cutEnd - len(s) - len(j.buf)
	j.buf = append(j.buf, s...)
	for j.pos < len(j.buf) && !j.bad && !m.dead {
		j.byte(m, j.buf[j.pos])
		j.pos++
	}
	j.stream(m)
}

// stream sends the arguments known so far of a call whose name is known;
// it runs once a delta, after its bytes are scanned.
func (j *jsonCalls) stream(m *machine) {
	if j.objDepth < 0 || !j.named || j.name == "" || j.argStart < 0 || (j.argKind != '{' && j.argKind != '[') {
		return
	}
	if !j.started {
		m.start(j.name, j.id)
		j.started, j.sent, j.committed = true, j.argStart, true
	}
	end := j.pos
	if j.argEnd >= 0 {
		end = j.argEnd
	}
	if end > j.sent {
		m.args(string(j.buf[j.sent:end]))
		j.sent = end
	}
}

func (j *jsonCalls) malformed(at int) {
	j.bad, j.badAt = true, at
}

// byte scans one byte of the body.
func (j *jsonCalls) byte(m *machine, c byte) {
	i := j.pos
	if j.inStr {
		switch {
		case j.esc:
			j.esc = false
		case c == '\\':
			j.esc = true
		case c == '"':
			j.inStr = false
			if len(j.stack) == j.objDepth {
				j.closeScalar(i + 1)
			}
		}
		return
	}
	depth := len(j.stack)
	if depth == j.objDepth && j.member != inValue {
		j.memberByte(m, c, i)
		return
	}
	if j.objDepth >= 0 && depth > j.objDepth || j.member == inValue && depth == j.objDepth {
		j.valueByte(m, c, i)
		return
	}
	// Outside call objects: the list, separators, white space.
	switch {
	case isSpace(c):
	case c == '{':
		j.push(m, c)
		j.openCall(i)
	case c == '[' && j.list && depth == 0:
		j.push(m, c)
	case c == ',' && j.list && depth == 1:
	case c == ']' && depth == 1 && j.stack[0] == '[':
		j.stack = j.stack[:0]
	case c == j.sep && j.sep != 0 && depth == 0:
	default:
		j.malformed(i)
	}
}

func (j *jsonCalls) push(m *machine, c byte) {
	if len(j.stack) >= core.MaxDepth {
		m.die(core.ErrTooDeep)
		return
	}
	j.stack = append(j.stack, c)
}

func (j *jsonCalls) openCall(i int) {
	j.any = true
	j.objDepth, j.objStart, j.member = len(j.stack), i, wantKey
	j.name, j.named, j.id = "", false, ""
	j.argStart, j.argEnd, j.started = -1, -1, false
}

// memberByte scans a byte between the members of the call object.
func (j *jsonCalls) memberByte(m *machine, c byte, i int) {
	switch {
	case isSpace(c):
	case j.member == wantKey && c == '"':
		j.member, j.keyStart, j.inStr = inKey, i, true
	case (j.member == wantKey || j.member == afterValue) && c == '}':
		j.stack = j.stack[:len(j.stack)-1]
		j.closeCall(m, i+1)
	case j.member == afterValue && c == ',':
		j.member = wantKey
	case j.member == wantColon && c == ':':
		j.member = wantValue
	case j.member == wantValue:
		j.member, j.valStart, j.valKind = inValue, i, c
		switch c {
		case '{', '[':
			j.push(m, c)
		case '"':
			j.inStr = true
		}
		j.noteValue()
	default:
		j.malformed(i)
	}
}

// closeScalar ends a string at the object's depth: a key or a value.
func (j *jsonCalls) closeScalar(end int) {
	if j.member == inKey {
		if err := json.Unmarshal(j.buf[j.keyStart:end], &j.key); err != nil {
			j.malformed(j.keyStart)
			return
		}
		j.member = wantColon
		return
	}
	j.endValue(end)
}

// valueByte scans a byte inside a member's value.
func (j *jsonCalls) valueByte(m *machine, c byte, i int) {
	depth := len(j.stack)
	if depth == j.objDepth {
		// A number, true, false or null, which a delimiter ends.
		if isSpace(c) || c == ',' || c == '}' {
			j.endValue(i)
			j.memberByte(m, c, i)
		}
		return
	}
	switch c {
	case '"':
		j.inStr = true
	case '{', '[':
		j.push(m, c)
	case '}', ']':
		open := j.stack[depth-1]
		if open == '{' && c != '}' || open == '[' && c != ']' {
			j.malformed(i)
			return
		}
		j.stack = j.stack[:depth-1]
		if depth-1 == j.objDepth {
			j.endValue(i + 1)
		}
	}
}

// noteValue records where the arguments begin.
func (j *jsonCalls) noteValue() {
	if containsKey(j.keys.args, j.key) && j.argStart < 0 {
		j.argStart, j.argKind = j.valStart, j.valKind
	}
}

// endValue ends the member's value at end.
func (j *jsonCalls) endValue(end int) {
	j.member = afterValue
	raw := j.buf[j.valStart:end]
	switch {
	case containsKey(j.keys.name, j.key) && !j.named:
		if err := json.Unmarshal(raw, &j.name); err != nil {
			j.malformed(j.valStart)
			return
		}
		j.named = true
	case j.keys.id != "" && j.key == j.keys.id:
		if err := json.Unmarshal(raw, &j.id); err != nil {
			j.id = string(raw)
		}
	case j.argStart == j.valStart:
		j.argEnd = end
	}
}

// closeCall ends the call object at end.
func (j *jsonCalls) closeCall(m *machine, end int) {
	j.objDepth = -1
	if j.tentative && !j.committed && (!j.named || j.argStart < 0) {
		j.malformed(j.objStart) // no call: the caller keeps it as text
		return
	}
	if !j.named || j.name == "" {
		j.abandonCall(m, end, "call %d has no name", m.calls)
		return
	}
	if !j.started {
		m.start(j.name, j.id)
		j.started, j.committed = true, true
		if j.argStart >= 0 {
			m.args(j.argText())
		}
	} else if j.argEnd > j.sent {
		m.args(string(j.buf[j.sent:j.argEnd]))
	}
	m.end()
	j.started = false
}

// argText is the arguments of a call that did not stream them.
func (j *jsonCalls) argText() string {
	raw := j.buf[j.argStart:j.argEnd]
	if j.argKind != '"' {
		return string(raw)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t := strings.TrimSpace(s)
		if t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
			return t
		}
	}
	return string(raw)
}

func (j *jsonCalls) abandonCall(m *machine, end int, format string, args ...any) {
	name := ""
	if j.named {
		name = j.name
	}
	raw := ""
	if !j.started {
		raw = string(j.buf[j.objStart:end])
	}
	j.started = false
	m.abandonAt(j.base+end, name, raw, format, args...)
}

// finish ends the body: what is not a whole call is malformed.
func (j *jsonCalls) finish(m *machine, what string) {
	if m.dead {
		return
	}
	rest := bytes.TrimSpace(j.buf[min(j.pos, len(j.buf)):])
	switch {
	case j.bad && j.objDepth >= 0:
		j.abandonCall(m, j.badAt, "%s: malformed JSON", what)
	case j.bad:
		m.abandonAt(j.base+j.badAt, "", string(bytes.TrimSpace(j.buf[j.badAt:])), "%s: not a JSON call", what)
	case j.objDepth >= 0 || j.inStr:
		j.abandonCall(m, len(j.buf), "%s: the call's JSON is not closed", what)
	case len(j.stack) > 0:
		m.failAt(j.base+len(j.buf), "%s: the list of calls is not closed", what)
	case !j.any && len(rest) == 0:
		m.abandonAt(j.base+len(j.buf), "", string(j.buf), "%s: no JSON call in the block", what)
	}
}

// cut ends a body the text ended inside: an open call stays incomplete.
func (j *jsonCalls) cut(m *machine) {
	if m.dead {
		return
	}
	if j.objDepth >= 0 && !j.started {
		name := ""
		if j.named {
			name = j.name
		}
		m.start(name, j.id)
		m.args(string(j.buf[j.objStart:]))
	}
	m.cur = -1
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
