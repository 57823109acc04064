package textcalls

import (
	"encoding/json"
	"fmt"
	"strings"
)

// xmlSpec is the spelling of a format that writes each call as tagged
// parameters: <function=NAME><parameter=KEY>VALUE</parameter></function>
// (Qwen3-Coder, Seed-OSS) and its kin (MiniMax, DeepSeek DSML).
type xmlSpec struct {
	what       string
	blockClose string
	funcOpen   string
	funcClose  string
	paramOpen  string
	paramClose string
	tagEnd     string
	// head reads a function's header (what lies between funcOpen and
	// tagEnd) into its name.
	head func(raw string) (string, bool)
	// param reads a parameter's header into its key, and whether its
	// value is written as JSON rather than raw text.
	param func(raw string) (key string, isJSON bool, ok bool)
	// newlines: one newline right after a parameter's open tag and right
	// before its close tag is syntax, not value.
	newlines bool
}

// maxHeader bounds a function's or parameter's header.
const maxHeader = 1024

type xmlState int

const (
	xBetween xmlState = iota
	xFuncHead
	xInCall
	xParamHead
	xParamStart
	xValue
	xAfterFunc
	xSkip
)

// xmlCalls reads one block of tagged calls.
type xmlCalls struct {
	spec     *xmlSpec
	st       xmlState
	lone     bool // the block was opened by a function tag, not the block tag
	acc      strings.Builder
	junk     strings.Builder
	name     string
	params   int
	key      string
	schema   json.RawMessage
	isJSON   bool
	streamed bool   // the value streams as a string
	held     string // a newline held back: it may be syntax
	made     int    // calls made in this block
}

func newXMLCalls(spec *xmlSpec, lone bool) *xmlCalls {
	x := &xmlCalls{spec: spec, lone: lone}
	if lone {
		x.st = xFuncHead
	}
	return x
}

func (x *xmlCalls) step(m *machine) bool {
	s := x.spec
	for !m.dead {
		switch x.st {
		case xBetween:
			before, w := m.cut(s.funcOpen, s.blockClose)
			x.junk.WriteString(before)
			switch w {
			case 0:
				x.st = xFuncHead
			case 1:
				x.endBlock(m)
				return true
			default:
				return false
			}
		case xFuncHead, xParamHead:
			// A header ends at its tag's end; a new tag or a line
			// break first means the tag was never closed.
			before, w := m.cut(s.tagEnd, "<", "\n")
			if m.appendCapped(&x.acc, before) {
				x.skip(m, "a tag that does not end")
				continue
			}
			if w > 0 {
				x.skip(m, "a tag that does not end")
				continue
			}
			if w < 0 {
				return false
			}
			head := x.acc.String()
			x.acc.Reset()
			if x.st == xFuncHead {
				name, ok := s.head(head)
				if !ok || name == "" {
					x.skip(m, fmt.Sprintf("a call header %q with no name", head))
					continue
				}
				x.name, x.params = name, 0
				m.start(name, "")
				x.st = xInCall
				continue
			}
			key, isJSON, ok := s.param(head)
			if !ok {
				x.skip(m, fmt.Sprintf("a parameter header %q", head))
				continue
			}
			x.openParam(m, key, isJSON)
		case xInCall:
			// The block's end is looked for too: a skip never passes it.
			before, w := m.cut(s.paramOpen, s.funcClose, s.blockClose)
			if !blank(before) || w == 2 {
				x.skipAt(m, m.strayAt(before), "text between parameters")
				if w == 2 {
					return true
				}
				continue
			}
			switch w {
			case 0:
				x.st = xParamHead
			case 1:
				x.endCall(m)
			default:
				return false
			}
		case xParamStart:
			if !m.need(1) {
				return false
			}
			m.skip("\n")
			x.st = xValue
		case xValue:
			before, w := m.cut(s.paramClose, s.paramOpen, s.funcClose)
			x.value(m, before, w >= 0)
			switch w {
			case 0:
				x.closeParam(m)
				x.st = xInCall
			case 1:
				x.closeParam(m)
				x.st = xParamHead
			case 2:
				x.closeParam(m)
				x.endCall(m)
			default:
				return false
			}
		case xAfterFunc:
			t := strings.TrimLeft(m.pend, " \t\r\n")
			switch {
			case strings.HasPrefix(t, s.blockClose):
				m.consume(len(m.pend) - len(t) + len(s.blockClose))
				return true
			case !m.final && len(m.pend) <= maxLeadingSpace && strings.HasPrefix(s.blockClose, t):
				return false
			}
			return true
		case xSkip:
			before, w := m.cut(s.blockClose)
			_ = before // the rest of a malformed block is passed over
			return w >= 0
		}
	}
	return true
}

// skip gives up on the call: the rest of the block is kept as its text.
func (x *xmlCalls) skip(m *machine, why string) { x.skipAt(m, m.off, why) }

func (x *xmlCalls) skipAt(m *machine, off int, why string) {
	x.acc.Reset()
	x.st = xSkip
	if m.cur < 0 {
		m.start("", "")
	}
	m.cur, m.id = -1, ""
	m.failAt(off, "%s: malformed call: %s", x.spec.what, why)
}

func (x *xmlCalls) openParam(m *machine, key string, isJSON bool) {
	x.key, x.isJSON = key, isJSON
	x.schema = m.opts.paramSchema(x.name, key)
	x.streamed = !isJSON && stringTyped(x.schema)
	sep := ","
	if x.params == 0 {
		sep = "{"
	}
	x.params++
	k := string(jsonString(key))
	if x.streamed {
		m.args(sep + k + `:"`)
	} else {
		m.args(sep + k + ":")
	}
	x.acc.Reset()
	x.held = ""
	x.st = xValue
	if x.spec.newlines {
		x.st = xParamStart
	}
}

// value takes a piece of a parameter's value; last says the value ends
// after it.
func (x *xmlCalls) value(m *machine, piece string, last bool) {
	piece = x.held + piece
	x.held = ""
	if x.spec.newlines {
		if last {
			piece = strings.TrimSuffix(piece, "\n")
		} else if strings.HasSuffix(piece, "\n") {
			piece, x.held = piece[:len(piece)-1], "\n"
		}
	}
	if x.streamed {
		if piece != "" {
			m.args(string(appendEscaped(nil, piece)))
		}
		return
	}
	if x.acc.Len()+len(piece) > m.opts.MaxBody {
		m.die(fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, m.opts.MaxBody))
		return
	}
	x.acc.WriteString(piece)
}

func (x *xmlCalls) closeParam(m *machine) {
	if x.streamed {
		m.args(`"`)
		return
	}
	raw := x.acc.String()
	x.acc.Reset()
	t := strings.TrimSpace(raw)
	if x.isJSON && json.Valid([]byte(t)) && t != "" {
		m.args(t)
		return
	}
	m.args(string(ParamValue(x.schema, raw)))
}

func (x *xmlCalls) endCall(m *machine) {
	if x.params > 0 {
		m.args("}")
	}
	m.end()
	x.made++
	x.st = xBetween
	if x.lone {
		x.st = xAfterFunc
	}
}

// endBlock ends the block: text in it that is no call is reported.
func (x *xmlCalls) endBlock(m *machine) {
	junk := x.junk.String()
	x.junk.Reset()
	switch {
	case x.made == 0:
		m.abandon("", junk, "%s: no call in the block", x.spec.what)
	case !blank(junk):
		m.fail("%s: text %q in the block is no call", x.spec.what, junk)
	}
}

// cut ends a block the text ended inside: an open call stays incomplete.
func (x *xmlCalls) cut(m *machine) {
	if x.st == xValue && x.held != "" {
		x.value(m, "", false)
	}
	m.cur, m.id = -1, ""
}

// qwenSpec is Qwen3-Coder's spelling.
var qwenSpec = &xmlSpec{
	what:       "<tool_call>",
	blockClose: "</tool_call>",
	funcOpen:   "<function=",
	funcClose:  "</function>",
	paramOpen:  "<parameter=",
	paramClose: "</parameter>",
	tagEnd:     ">",
	head:       func(raw string) (string, bool) { return raw, raw != "" },
	param:      func(raw string) (string, bool, bool) { return raw, false, raw != "" },
	newlines:   true,
}
