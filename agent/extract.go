package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
)

// ErrMalformedCall is wrapped by every MalformedCall error: text that is
// written as a tool call but cannot be read as one.
var ErrMalformedCall = errors.New("malformed tool call in text")

// MaxTextBytes is the largest response text the text strategies scan for
// calls. Longer text is an error (ErrTextTooLarge), never silently cut.
const MaxTextBytes = 1 << 20

// ErrTextTooLarge reports response text longer than MaxTextBytes; it wraps
// core.ErrTooLarge, the sentinel of every size limit.
var ErrTextTooLarge = fmt.Errorf("response text %w", core.ErrTooLarge)

// MalformedCall is call-shaped text the strategy could not read: a tag that
// is never closed, or JSON that does not parse, lacks a tool name or (in a
// tag) names a tool that was not offered. It is reported to the model and
// never executed.
type MalformedCall struct {
	// Offset is the byte offset of the call's text in the response text.
	Offset int    `json:"offset"`
	Text   string `json:"text"`
	Err    error  `json:"-"`
}

func (m MalformedCall) Error() string {
	return fmt.Sprintf("extract call at byte %d: %v", m.Offset, m.Err)
}

func (m MalformedCall) Unwrap() error { return m.Err }

// Extraction is what a strategy read from a response.
type Extraction struct {
	// Calls are the calls found, in order. Calls read from text get the
	// ids the loop assigns when they have none.
	Calls []core.Call `json:"calls,omitempty"`
	// Text is the visible text with the calls taken out (F06): what came
	// before, between and after them.
	Text string `json:"text,omitempty"`
	// Answer reports that the response is a final answer (Text).
	Answer bool `json:"answer,omitempty"`
	// Scratchpad is thinking out loud written into a structured step; the
	// loop records it and asks the model to go on.
	Scratchpad string `json:"scratchpad,omitempty"`
	// Malformed lists call-shaped text that could not be read.
	Malformed []MalformedCall `json:"malformed,omitempty"`
}

// span is one call's place in the text.
type span struct {
	start, end int
	call       *core.Call
	bad        *MalformedCall
}

// readOpts says which written calls extractText accepts.
type readOpts struct {
	// tools are the names of the offered tools. A written call must name
	// one: JSON that names anything else is not a call.
	tools []string
	// tagsOnly reads only <tool_call> and <tool_use> blocks, leaving
	// fenced and bare JSON as text (ModeNative, see doc.go).
	tagsOnly bool
}

func (o readOpts) known(name string) bool { return slices.Contains(o.tools, name) }

// toolNames returns the names of a request's tools.
func toolNames(req *core.Request) []string {
	names := make([]string, 0, len(req.Tools))
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	return names
}

// tags are the tag forms of a written call: name, opening and closing tag.
var tags = []struct{ name, open, close string }{
	{"tool_call", "<tool_call>", "</tool_call>"},
	{"tool_use", "<tool_use>", "</tool_use>"},
}

// extractText finds the calls to the offered tools written into text in
// the prompted forms: a <tool_call> or <tool_use> block, and unless
// o.tagsOnly, a fenced JSON block or a bare JSON object that starts a
// line. It returns the text around the calls, the calls and the malformed
// ones, in order of appearance.
func extractText(text string, o readOpts) (Extraction, error) {
	if len(text) > MaxTextBytes {
		return Extraction{}, fmt.Errorf("extract calls: %w: %d bytes, limit %d", ErrTextTooLarge, len(text), MaxTextBytes)
	}
	var spans []span
	i := 0
	for i < len(text) {
		switch text[i] {
		case '<':
		case '`', '{':
			if !o.tagsOnly {
				break
			}
			fallthrough
		default:
			i++
			continue
		}
		if sp, ok := tagAt(text, i, o); ok {
			spans = append(spans, sp)
			i = sp.end
			continue
		}
		if sp, ok := fenceAt(text, i, o); ok {
			if sp.call != nil || sp.bad != nil {
				spans = append(spans, sp)
			}
			i = sp.end
			continue
		}
		if text[i] == '{' && lineStart(text, i) {
			if sp, ok := bareAt(text, i, o); ok {
				if sp.call != nil || sp.bad != nil {
					spans = append(spans, sp)
				}
				i = sp.end
				continue
			}
		}
		i++
	}
	var ex Extraction
	var kept []string
	prev := 0
	for _, sp := range spans {
		kept = append(kept, text[prev:sp.start])
		prev = sp.end
		if sp.call != nil {
			ex.Calls = append(ex.Calls, *sp.call)
		} else {
			ex.Malformed = append(ex.Malformed, *sp.bad)
		}
	}
	kept = append(kept, text[prev:])
	if len(spans) == 0 {
		ex.Text = text
	} else {
		var parts []string
		for _, k := range kept {
			if k = strings.TrimSpace(k); k != "" {
				parts = append(parts, k)
			}
		}
		ex.Text = strings.Join(parts, "\n")
	}
	return ex, nil
}

// lineStart reports whether i is the first non-blank byte of its line.
func lineStart(text string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch text[j] {
		case '\n':
			return true
		case ' ', '\t', '\r':
			continue
		default:
			return false
		}
	}
	return true
}

// tagAt reads a <tool_call>…</tool_call> or <tool_use>…</tool_use> block at
// i. A tag opens a call only when a call attempt follows it (see
// attempt); otherwise it is prose that mentions the tag. An unclosed tag
// that opens a call is malformed: its call may be truncated. A closed one
// whose JSON does not parse, or names no offered tool, is malformed too:
// the tag says a call was meant.
func tagAt(text string, i int, o readOpts) (span, bool) {
	for _, tg := range tags {
		name, open, closeTag := tg.name, tg.open, tg.close
		if rest := text[i:]; len(rest) >= len("<tool_") && len(rest) < len(open) && strings.HasPrefix(open, rest) {
			return badSpan(text, i, len(text), fmt.Errorf("%w: text ends inside the tag <%s>; the call is truncated", ErrMalformedCall, name)), true
		}
		if !strings.HasPrefix(text[i:], open) {
			continue
		}
		body := i + len(open)
		j := strings.Index(text[body:], closeTag)
		if j < 0 {
			if !attempt(text[body:], o) {
				return span{}, false
			}
			return badSpan(text, i, len(text), fmt.Errorf("%w: <%s> is never closed; the call may be truncated", ErrMalformedCall, name)), true
		}
		end := body + j + len(closeTag)
		inner := strings.TrimSpace(text[body : body+j])
		if inner == "" {
			return badSpan(text, i, end, fmt.Errorf("%w: <%s> is empty", ErrMalformedCall, name)), true
		}
		if !attempt(inner, o) {
			return span{}, false
		}
		c, err := parseCallJSON(stripFence(inner), o, false)
		if err != nil {
			return badSpan(text, i, end, fmt.Errorf("%w: in <%s>: %w", ErrMalformedCall, name, err)), true
		}
		return span{start: i, end: end, call: c}, true
	}
	return span{}, false
}

// attempt reports whether the text after an opening tag is a call
// attempt: JSON (an object or a fence), an offered tool's name followed by
// "(" or "{" (a call in some other written form, get_weather(city="Oslo")),
// or nothing, where the text was cut right after the tag. Anything else is
// prose about the tag.
func attempt(s string, o readOpts) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	if s == "" || s[0] == '{' || strings.HasPrefix(s, "```") {
		return true
	}
	for _, n := range o.tools {
		if rest, ok := strings.CutPrefix(s, n); ok && n != "" {
			if rest = strings.TrimLeft(rest, " \t\r\n"); rest == "" || rest[0] == '(' || rest[0] == '{' {
				return true
			}
		}
	}
	return false
}

// stripFence removes a ``` fence around s, if any.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return s
	}
	rest := s[nl+1:]
	if k := strings.LastIndex(rest, "```"); k >= 0 {
		rest = rest[:k]
	}
	return strings.TrimSpace(rest)
}

// fenceAt reads a fenced block at i (``` at the start of a line). The span
// holds a call when the block is untagged or tagged json (in any case) and
// holds a call to an offered tool; it is malformed when it opens like such
// a call but does not parse or is never closed; it holds neither otherwise
// (the block is ordinary text and stays in the content).
func fenceAt(text string, i int, o readOpts) (span, bool) {
	if !strings.HasPrefix(text[i:], "```") || !lineStart(text, i) {
		return span{}, false
	}
	nl := strings.IndexByte(text[i:], '\n')
	if nl < 0 {
		return span{}, false
	}
	lang := strings.TrimSpace(text[i+3 : i+nl])
	jsonish := lang == "" || strings.EqualFold(lang, "json")
	body := i + nl + 1
	j := strings.Index(text[body:], "```")
	if j < 0 {
		inner := strings.TrimSpace(text[body:])
		if jsonish && callShaped(inner, o) {
			return badSpan(text, i, len(text), fmt.Errorf("%w: fenced block is never closed; the call may be truncated", ErrMalformedCall)), true
		}
		return span{start: i, end: len(text)}, true
	}
	end := body + j + 3
	if !jsonish {
		return span{start: i, end: end}, true
	}
	inner := strings.TrimSpace(text[body : body+j])
	if !callShaped(inner, o) {
		return span{start: i, end: end}, true
	}
	c, err := parseCallJSON(inner, o, true)
	switch {
	case errors.Is(err, errNotACall):
		return span{start: i, end: end}, true
	case err != nil:
		return badSpan(text, i, end, fmt.Errorf("%w: in fenced block: %w", ErrMalformedCall, err)), true
	}
	return span{start: i, end: end, call: c}, true
}

// bareAt reads a bare JSON object at i. It is a call when it parses and is
// a call to an offered tool, malformed when it opens like one but does not
// parse, and plain text otherwise; a plain object that parses is skipped
// whole.
func bareAt(text string, i int, o readOpts) (span, bool) {
	if !callShaped(text[i:], o) {
		// Checked first, so that scanning stays linear: only an object
		// that opens like a call is decoded.
		return span{}, false
	}
	d := json.NewDecoder(strings.NewReader(text[i:]))
	var raw json.RawMessage
	if err := d.Decode(&raw); err != nil {
		return badSpan(text, i, len(text), fmt.Errorf("%w: %v", ErrMalformedCall, jsonFault(text[i:], err))), true
	}
	end := i + int(d.InputOffset())
	c, err := parseCallJSON(string(raw), o, true)
	switch {
	case errors.Is(err, errNotACall):
		return span{start: i, end: end}, true
	case err != nil:
		return badSpan(text, i, end, fmt.Errorf("%w: %w", ErrMalformedCall, err)), true
	}
	return span{start: i, end: end, call: c}, true
}

func badSpan(text string, start, end int, err error) span {
	return span{start: start, end: end, bad: &MalformedCall{Offset: start, Text: text[start:end], Err: err}}
}

// callShaped reports whether s opens as a written call to an offered
// tool: a { whose first key is "tool" or "name" and whose value is a
// string naming one of o.tools. Text that ends inside that opening is
// call-shaped when it could still become one (a truncated call): it ends
// after the key, or inside a string that begins an offered tool's name.
// A JSON object that holds a "name" of anything else (a user record, a
// product) is not a call.
func callShaped(s string, o readOpts) bool {
	ws := func(s string) string { return strings.TrimLeft(s, " \t\r\n") }
	s = ws(s)
	if !strings.HasPrefix(s, "{") {
		return false
	}
	s = ws(s[1:])
	switch {
	case strings.HasPrefix(s, `"tool"`), strings.HasPrefix(s, `"name"`):
		s = ws(s[len(`"tool"`):])
	default:
		return false
	}
	if s == "" {
		return true
	}
	if s[0] != ':' {
		return false
	}
	if s = ws(s[1:]); s == "" {
		return true
	}
	if s[0] != '"' {
		return false
	}
	for k := 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			var name string
			if json.Unmarshal([]byte(s[:k+1]), &name) != nil {
				return false
			}
			return o.known(name)
		}
	}
	// The text ends inside the name.
	partial := s[1:]
	if strings.ContainsRune(partial, '\\') {
		return true
	}
	for _, n := range o.tools {
		if strings.HasPrefix(n, partial) {
			return true
		}
	}
	return false
}

// jsonFault describes a JSON error with its byte offset in s.
func jsonFault(s string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d of the call: %v", se.Offset, se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("JSON ends at byte %d before the call is complete (truncated)", len(s))
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// callJSON is the written form of a call: {"tool": name, "arguments": {…}}.
// "name" may stand for "tool", and "parameters" or "input" for
// "arguments", as prompted models often write them.
type callJSON struct {
	Tool       *string         `json:"tool"`
	Name       *string         `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
	Input      json.RawMessage `json:"input"`
	ID         string          `json:"id"`
}

// errNotACall marks JSON that parses but is not a call to an offered tool:
// it names another tool or none, or (where needArgs) has no arguments.
// Fenced and bare JSON of that kind is prose; in a tag it is malformed.
var errNotACall = errors.New("not a call to an offered tool")

// parseCallJSON reads one written call to one of o.tools. needArgs asks
// for an "arguments", "parameters" or "input" key (bare and fenced JSON,
// where an object with a "name" alone is ordinary data); in a tag a call
// without one has no arguments, {}.
func parseCallJSON(s string, o readOpts, needArgs bool) (*core.Call, error) {
	d := json.NewDecoder(strings.NewReader(s))
	var cj callJSON
	if err := d.Decode(&cj); err != nil {
		return nil, jsonFault(s, err)
	}
	if d.More() {
		return nil, fmt.Errorf("text after the call object at byte %d", d.InputOffset())
	}
	name := ""
	switch {
	case cj.Tool != nil:
		name = *cj.Tool
	case cj.Name != nil:
		name = *cj.Name
	}
	if name == "" {
		return nil, fmt.Errorf(`%w: the call has no "tool" name`, errNotACall)
	}
	if !o.known(name) {
		return nil, fmt.Errorf("%w: %q is not one of the tools offered (%s)", errNotACall, name, strings.Join(o.tools, ", "))
	}
	args := cj.Arguments
	if args == nil {
		args = cj.Parameters
	}
	if args == nil {
		args = cj.Input
	}
	if args == nil && needArgs {
		return nil, fmt.Errorf(`%w: no "arguments"`, errNotACall)
	}
	var b bytes.Buffer
	if len(args) == 0 {
		args = json.RawMessage("{}")
	} else if err := json.Compact(&b, args); err == nil {
		args = b.Bytes()
	}
	return &core.Call{ID: cj.ID, Name: name, Arguments: args}, nil
}
