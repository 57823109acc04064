package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/tools"
)

// NewTextStrategy returns the strategy of a text mode (ModeValidated or
// ModeParsed) for a model served without native tools that writes its
// calls in a known text format (package textcalls: Hermes, Qwen3-Coder,
// Mistral, …). The tools are offered in that format, the history's calls
// are written in it, and the response is read with the format's parser
// under the same guarantees as a wire adapter's stream: a call cut or
// malformed is reported and never run. A nil format is NewStrategy(m).
func NewTextStrategy(m Mode, f *textcalls.Format) (Strategy, error) {
	if f == nil {
		return NewStrategy(m)
	}
	switch m {
	case ModeValidated, ModeParsed:
		return formatted{textual: textual{validate: m == ModeValidated}, format: f}, nil
	}
	return nil, fmt.Errorf("new text strategy %q for %s: %w: a text format goes with the validated or parsed mode", m, f.Name, ErrUnknownMode)
}

// formatted is a text mode whose calls are written in a textcalls format.
type formatted struct {
	textual
	format *textcalls.Format
}

func (s formatted) Format(req *core.Request) (*core.Request, error) {
	out := cloneRequest(req)
	out.Tools, out.ToolChoice, out.ParallelToolCalls, out.ResponseFormat = nil, nil, nil, nil
	msgs, err := textHistory(req.Messages, s.writeCall)
	if err != nil {
		return nil, err
	}
	instructions, err := s.instructions(req)
	if err != nil {
		return nil, err
	}
	out.Messages = withSystem(msgs, instructions)
	return out, nil
}

// writeCall writes one call of the history in the format.
func (s formatted) writeCall(c core.Call) (string, error) {
	c.Arguments = argsOrEmpty(c.Arguments)
	text, err := s.format.Render(textcalls.Turn{Calls: []core.Call{c}})
	if err != nil {
		return "", fmt.Errorf("format call %q as %s: %w", c.Name, s.format.Name, err)
	}
	return text, nil
}

// instructions offers the tools, with an example of a call in the format.
func (s formatted) instructions(req *core.Request) (string, error) {
	if len(req.Tools) == 0 || choiceNone(req) {
		return "", nil
	}
	example, err := s.writeCall(core.Call{Name: req.Tools[0].Name, Arguments: []byte("{}")})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You can call tools. Write each call in this form (%s):\n%s\n", s.format.Name, example)
	b.WriteString("with arguments that match the tool's input schema. You may write several calls. ")
	b.WriteString("Results come back in <tool_result> blocks. When you can answer, reply with plain text and no call.\n")
	writeChoice(&b, req)
	b.WriteString("Tools:\n")
	writeTools(&b, req.Tools)
	return b.String(), nil
}

func (s formatted) Extract(req *core.Request, resp *core.Response) (Extraction, error) {
	if choiceNone(req) || len(req.Tools) == 0 {
		return Extraction{Text: resp.Text(), Answer: true}, nil
	}
	text := resp.Text()
	if len(text) > MaxTextBytes {
		return Extraction{}, fmt.Errorf("extract calls: %w: %d bytes, the most is %d", ErrTextTooLarge, len(text), MaxTextBytes)
	}
	specs := make([]textcalls.Tool, len(req.Tools))
	for i, t := range req.Tools {
		specs[i] = textcalls.Tool{Name: t.Name, Parameters: t.InputSchema}
	}
	st := &writtenIDs{s: textcalls.NewStream(s.format.New(textcalls.Options{Tools: specs}), textcalls.Deltas(text))}
	parsed, err := core.Collect(st)
	ex := Extraction{Text: parsed.Text()}
	for _, c := range parsed.Calls() {
		if !st.ids[c.ID] {
			c.ID = "" // the Buffer's id, not the model's: the loop assigns one
		}
		ex.Calls = append(ex.Calls, c)
	}
	for _, c := range parsed.Incomplete {
		ex.Malformed = append(ex.Malformed, MalformedCall{Text: c.Original, Err: fmt.Errorf("%w: %s call %q: %v", ErrMalformedCall, s.format.Name, c.Name, callFault(err))})
	}
	if len(parsed.Incomplete) == 0 && err != nil {
		// A problem that left no call behind (text that is no call in a
		// call block) is still reported.
		ex.Malformed = append(ex.Malformed, MalformedCall{Err: fmt.Errorf("%w: %s: %v", ErrMalformedCall, s.format.Name, err)})
	}
	// Native calls a provider sent anyway are kept, not dropped.
	ex.Calls = append(resp.Calls(), ex.Calls...)
	ex.Answer = len(ex.Calls) == 0 && len(ex.Malformed) == 0
	return ex, nil
}

func (s formatted) Validate(reg *tools.Registry, call core.Call) tools.Validation {
	return s.textual.Validate(reg, call)
}

// callFault is the parse error that goes with an incomplete call, or a
// plain reason when there is none.
func callFault(err error) error {
	if err == nil {
		return errors.New("incomplete")
	}
	return err
}

// writtenIDs notes the call ids the parser read from the text.
type writtenIDs struct {
	s   core.EventStream
	ids map[string]bool
}

func (w *writtenIDs) Next() (core.Event, error) {
	ev, err := w.s.Next()
	if err == nil && ev.Kind == core.EventCallStart && ev.Chunk.ID != "" {
		if w.ids == nil {
			w.ids = map[string]bool{}
		}
		w.ids[ev.Chunk.ID] = true
	}
	return ev, err
}
