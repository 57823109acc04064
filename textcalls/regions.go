package textcalls

import (
	"strings"

	"github.com/toolconform/conform/core"
)

// reasoning names a format's reasoning region.
type reasoning struct {
	open, close string
	// endsAtCall says a call marker inside the region ends it (Qwen3: a
	// model that forgets </think> goes straight to its call).
	endsAtCall bool
	// lead is text right after open that is syntax (Gemma's channel
	// name "thought\n").
	lead string
	// anywhere says the region may open anywhere in the text, not only
	// at its start (Mistral's [THINK]).
	anywhere bool
	// endsAt are more markers that end the region and are text
	// themselves (a call marker in a format that reads no calls).
	endsAt []string
}

// maxLeadingSpace bounds the white space a region the prompt opened may
// begin with before the model opens it again.
const maxLeadingSpace = 64

// grammar is a format as the region parser reads it: an optional
// reasoning region and the markers that open a block of calls, each with
// the handler that reads the block's body.
type grammar struct {
	think *reasoning
	open  []string
	// body returns the handler of a block opened by open[which].
	body func(m *machine, which int) body
	// drop are special tokens of the format that are syntax wherever
	// they stand in the text, not text (DeepSeek's tool-output tokens).
	drop []string
	// startWith are prefixes that, at the start of the text (after white
	// space), open a block of startBody without a marker; they are part
	// of the block (a bare JSON call).
	startWith []string
	startBody func(m *machine) body
}

// body reads one block of calls from the machine's input.
type body interface {
	// step reads what it can; done says the block ended and the text
	// goes on after it.
	step(m *machine) (done bool)
	// cut is called when the text ends inside the block.
	cut(m *machine)
}

// region is where the region parser is.
type region int

const (
	atStart region = iota // nothing but white space seen: <think> may open
	inText
	inThinking
	inBlock
)

// regionParser is a Parser over a grammar.
type regionParser struct {
	m     machine
	g     *grammar
	where region
	b     body
	// fresh says the region the prompt opened has seen nothing yet.
	fresh bool
	// lead says a region just opened and its lead may still come.
	lead bool
}

func newRegionParser(g *grammar, opts Options) *regionParser {
	p := &regionParser{m: newMachine(opts), g: g, where: atStart}
	switch {
	case g.think != nil && opts.ThinkingOpen && !opts.NoThinking:
		p.where, p.fresh = inThinking, true
	case (g.think == nil || opts.NoThinking) && g.startWith == nil:
		p.where = inText
	}
	return p
}

func (p *regionParser) Feed(dst []core.Event, delta string) []core.Event {
	p.m.begin(dst, delta, false)
	p.run()
	return p.m.done()
}

func (p *regionParser) Close(dst []core.Event) []core.Event {
	p.m.begin(dst, "", true)
	p.run()
	if p.where == inBlock && !p.m.dead {
		p.b.cut(&p.m)
	}
	return p.m.done()
}

func (p *regionParser) run() {
	m := &p.m
	for !m.dead && (m.pend != "" || p.where == inBlock && m.final) {
		switch p.where {
		case atStart:
			// Only white space so far: <think> may still open the
			// region. Anything else is text, read from here on as
			// text.
			t := strings.TrimLeft(m.pend, " \t\r\n")
			m.text(m.pend[:len(m.pend)-len(t)])
			m.consume(len(m.pend) - len(t))
			thinks := p.g.think != nil && !m.opts.NoThinking
			switch {
			case t == "":
				return
			case thinks && strings.HasPrefix(t, p.g.think.open):
				m.consume(len(p.g.think.open))
				p.where, p.lead = inThinking, true
			case thinks && !m.final && strings.HasPrefix(p.g.think.open, t):
				return
			case hasAnyPrefix(t, p.g.startWith):
				p.where, p.b = inBlock, p.g.startBody(m)
			default:
				p.where = inText
			}
		case inThinking:
			// A prompt that opened the region may still see the model
			// open it again at the very start, after white space:
			// that marker and the space before it are syntax.
			if p.fresh {
				t := strings.TrimLeft(m.pend, " \t\r\n")
				if !m.final && len(m.pend) <= maxLeadingSpace && strings.HasPrefix(p.g.think.open, t) {
					return
				}
				if strings.HasPrefix(t, p.g.think.open) {
					m.consume(len(m.pend) - len(t) + len(p.g.think.open))
				}
				p.fresh = false
			}
			if p.lead && p.g.think.lead != "" {
				l := p.g.think.lead
				if !m.final && len(m.pend) < len(l) && strings.HasPrefix(l, m.pend) {
					return
				}
				if !m.skip(l) {
					m.skip(strings.TrimSpace(l))
				}
			}
			p.lead = false
			markers := append([]string{p.g.think.close}, p.g.think.endsAt...)
			if p.g.think.endsAtCall {
				markers = append(markers, p.g.open...)
			}
			before, w := m.cut(markers...)
			m.thinking(before)
			switch {
			case w == 0:
				p.where = inText
			case w > 0 && w <= len(p.g.think.endsAt):
				m.text(p.g.think.endsAt[w-1])
				p.where = inText
			case w > 0:
				p.openBlock(w - 1 - len(p.g.think.endsAt))
			default:
				return
			}
		case inText:
			markers := append(p.g.open[:len(p.g.open):len(p.g.open)], p.g.drop...)
			thinks := p.g.think != nil && p.g.think.anywhere && !m.opts.NoThinking
			if thinks {
				markers = append(markers, p.g.think.open)
			}
			before, w := m.cut(markers...)
			m.text(before)
			switch {
			case w < 0:
				return
			case w < len(p.g.open):
				p.openBlock(w)
			case thinks && w == len(markers)-1:
				p.where, p.lead = inThinking, true
			}
		case inBlock:
			if !p.b.step(m) {
				return
			}
			p.where, p.b = inText, nil
		}
	}
}

func (p *regionParser) openBlock(which int) {
	p.where = inBlock
	p.b = p.g.body(&p.m, which)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
