// Package textcallstest loads the text-format test vectors and grades
// parsers with them.
//
// Grade compares a Result with what a vector's own source asserted (only
// that: expect.unchecked is left open). Check grades a parser under test,
// a Subject, against the reference parser and the vectors, with
// severities: MUST for what the reference and the source agree on and for
// the harness's own rules (a split changes nothing, a cut call is never
// complete), SHOULD and INFO where engines disagree. A subject is read
// from its Result, so any parser whose events core.Collect reads
// (ParserSubject), or whose output can be put in a Result, is graded the
// same way:
//
//	vectors, _ := textcallstest.Load("testdata/textcalls/ollama.jsonl")
//	for _, f := range textcallstest.Check(format, vectors, subject) {
//		fmt.Println(f)
//	}
package textcallstest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/textcalls"
)

// Vector is one test vector (testdata/textcalls/README.md describes the
// schema and where each file comes from).
type Vector struct {
	ID     string `json:"id"`
	Format string `json:"format"`
	Source struct {
		Repo    string `json:"repo"`
		Commit  string `json:"commit"`
		Path    string `json:"path"`
		Test    string `json:"test"`
		License string `json:"license"`
	} `json:"source"`
	EngineParser string           `json:"engine_parser"`
	Tools        []textcalls.Tool `json:"tools"`
	Text         string           `json:"text"`
	Chunks       []string         `json:"chunks"`
	Fragment     bool             `json:"fragment"`
	Chunking     string           `json:"chunking"`
	Expect       Expect           `json:"expect"`
	Notes        string           `json:"notes"`
}

// Expect is what a vector's source asserts.
type Expect struct {
	Content   *string           `json:"content"`
	Reasoning *string           `json:"reasoning"`
	Calls     []ExpectCall      `json:"calls"`
	Error     bool              `json:"error"`
	Unchecked []string          `json:"unchecked"`
	Emitted   *Emitted          `json:"emitted"`
	Messages  []json.RawMessage `json:"messages"`
	Events    []json.RawMessage `json:"events"`
	// ChunkEvents lists what the engine emitted right after each chunk
	// (Ollama's event tests); Grade leaves it to Emitted, the total.
	ChunkEvents [][]json.RawMessage `json:"chunk_events"`
	HasToolCall *bool               `json:"has_tool_call"`
	Partial     *bool               `json:"partial"`
}

// ExpectCall is one expected call; a nil Name or Arguments is unchecked.
type ExpectCall struct {
	Name         *string         `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
	ArgumentsRaw *string         `json:"arguments_raw"`
	ID           *string         `json:"id"`
}

// Emitted is the total an Ollama event test asserts by its last chunk.
type Emitted struct {
	Content      string       `json:"content"`
	Thinking     string       `json:"thinking"`
	RawToolCalls []string     `json:"raw_tool_calls"`
	ToolCalls    []ExpectCall `json:"tool_calls"`
}

// Load reads a file of vectors, one JSON object a line.
func Load(path string) ([]Vector, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v Vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Deltas is the text as the source streamed it, or whole.
func (v *Vector) Deltas() []string {
	if len(v.Chunks) > 0 {
		return v.Chunks
	}
	return []string{v.Text}
}

// checked reports whether the source asserts field (content, reasoning,
// calls, calls[i].name, calls[i].arguments).
func (v *Vector) checked(field string) bool {
	return !slices.Contains(v.Expect.Unchecked, field)
}

// Result is what a subject made of a vector's text.
type Result struct {
	Content   string
	Reasoning string
	Calls     []core.Call
	// Incomplete are the calls it could not complete.
	Incomplete []core.Call
	// Err is every problem it reported.
	Err error
}

// ResultOf is the Result of a collected Response.
func ResultOf(resp *core.Response, err error) Result {
	r := Result{Err: err}
	if resp == nil {
		return r
	}
	var content, reasoning strings.Builder
	for _, p := range resp.Message.Parts {
		switch p.Kind {
		case core.PartText:
			content.WriteString(p.Text)
		case core.PartThinking:
			reasoning.WriteString(p.Text)
		}
	}
	r.Content, r.Reasoning = content.String(), reasoning.String()
	r.Calls, r.Incomplete = resp.Calls(), resp.Incomplete
	return r
}

// Grade returns every way r differs from what v asserts, one line each;
// none means an exact match. Text is compared after trimming white space
// at both ends, arguments as JSON (key order and spacing aside).
func Grade(v *Vector, r Result) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	e := &v.Expect
	if e.Content != nil && v.checked("content") && strings.TrimSpace(*e.Content) != strings.TrimSpace(r.Content) {
		add("content: want %q, got %q", *e.Content, r.Content)
	}
	if e.Reasoning != nil && v.checked("reasoning") && strings.TrimSpace(*e.Reasoning) != strings.TrimSpace(r.Reasoning) {
		add("reasoning: want %q, got %q", *e.Reasoning, r.Reasoning)
	}
	if v.checked("calls") && e.Calls != nil {
		problems = append(problems, gradeCalls(v, "calls", e.Calls, r.Calls)...)
	}
	if e.Error && r.Err == nil {
		add("error: want an error, got none")
	}
	if !e.Error && r.Err != nil && len(e.Calls) > 0 && v.checked("calls") {
		add("error: want none, got %v", r.Err)
	}
	if len(e.Messages) > 0 && Ungraded(v) == "" {
		problems = append(problems, gradeMessages(v, r)...)
	}
	if e.HasToolCall != nil && *e.HasToolCall != (len(r.Calls)+len(r.Incomplete) > 0) {
		add("has_tool_call: want %v", *e.HasToolCall)
	}
	return problems
}

// GradeEmitted returns every way fed, what a subject emitted by the last
// delta without being told that the text ended, differs from the total an
// event-level test asserts (Vector.Expect.Emitted); nil when the vector
// asserts none.
func GradeEmitted(v *Vector, fed Result) []string {
	em := v.Expect.Emitted
	if em == nil {
		return nil
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	r := fed
	if strings.TrimSpace(em.Content) != strings.TrimSpace(r.Content) {
		add("emitted content: want %q, got %q", em.Content, r.Content)
	}
	if strings.TrimSpace(em.Thinking) != strings.TrimSpace(r.Reasoning) {
		add("emitted thinking: want %q, got %q", em.Thinking, r.Reasoning)
	}
	if em.ToolCalls != nil {
		problems = append(problems, gradeCalls(v, "emitted calls", em.ToolCalls, r.Calls)...)
	}
	if n := len(r.Calls) + len(r.Incomplete); em.RawToolCalls != nil && n != len(em.RawToolCalls) {
		add("emitted raw calls: want %d, got %d (%d complete)", len(em.RawToolCalls), n, len(r.Calls))
	}
	return problems
}

// EventsResult is the Result of a subject's raw events, as far as they
// go: text and thinking joined, a call complete once it ended with its
// name and valid JSON arguments, else incomplete.
func EventsResult(evs []core.Event) Result {
	var r Result
	var content, reasoning strings.Builder
	type open struct {
		call  core.Call
		args  strings.Builder
		ended bool
	}
	var calls []*open
	byIndex := map[int]*open{}
	for _, ev := range evs {
		switch ev.Kind {
		case core.EventText:
			content.WriteString(ev.Text)
		case core.EventThinking:
			reasoning.WriteString(ev.Text)
		case core.EventCallStart:
			o := &open{call: core.Call{ID: ev.Chunk.ID, Name: ev.Chunk.Name}}
			calls = append(calls, o)
			byIndex[ev.Chunk.Index] = o
		case core.EventCallDelta:
			if o := byIndex[ev.Chunk.Index]; o != nil {
				o.args.WriteString(ev.Chunk.ArgsDelta)
			}
		case core.EventCallEnd:
			if o := byIndex[ev.Chunk.Index]; o != nil {
				o.ended = true
			}
		case core.EventError:
			r.Err = errors.Join(r.Err, errors.New(ev.Error.Message))
		}
	}
	for _, o := range calls {
		args := strings.TrimSpace(o.args.String())
		if args == "" {
			args = "{}"
		}
		o.call.Arguments = json.RawMessage(args)
		if o.ended && o.call.Name != "" && json.Valid(o.call.Arguments) {
			r.Calls = append(r.Calls, o.call)
		} else {
			r.Incomplete = append(r.Incomplete, o.call)
		}
	}
	r.Content, r.Reasoning = content.String(), reasoning.String()
	return r
}

// harmonyMessage is one message of a harmony vector's expect.messages.
type harmonyMessage struct {
	Role      string  `json:"role"`
	Channel   *string `json:"channel"`
	Recipient *string `json:"recipient"`
	Content   string  `json:"content"`
}

// Ungraded says why Grade cannot judge v, or "" when it can: a vector
// whose expectations are harmony messages of roles other than the
// assistant's (a parser of whole conversations, not of a completion).
func Ungraded(v *Vector) string {
	for _, raw := range v.Expect.Messages {
		var m harmonyMessage
		if json.Unmarshal(raw, &m) != nil {
			return "unreadable expect.messages"
		}
		if m.Role != "assistant" {
			return fmt.Sprintf("a %s message: harmony messages of the whole conversation, not a completion", m.Role)
		}
	}
	return ""
}

// gradeMessages grades a completion against its harmony messages: the
// analysis channel is reasoning, a message to a recipient a call, the
// rest content.
func gradeMessages(v *Vector, r Result) []string {
	var content, reasoning strings.Builder
	var calls []ExpectCall
	for _, raw := range v.Expect.Messages {
		var m harmonyMessage
		json.Unmarshal(raw, &m)
		channel, recipient := "", ""
		if m.Channel != nil {
			channel = *m.Channel
		}
		if m.Recipient != nil {
			recipient = *m.Recipient
		}
		switch {
		case recipient != "" && recipient != "assistant":
			name := strings.TrimPrefix(recipient, "functions.")
			c := ExpectCall{Name: &name}
			if json.Valid([]byte(m.Content)) {
				c.Arguments = json.RawMessage(m.Content)
			}
			calls = append(calls, c)
		case channel == "analysis":
			reasoning.WriteString(m.Content)
		default:
			content.WriteString(m.Content)
		}
	}
	var problems []string
	if strings.TrimSpace(content.String()) != strings.TrimSpace(r.Content) {
		problems = append(problems, fmt.Sprintf("messages: content: want %q, got %q", content.String(), r.Content))
	}
	if strings.TrimSpace(reasoning.String()) != strings.TrimSpace(r.Reasoning) {
		problems = append(problems, fmt.Sprintf("messages: reasoning: want %q, got %q", reasoning.String(), r.Reasoning))
	}
	// A last message cut before its end is a message to harmony, but a
	// call cut before <|call|> is never complete.
	got := append(append([]core.Call(nil), r.Calls...), r.Incomplete...)
	return append(problems, gradeCalls(v, "messages: calls", calls, got)...)
}

func gradeCalls(v *Vector, what string, want []ExpectCall, got []core.Call) []string {
	var problems []string
	if len(want) != len(got) {
		names := make([]string, len(got))
		for i, c := range got {
			names[i] = c.Name
		}
		return []string{fmt.Sprintf("%s: want %d, got %d %q", what, len(want), len(got), names)}
	}
	for i, w := range want {
		g := got[i]
		if w.Name != nil && v.checked(fmt.Sprintf("calls[%d].name", i)) && *w.Name != g.Name {
			problems = append(problems, fmt.Sprintf("%s[%d].name: want %q, got %q", what, i, *w.Name, g.Name))
		}
		if !v.checked(fmt.Sprintf("calls[%d].arguments", i)) {
			continue
		}
		args := w.Arguments
		if w.ArgumentsRaw != nil && json.Valid([]byte(*w.ArgumentsRaw)) {
			args = json.RawMessage(*w.ArgumentsRaw)
		}
		if len(args) == 0 || string(args) == "null" {
			continue
		}
		if !jsonvalue.EqualText(args, g.Arguments) {
			problems = append(problems, fmt.Sprintf("%s[%d].arguments: want %s, got %s", what, i, args, g.Arguments))
		}
	}
	return problems
}

// Options are the parser options a vector's source used: its tools, and
// whether the prompt opened the reasoning region, read from the engine
// parser's configuration the vector records.
func (v *Vector) Options() textcalls.Options {
	// A fragment is the body of one call block, read on its own.
	return textcalls.Options{Tools: v.Tools, ThinkingOpen: thinkingOpen(v) && !v.Fragment, NoThinking: noThinking(v)}
}

// noThinking reads whether the source's parser had reasoning off.
func noThinking(v *Vector) bool {
	ep, notes := v.EngineParser, v.Notes
	return strings.Contains(ep, "no thinking") || strings.Contains(ep, "no-thinking") ||
		strings.Contains(notes, "think=false") || strings.Contains(notes, "hasThinking=false") ||
		strings.Contains(notes, `thinkValue={"Value": false`) || strings.Contains(notes, "NOT removed by the tool parser") ||
		strings.Contains(notes, "enable_thinking=False")
}

// thinkingOpen reads whether the source's parser started inside the
// reasoning region.
func thinkingOpen(v *Vector) bool {
	ep, notes := v.EngineParser, v.Notes
	switch {
	case noThinking(v):
		return false
	case strings.Contains(ep, "output starts inside <think>"), strings.Contains(ep, "qwen3-vl-thinking"),
		ep == "olmo3-think", ep == "glm-4.7", strings.HasSuffix(ep, "(reasoning)"):
		return true
	case strings.Contains(notes, "thinking on by default"), strings.Contains(notes, "prompt opened <think>"),
		v.Format == "deepseek-v31" && strings.Contains(notes, "hasThinking=true"),
		ep == "cogito" && strings.Contains(notes, "hasThinkingSupport=true"),
		strings.Contains(notes, `thinkValue={"Value": true`), strings.Contains(notes, "think=true"),
		strings.Contains(notes, "thinking enabled iff expectedThinking is non-empty") && v.Expect.Reasoning != nil && *v.Expect.Reasoning != "":
		return true
	}
	return false
}
