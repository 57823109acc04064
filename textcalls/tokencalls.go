package textcalls

import (
	"fmt"
	"strings"
)

// tokenSpec is the spelling of a format that writes calls between special
// tokens, each call a header, a separator and raw JSON arguments
// (DeepSeek V3 and V3.1, Kimi K2).
type tokenSpec struct {
	what      string
	blockEnd  string
	callBegin string
	sep       string
	callEnd   string
	// head reads the header between callBegin and sep into the call's
	// name and id; with nameAfterSep the header is only the call's type
	// and the name follows sep up to a line break, then a ```json fence
	// (DeepSeek V3).
	head         func(raw string) (name, id string, ok bool)
	nameAfterSep bool
}

type tokenState int

const (
	tBetween tokenState = iota
	tHead
	tName
	tFence
	tArgs
	tAfterFence
	tSkip
)

// tokenCalls reads one block of calls written between special tokens.
type tokenCalls struct {
	spec *tokenSpec
	st   tokenState
	acc  strings.Builder
	id   string
	made int
	junk bool
}

func (t *tokenCalls) step(m *machine) bool {
	s := t.spec
	for !m.dead {
		switch t.st {
		case tBetween:
			before, w := m.cut(s.callBegin, s.blockEnd)
			if !blank(before) && !t.junk {
				t.junk = true
				m.failAt(m.strayAt(before), "%s: text in the block is no call", s.what)
			}
			switch w {
			case 0:
				t.st = tHead
			case 1:
				if t.made == 0 {
					m.abandon("", "", "%s: no call in the block", s.what)
				}
				return true
			default:
				return false
			}
		case tHead, tName:
			end := s.sep
			if t.st == tName {
				end = "\n"
			}
			before, w := m.cut(end, s.callEnd, s.blockEnd)
			if m.appendCapped(&t.acc, before) {
				t.skip(m, "a header that does not end")
				continue
			}
			if w < 0 {
				return false
			}
			if w > 0 {
				t.skip(m, "a call with no arguments separator")
				continue
			}
			head := strings.TrimSpace(t.acc.String())
			t.acc.Reset()
			if t.st == tHead && s.nameAfterSep {
				t.st = tName
				continue
			}
			name, id := head, ""
			ok := name != ""
			if t.st == tHead {
				name, id, ok = s.head(head)
			}
			if !ok {
				t.skip(m, fmt.Sprintf("a call header %q with no name", head))
				continue
			}
			m.start(name, id)
			t.st = tArgs
			if s.nameAfterSep {
				t.st = tFence
			}
		case tFence:
			// ```json and a line break open the arguments.
			const fence = "```json"
			if !m.final && len(m.pend) < len(fence)+1 && strings.HasPrefix(fence+"\n", m.pend) {
				return false
			}
			if !m.skip(fence + "\n") {
				m.skip(fence)
			}
			t.st = tArgs
		case tArgs:
			markers := []string{s.callEnd}
			if s.nameAfterSep {
				markers = append(markers, "\n```")
			}
			before, w := m.cut(markers...)
			m.args(before)
			switch w {
			case 0:
				t.endCall(m)
			case 1:
				t.st = tAfterFence
			default:
				return false
			}
		case tAfterFence:
			before, w := m.cut(s.callEnd, s.blockEnd)
			if !blank(before) || w == 1 {
				t.skipAt(m, m.strayAt(before), "text after the arguments' fence")
				if w >= 0 {
					t.st = tBetween
				}
				if w == 1 {
					return true
				}
				continue
			}
			if w < 0 {
				return false
			}
			t.endCall(m)
		case tSkip:
			_, w := m.cut(s.callEnd, s.blockEnd)
			switch w {
			case 0:
				t.st = tBetween
			case 1:
				return true
			default:
				return false
			}
		}
	}
	return true
}

func (t *tokenCalls) endCall(m *machine) {
	m.end()
	t.made++
	t.st = tBetween
}

func (t *tokenCalls) skip(m *machine, why string) { t.skipAt(m, m.off, why) }

func (t *tokenCalls) skipAt(m *machine, off int, why string) {
	t.acc.Reset()
	if m.cur < 0 {
		m.start("", "")
	}
	m.cur, m.id = -1, ""
	m.failAt(off, "%s: malformed call: %s", t.spec.what, why)
	t.made++
	t.st = tSkip
}

func (t *tokenCalls) cut(m *machine) {
	if (t.st == tHead || t.st == tName) && m.cur < 0 {
		m.abandon("", t.acc.String(), "%s: the text ended in a call's header", t.spec.what)
	}
	m.cur, m.id = -1, ""
}

// The DeepSeek tokens: fullwidth bars (U+FF5C) and U+2581 for spaces.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
)

var deepseekV3Spec = &tokenSpec{
	what: "deepseek-v3", blockEnd: dsCallsEnd, callBegin: dsCallBegin, sep: dsSep, callEnd: dsCallEnd,
	head:         func(raw string) (string, string, bool) { return "", "", true },
	nameAfterSep: true,
}

var deepseekV31Spec = &tokenSpec{
	what: "deepseek-v31", blockEnd: dsCallsEnd, callBegin: dsCallBegin, sep: dsSep, callEnd: dsCallEnd,
	head: func(raw string) (string, string, bool) { return raw, "", raw != "" },
}

// dsOutputs are the DeepSeek tokens around tool results that a model may
// echo; they are syntax, and what they enclose is text.
var dsOutputs = []string{"<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"}

func newTokenFormat(think *reasoning, open string, spec *tokenSpec, drop ...string) func(Options) Parser {
	return func(o Options) Parser {
		return newRegionParser(&grammar{
			think: think,
			open:  []string{open},
			body:  func(*machine, int) body { return &tokenCalls{spec: spec} },
			drop:  drop,
		}, o)
	}
}

var deepseekV3 = &Format{
	Name:    "deepseek-v3",
	Aliases: Aliases{VLLM: []string{"deepseek_v3"}, SGLang: []string{"deepseekv3"}, LlamaCpp: []string{"DeepSeek-R1-Distill-Qwen", "llama-cpp-deepseek-r1"}, Ollama: []string{"cogito", "tools (deepseek template)"}},
	Grammar: dsCallsBegin + dsCallBegin + "function" + dsSep + "NAME\\n```json\\n{…}\\n```" + dsCallEnd + "…" + dsCallsEnd,
	New:     newTokenFormat(think, dsCallsBegin, deepseekV3Spec, dsOutputs...),
	Render: func(t Turn) (string, error) {
		return renderTokens(t, dsCallsBegin, dsCallsEnd, func(b *strings.Builder, name, id, args string) {
			b.WriteString(dsCallBegin + "function" + dsSep + name + "\n```json\n" + args + "\n```" + dsCallEnd)
		})
	},
}

var deepseekV31 = &Format{
	Name:    "deepseek-v31",
	Aliases: Aliases{VLLM: []string{"deepseek_v31"}, SGLang: []string{"deepseekv31"}, LlamaCpp: []string{"DeepSeek-V3.1"}, Ollama: []string{"deepseek3"}},
	Grammar: dsCallsBegin + dsCallBegin + "NAME" + dsSep + "{json}" + dsCallEnd + "…" + dsCallsEnd + "; reasoning …</think>",
	New:     newTokenFormat(think, dsCallsBegin, deepseekV31Spec, dsOutputs...),
	Render: func(t Turn) (string, error) {
		return renderTokens(t, dsCallsBegin, dsCallsEnd, func(b *strings.Builder, name, id, args string) {
			b.WriteString(dsCallBegin + name + dsSep + args + dsCallEnd)
		})
	},
}

// Kimi K2's tokens.
const (
	kimiBegin     = "<|tool_calls_section_begin|>"
	kimiEnd       = "<|tool_calls_section_end|>"
	kimiCallBegin = "<|tool_call_begin|>"
	kimiArgs      = "<|tool_call_argument_begin|>"
	kimiCallEnd   = "<|tool_call_end|>"
)

// kimiHead reads a Kimi call id, functions.NAME:IDX, into the call's
// name; the id is the call's id. An id without a name (a bare index) is
// a call with no name.
func kimiHead(raw string) (string, string, bool) {
	colon := strings.LastIndexByte(raw, ':')
	if colon < 0 {
		return "", raw, false
	}
	name := raw[:colon]
	if dot := strings.IndexByte(name, '.'); dot >= 0 {
		name = name[dot+1:]
	}
	return name, raw, name != ""
}

var kimiK2 = &Format{
	Name:    "kimi-k2",
	Aliases: Aliases{VLLM: []string{"kimi_k2"}, SGLang: []string{"kimi_k2"}, LlamaCpp: []string{"Kimi-K2", "Kimi-K2-Instruct", "Kimi-K2-Thinking"}},
	Grammar: kimiBegin + kimiCallBegin + "functions.NAME:IDX" + kimiArgs + "{json}" + kimiCallEnd + "…" + kimiEnd,
	New: newTokenFormat(think, kimiBegin, &tokenSpec{
		what: "kimi-k2", blockEnd: kimiEnd, callBegin: kimiCallBegin, sep: kimiArgs, callEnd: kimiCallEnd, head: kimiHead,
	}),
	Render: func(t Turn) (string, error) {
		i := 0
		return renderTokens(t, kimiBegin, kimiEnd, func(b *strings.Builder, name, id, args string) {
			if id == "" || !strings.Contains(id, ":") {
				id = fmt.Sprintf("functions.%s:%d", name, i)
			}
			i++
			b.WriteString(kimiCallBegin + id + kimiArgs + args + kimiCallEnd)
		})
	},
}

// renderTokens writes reasoning, text and a block of calls, each written
// by call.
func renderTokens(t Turn, begin, end string, call func(b *strings.Builder, name, id, args string)) (string, error) {
	var b strings.Builder
	renderThink(&b, think, t.Thinking)
	b.WriteString(t.Text)
	if len(t.Calls) == 0 {
		return b.String(), nil
	}
	b.WriteString(begin)
	for _, c := range t.Calls {
		args := string(c.Arguments)
		if args == "" {
			args = "{}"
		}
		call(&b, c.Name, c.ID, args)
	}
	b.WriteString(end)
	return b.String(), nil
}
