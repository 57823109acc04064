package textcalls

import (
	"strings"

	"github.com/toolconform/conform/core"
)

// The harmony tokens.
const (
	hStart     = "<|start|>"
	hChannel   = "<|channel|>"
	hMessage   = "<|message|>"
	hEnd       = "<|end|>"
	hCall      = "<|call|>"
	hReturn    = "<|return|>"
	hConstrain = "<|constrain|>"
)

// harmonyParser reads gpt-oss harmony messages. The completion begins
// after the prompt's <|start|>assistant, so the first header has no role.
// A message on the analysis channel is reasoning; one addressed to a
// recipient (functions.NAME, or a built-in tool such as browser.search)
// is a call of NAME whose content is its arguments; a message from
// another role (a tool's output echoed) and any other assistant message
// is text.
type harmonyParser struct {
	m      machine
	st     int // 0 start, 1 header, 2 content
	header strings.Builder
	role   string
	kind   core.EventKind // what the content is: text, thinking, or a call's arguments
}

const (
	hAtStart = iota
	hInHeader
	hInContent
)

func newHarmony(o Options) Parser { return &harmonyParser{m: newMachine(o)} }

func (p *harmonyParser) Feed(dst []core.Event, delta string) []core.Event {
	p.m.begin(dst, delta, false)
	p.run()
	return p.m.done()
}

func (p *harmonyParser) Close(dst []core.Event) []core.Event {
	p.m.begin(dst, "", true)
	p.run()
	m := &p.m
	switch {
	case m.dead:
	case p.st == hInHeader && blank(p.header.String()):
		m.text(p.header.String())
	case p.st == hInHeader:
		m.fail("harmony: the text ended in a message header")
		m.text(p.header.String())
	case p.st == hInContent && m.cur >= 0:
		m.cur, m.id = -1, "" // a call with no <|call|>: incomplete
	}
	return m.done()
}

func (p *harmonyParser) run() {
	m := &p.m
	for !m.dead && m.pend != "" {
		switch p.st {
		case hAtStart:
			// A first message that begins with content has no header
			// (harmony's non-strict reading): its content is text.
			for _, h := range []string{hChannel, hMessage, " to=", hStart} {
				if strings.HasPrefix(m.pend, h) {
					p.st, p.role = hInHeader, "assistant"
					break
				}
				if !m.final && strings.HasPrefix(h, m.pend) {
					return
				}
			}
			if p.st == hAtStart {
				p.st, p.kind = hInContent, core.EventText
			}
		case hInHeader:
			before, w := m.cut(hMessage, hEnd, hCall, hReturn, hStart)
			if m.appendCapped(&p.header, before) {
				m.fail("harmony: a message header that does not end")
				m.text(p.header.String())
				p.header.Reset()
				p.st, p.kind = hInContent, core.EventText
				continue
			}
			switch {
			case w == -1:
				return
			case w == 0:
				p.openMessage()
			case w == 4 && blank(p.header.String()):
				p.header.Reset()
				p.header.WriteString(hStart) // the next message begins
			default:
				// A header with no <|message|>: reported; its words
				// after the channel name are the message's text.
				m.fail("harmony: a message header with no <|message|>")
				_, channel, _, rest := parseHarmonyHeader(p.header.String())
				kind := core.EventText
				if channel == "analysis" {
					kind = core.EventThinking
				}
				m.emit(kind, rest)
				p.header.Reset()
				if w == 4 {
					p.header.WriteString(hStart)
				}
			}
		case hInContent:
			before, w := m.cut(hEnd, hCall, hReturn, hStart)
			switch p.kind {
			case core.EventCallDelta:
				m.args(before)
			default:
				m.emit(p.kind, before)
			}
			if w < 0 {
				return
			}
			if p.kind == core.EventCallDelta {
				m.end()
			}
			p.st = hInHeader
			p.header.Reset()
			p.role = "assistant"
			if w == 3 {
				p.header.WriteString(hStart)
			}
		}
	}
}

// openMessage reads the header and opens the message's content.
func (p *harmonyParser) openMessage() {
	role, channel, recipient, _ := parseHarmonyHeader(p.header.String())
	p.header.Reset()
	if role == "" {
		role = p.role
	}
	p.st = hInContent
	switch {
	case role != "assistant":
		p.kind = core.EventText
	case recipient != "" && recipient != "assistant" && recipient != "all" && recipient != "user":
		p.kind = core.EventCallDelta
		p.m.start(strings.TrimPrefix(recipient, "functions."), "")
	case channel == "analysis":
		p.kind = core.EventThinking
	default:
		p.kind = core.EventText
	}
}

// parseHarmonyHeader reads a header: <|start|>ROLE[ to=R]<|channel|>CH[ to=R][ TYPE | <|constrain|>TYPE].
// rest is what follows the channel name besides the recipient and type.
func parseHarmonyHeader(h string) (role, channel, recipient, rest string) {
	if strings.HasPrefix(h, hStart) {
		h = h[len(hStart):]
		end := len(h)
		for _, sep := range []string{" ", hChannel, "<|"} {
			if i := strings.Index(h, sep); i >= 0 && i < end {
				end = i
			}
		}
		role, h = h[:end], h[end:]
	}
	pre, post, hasChannel := strings.Cut(h, hChannel)
	words := strings.Fields(strings.ReplaceAll(pre, hConstrain, " "+hConstrain))
	if hasChannel {
		fields := strings.Fields(strings.ReplaceAll(post, hConstrain, " "+hConstrain))
		if len(fields) > 0 {
			channel, fields = fields[0], fields[1:]
		}
		words = append(words, fields...)
	}
	var restWords []string
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "to="):
			recipient = strings.TrimPrefix(w, "to=")
		case strings.HasPrefix(w, hConstrain), w == "json", w == "code":
		default:
			restWords = append(restWords, w)
		}
	}
	return role, channel, recipient, strings.Join(restWords, " ")
}

var gptOSSHarmony = &Format{
	Name:    "gpt-oss-harmony",
	Aliases: Aliases{VLLM: []string{"openai"}, SGLang: []string{"gpt-oss"}, LlamaCpp: []string{"openai-gpt-oss-120b", "llm-jp-4.1"}, Ollama: []string{"harmony"}},
	Grammar: "<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>",
	New:     newHarmony,
	Render: func(t Turn) (string, error) {
		var msgs []string
		if t.Thinking != "" {
			msgs = append(msgs, hChannel+"analysis"+hMessage+t.Thinking+hEnd)
		}
		if t.Text != "" {
			msgs = append(msgs, hChannel+"final"+hMessage+t.Text+hEnd)
		}
		for _, c := range t.Calls {
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			msgs = append(msgs, hChannel+"commentary to=functions."+c.Name+" "+hConstrain+"json"+hMessage+args+hCall)
		}
		return strings.Join(msgs, hStart+"assistant"), nil
	},
}
