package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/openaichat"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/schema"
)

// Mode is how tools are offered to a model.
type Mode string

// The modes. ModeAuto is resolved to one of the others by Capabilities.
const (
	ModeAuto       Mode = "auto"
	ModeNative     Mode = "native"
	ModeStructured Mode = "structured"
	ModeValidated  Mode = "validated"
	ModeParsed     Mode = "parsed"
)

// Modes lists the concrete modes, in the order documentation gives them.
var Modes = []Mode{ModeNative, ModeStructured, ModeValidated, ModeParsed}

// ErrUnknownMode reports a mode name that is not one of the modes.
var ErrUnknownMode = errors.New("unknown mode")

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if m == ModeAuto || slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("parse mode %q: %w; known: auto, native, structured, validated, parsed", s, ErrUnknownMode)
}

// Strategy formats a request for one mode, reads the calls or the answer
// from the response, and validates the calls.
type Strategy interface {
	// Mode is the strategy's mode.
	Mode() Mode
	// Format returns the request to send for req, a canonical request
	// whose tools are in Tools and whose history holds calls and results
	// as parts. req is not changed.
	Format(req *core.Request) (*core.Request, error)
	// Extract reads a response to a request built from req.
	Extract(req *core.Request, resp *core.Response) (Extraction, error)
	// Validate checks one extracted call.
	Validate(reg *tools.Registry, call core.Call) tools.Validation
}

// NewStrategy returns the strategy of a concrete mode. ModeAuto is an
// error: resolve it with Capabilities.Mode first.
func NewStrategy(m Mode) (Strategy, error) {
	switch m {
	case ModeNative:
		return native{}, nil
	case ModeStructured:
		return structured{}, nil
	case ModeValidated:
		return textual{validate: true}, nil
	case ModeParsed:
		return textual{}, nil
	case ModeAuto:
		return nil, fmt.Errorf("new strategy: %w: auto must be resolved from the model's capabilities", ErrUnknownMode)
	}
	return nil, fmt.Errorf("new strategy %q: %w", m, ErrUnknownMode)
}

// choiceNone reports whether req forbids calls (F07).
func choiceNone(req *core.Request) bool {
	return req.ToolChoice != nil && req.ToolChoice.Mode == core.ToolChoiceNone
}

func cloneRequest(req *core.Request) *core.Request {
	out := *req
	out.Messages = slices.Clone(req.Messages)
	out.Tools = slices.Clone(req.Tools)
	return &out
}

// native offers the tools through the provider's own tool calling.
type native struct{}

func (native) Mode() Mode { return ModeNative }

func (native) Format(req *core.Request) (*core.Request, error) {
	return cloneRequest(req), nil
}

// Extract takes the provider's calls. A response with no native calls
// whose text holds a call to an offered tool written in a <tool_call> or
// <tool_use> tag (F06) gives that call, unless the request's tool choice
// is none (F07), where the text is kept whole. Fenced and bare JSON is
// never read as a call here: the model was not asked to write calls, so
// JSON in its answer is the answer's (see doc.go).
func (native) Extract(req *core.Request, resp *core.Response) (Extraction, error) {
	if calls := resp.Calls(); len(calls) > 0 || choiceNone(req) || len(req.Tools) == 0 {
		return Extraction{Calls: calls, Text: resp.Text(), Answer: len(calls) == 0}, nil
	}
	return textExtract(resp.Text(), readOpts{tools: toolNames(req), tagsOnly: true})
}

func (native) Validate(reg *tools.Registry, call core.Call) tools.Validation {
	return reg.Validate(call)
}

// textual offers the tools in the system prompt and reads the calls from
// the text; validate says whether calls are checked against their schema
// (ModeValidated) or only parsed (ModeParsed).
type textual struct{ validate bool }

func (t textual) Mode() Mode {
	if t.validate {
		return ModeValidated
	}
	return ModeParsed
}

func (textual) Format(req *core.Request) (*core.Request, error) {
	out := cloneRequest(req)
	out.Tools, out.ToolChoice, out.ParallelToolCalls, out.ResponseFormat = nil, nil, nil, nil
	msgs, err := textHistory(req.Messages, writeTagCall)
	if err != nil {
		return nil, err
	}
	out.Messages = withSystem(msgs, textInstructions(req))
	return out, nil
}

func (textual) Extract(req *core.Request, resp *core.Response) (Extraction, error) {
	if choiceNone(req) || len(req.Tools) == 0 {
		// F07: with tool choice none, or no tools, nothing is a call, and
		// call-shaped text is the answer, kept whole.
		return Extraction{Text: resp.Text(), Answer: true}, nil
	}
	ex, err := textExtract(resp.Text(), readOpts{tools: toolNames(req)})
	if err != nil {
		return ex, err
	}
	// Native calls a provider sent anyway are kept, not dropped.
	ex.Calls = append(resp.Calls(), ex.Calls...)
	ex.Answer = len(ex.Calls) == 0 && len(ex.Malformed) == 0
	return ex, nil
}

func (t textual) Validate(reg *tools.Registry, call core.Call) tools.Validation {
	if t.validate {
		return reg.Validate(call)
	}
	return parseOnly(call)
}

// textExtract reads calls from text and says whether it is an answer.
func textExtract(text string, o readOpts) (Extraction, error) {
	ex, err := extractText(text, o)
	if err != nil {
		return ex, err
	}
	ex.Answer = len(ex.Calls) == 0 && len(ex.Malformed) == 0
	return ex, nil
}

// parseOnly checks that a call's arguments are a JSON object, without its
// schema (ModeParsed).
func parseOnly(call core.Call) tools.Validation {
	args := bytes.TrimSpace(call.Arguments)
	if len(args) == 0 || string(args) == "null" {
		return tools.Validation{Valid: true, Arguments: json.RawMessage("{}")}
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	if err := d.Decode(&v); err != nil {
		msg := fmt.Sprintf("arguments of %q are not valid JSON: %v", call.Name, jsonFault(string(args), err))
		return tools.Validation{Message: msg, Arguments: bytes.Clone(call.Arguments),
			Problems: []schema.Problem{{Message: msg}}, Err: fmt.Errorf("parse call %q: %w", call.Name, tools.ErrMalformedArguments)}
	}
	if _, ok := v.(map[string]any); !ok || d.More() {
		msg := fmt.Sprintf("arguments of %q are not one JSON object", call.Name)
		return tools.Validation{Message: msg, Arguments: bytes.Clone(call.Arguments),
			Problems: []schema.Problem{{Message: msg}}, Err: fmt.Errorf("parse call %q: %w", call.Name, tools.ErrSchemaMismatch)}
	}
	var b bytes.Buffer
	_ = json.Compact(&b, args) // args decoded above, so it is JSON
	return tools.Validation{Valid: true, Arguments: b.Bytes()}
}

// textInstructions is the system prompt that offers the tools as text.
func textInstructions(req *core.Request) string {
	if len(req.Tools) == 0 || choiceNone(req) {
		return ""
	}
	var b strings.Builder
	b.WriteString("You can call tools. To call one, write it on its own line as\n")
	b.WriteString(`<tool_call>{"tool": "TOOL_NAME", "arguments": {…}}</tool_call>` + "\n")
	b.WriteString("with arguments that match the tool's input schema. You may write several calls. ")
	b.WriteString("Results come back in <tool_result> blocks. When you can answer, reply with plain text and no call.\n")
	writeChoice(&b, req)
	b.WriteString("Tools:\n")
	writeTools(&b, req.Tools)
	return b.String()
}

func writeChoice(b *strings.Builder, req *core.Request) {
	if req.ToolChoice == nil {
		return
	}
	switch req.ToolChoice.Mode {
	case core.ToolChoiceRequired:
		b.WriteString("You must call a tool now.\n")
	case core.ToolChoiceTool:
		fmt.Fprintf(b, "You must call the tool %q now.\n", req.ToolChoice.Name)
	}
}

func writeTools(b *strings.Builder, tools []core.ToolSpec) {
	for _, t := range tools {
		fmt.Fprintf(b, "- %s: %s\n  input schema: %s\n", t.Name, t.Description, compact(t.InputSchema))
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// withSystem adds instructions to the system prompt: appended to a leading
// system message, or as a new one.
func withSystem(msgs []core.Message, instructions string) []core.Message {
	if instructions == "" {
		return msgs
	}
	if len(msgs) > 0 && msgs[0].Role == core.RoleSystem {
		first := msgs[0]
		first.Parts = append(slices.Clone(first.Parts), core.TextPart("\n\n"+instructions))
		return append([]core.Message{first}, msgs[1:]...)
	}
	return append([]core.Message{{Role: core.RoleSystem, Parts: []core.Part{core.TextPart(instructions)}}}, msgs...)
}

// writeTagCall writes a call as the text form the text modes prompt for.
func writeTagCall(c core.Call) (string, error) {
	b, err := json.Marshal(struct {
		ID        string          `json:"id,omitempty"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}{c.ID, c.Name, argsOrEmpty(c.Arguments)})
	if err != nil {
		return "", fmt.Errorf("format call %q: arguments: %w", c.Name, err)
	}
	return "<tool_call>" + string(b) + "</tool_call>", nil
}

func argsOrEmpty(a json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(a)) == 0 || !json.Valid(a) {
		return json.RawMessage("{}")
	}
	return a
}

// textHistory rewrites a history for a provider that is not told about
// tools: calls become text written by writeCall, results become user text
// in <tool_result> blocks, and consecutive user messages are merged, so
// that user and assistant turns alternate.
func textHistory(msgs []core.Message, writeCall func(core.Call) (string, error)) ([]core.Message, error) {
	var out []core.Message
	for _, m := range msgs {
		nm := core.Message{Role: m.Role}
		for _, p := range m.Parts {
			switch {
			case p.Kind == core.PartToolCall && p.Call != nil:
				s, err := writeCall(*p.Call)
				if err != nil {
					return nil, err
				}
				nm.Parts = append(nm.Parts, core.TextPart(s))
			case p.Kind == core.PartToolResult && p.Result != nil:
				nm.Parts = append(nm.Parts, core.TextPart(resultText(*p.Result)))
			default:
				nm.Parts = append(nm.Parts, p)
			}
		}
		if nm.Role == core.RoleTool {
			nm.Role = core.RoleUser
		}
		if n := len(out); n > 0 && nm.Role == core.RoleUser && out[n-1].Role == core.RoleUser {
			out[n-1].Parts = append(out[n-1].Parts, nm.Parts...)
			continue
		}
		out = append(out, nm)
	}
	return out, nil
}

// resultText writes a result as a <tool_result> block naming its call.
func resultText(r core.Result) string {
	errAttr := ""
	if r.IsError {
		errAttr = ` error="true"`
	}
	return fmt.Sprintf("<tool_result id=%q tool=%q%s>%s</tool_result>\n", r.CallID, r.Name, errAttr, r.Text())
}

// structured offers the tools as a strict response_format whose schema
// holds one branch per tool, an answer branch and a scratchpad branch.
type structured struct{}

func (structured) Mode() Mode { return ModeStructured }

// StepSchemaName is the response_format name ModeStructured sends.
const StepSchemaName = "agent_step"

func (structured) Format(req *core.Request) (*core.Request, error) {
	out := cloneRequest(req)
	schema, err := StepSchema(req.Tools, req.ToolChoice)
	if err != nil {
		return nil, err
	}
	out.Tools, out.ToolChoice, out.ParallelToolCalls = nil, nil, nil
	out.ResponseFormat = &core.ResponseFormat{Name: StepSchemaName, Schema: schema, Strict: true}
	msgs, err := textHistory(req.Messages, writeStepCall)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`Reply with one JSON step: {"step": {"tool": NAME, "arguments": {…}}} to call a tool, ` +
		`{"step": {"answer": TEXT}} to answer, or {"step": {"scratchpad": TEXT}} to think first. ` +
		"Results come back in <tool_result> blocks.\n")
	if len(req.Tools) > 0 && !choiceNone(req) {
		writeChoice(&b, req)
		b.WriteString("Tools:\n")
		writeTools(&b, req.Tools)
	}
	out.Messages = withSystem(msgs, b.String())
	return out, nil
}

func writeStepCall(c core.Call) (string, error) {
	b, err := json.Marshal(map[string]any{"step": map[string]any{"tool": c.Name, "arguments": argsOrEmpty(c.Arguments)}})
	if err != nil {
		return "", fmt.Errorf("format call %q: arguments: %w", c.Name, err)
	}
	return string(b), nil
}

// StepSchema returns the strict JSON Schema of one ModeStructured step: an
// object {"step": …} whose step is an anyOf of one branch per tool
// ({"tool": const name, "arguments": the tool's schema in strict form}), an
// answer branch ({"answer": string}) and a scratchpad branch
// ({"scratchpad": string}). A tool choice narrows the branches: none
// leaves no tool branch, required drops the answer, a named tool keeps only
// its branch. The anyOf sits under a property because OpenAI strict mode
// rejects a root that is not an object (see doc.go).
func StepSchema(tools []core.ToolSpec, choice *core.ToolChoice) (json.RawMessage, error) {
	var branches []any
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	mode := core.ToolChoiceAuto
	if choice != nil {
		mode = choice.Mode
	}
	for i, t := range tools {
		if mode == core.ToolChoiceNone || (mode == core.ToolChoiceTool && t.Name != choice.Name) {
			continue
		}
		strict, err := openaichat.StrictSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("step schema: tools[%d] %q: %w", i, t.Name, err)
		}
		branches = append(branches, obj(map[string]any{
			"tool":      map[string]any{"type": "string", "const": t.Name},
			"arguments": strict,
		}, "tool", "arguments"))
	}
	if mode == core.ToolChoiceTool && len(branches) == 0 {
		return nil, fmt.Errorf("step schema: tool choice names %q, which is not among the tools", choice.Name)
	}
	if mode != core.ToolChoiceRequired && mode != core.ToolChoiceTool {
		branches = append(branches, obj(map[string]any{"answer": map[string]any{"type": "string"}}, "answer"))
	}
	branches = append(branches, obj(map[string]any{"scratchpad": map[string]any{"type": "string"}}, "scratchpad"))
	b, err := json.Marshal(obj(map[string]any{"step": map[string]any{"anyOf": branches}}, "step"))
	if err != nil {
		return nil, fmt.Errorf("step schema: %w", err)
	}
	return b, nil
}

// carriesResponseFormat reports whether a's requests have a place for a
// response format: it encodes a request that asks for one and decodes it
// back. Bedrock Converse has none.
func carriesResponseFormat(a core.Adapter) bool {
	probe := &core.Request{Model: "probe", Messages: []core.Message{userText("probe")},
		ResponseFormat: &core.ResponseFormat{Name: StepSchemaName, Schema: json.RawMessage(`{"type":"object"}`), Strict: true}}
	b, err := a.EncodeRequest(probe)
	if err != nil {
		return true // send reports the adapter's error on the real request
	}
	back, err := a.DecodeRequest(b)
	return err != nil || back.ResponseFormat != nil
}

// stepToolRequest rewrites a ModeStructured request for a protocol with no
// response format: the step schema becomes the input schema of one tool,
// named StepSchemaName, and the tool choice forces that tool, so the model
// must write its step as that tool's input. A request without a response
// format is returned as it is.
func stepToolRequest(req *core.Request) *core.Request {
	rf := req.ResponseFormat
	if rf == nil {
		return req
	}
	out := *req
	out.ResponseFormat = nil
	out.Tools = []core.ToolSpec{{Name: rf.Name, Description: "Write your next step: a tool call, the answer or a scratchpad.", InputSchema: rf.Schema}}
	out.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: rf.Name}
	out.ParallelToolCalls = nil
	return &out
}

// stepToolResponse undoes stepToolRequest on a response: the calls of the
// step tool become the step text, their input as the model wrote it, in
// place of the response's other text, so the structured strategy reads
// the step as it reads one sent as a response format. Thinking and plan
// parts are kept. A response without a call of the step tool (a model
// that answered in text despite the forced tool) is returned as it is.
func stepToolResponse(resp *core.Response) *core.Response {
	var steps []string
	for _, c := range resp.Calls() {
		if c.Name == StepSchemaName {
			steps = append(steps, string(c.Arguments))
		}
	}
	if len(steps) == 0 {
		return resp
	}
	out := *resp
	out.Message = core.Message{Role: resp.Message.Role}
	for _, p := range resp.Message.Parts {
		switch {
		case p.Kind == core.PartThinking || p.Kind == core.PartPlan:
			out.Message.Parts = append(out.Message.Parts, p)
		case p.Kind == core.PartToolCall && p.Call != nil && p.Call.Name != StepSchemaName:
			out.Message.Parts = append(out.Message.Parts, p)
		}
	}
	out.Message.Parts = append(out.Message.Parts, core.TextPart(strings.Join(steps, "\n")))
	if out.Finish == core.FinishToolCalls && len(out.Message.Calls()) == 0 {
		out.Finish = core.FinishStop
	}
	return &out
}

// stepJSON is one structured step, bare or under "step".
type stepJSON struct {
	Step       json.RawMessage `json:"step"`
	Tool       *string         `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	Answer     *string         `json:"answer"`
	Scratchpad *string         `json:"scratchpad"`
}

// Extract reads the step from the text (a fenced block is unwrapped).
// Native calls a provider sent anyway are kept. Text that is not a step is
// malformed, reported and never executed; with tool choice none the text
// is the answer as it stands (F07).
func (structured) Extract(req *core.Request, resp *core.Response) (Extraction, error) {
	text := resp.Text()
	if calls := resp.Calls(); len(calls) > 0 {
		return Extraction{Calls: calls, Text: text}, nil
	}
	if len(text) > MaxTextBytes {
		return Extraction{}, fmt.Errorf("extract step: %w: %d bytes, limit %d", ErrTextTooLarge, len(text), MaxTextBytes)
	}
	body := stripFence(strings.TrimSpace(text))
	bad := func(err error) (Extraction, error) {
		if choiceNone(req) {
			return Extraction{Text: text, Answer: true}, nil
		}
		return Extraction{Text: text, Malformed: []MalformedCall{{Offset: strings.Index(text, body), Text: text, Err: err}}}, nil
	}
	var st stepJSON
	d := json.NewDecoder(strings.NewReader(body))
	if err := d.Decode(&st); err != nil {
		return bad(fmt.Errorf("%w: step: %v", ErrMalformedCall, jsonFault(body, err)))
	}
	if d.More() {
		return bad(fmt.Errorf("%w: step: text after the step at byte %d", ErrMalformedCall, d.InputOffset()))
	}
	if st.Step != nil {
		var inner stepJSON
		if err := json.Unmarshal(st.Step, &inner); err != nil {
			return bad(fmt.Errorf("%w: step: /step is not an object: %v", ErrMalformedCall, err))
		}
		st = inner
	}
	switch {
	case st.Tool != nil:
		if *st.Tool == "" {
			return bad(fmt.Errorf("%w: step: /step/tool is empty", ErrMalformedCall))
		}
		args := st.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return Extraction{Calls: []core.Call{{Name: *st.Tool, Arguments: args}}}, nil
	case st.Answer != nil:
		return Extraction{Text: *st.Answer, Answer: true}, nil
	case st.Scratchpad != nil:
		return Extraction{Scratchpad: *st.Scratchpad}, nil
	}
	return bad(fmt.Errorf(`%w: step: no "tool", "answer" or "scratchpad"`, ErrMalformedCall))
}

// Validate undoes the strict rewrite before checking: strict mode makes
// optional properties nullable, so a top-level null for a property the
// tool does not require means "absent" and is dropped.
func (structured) Validate(reg *tools.Registry, call core.Call) tools.Validation {
	if t, ok := reg.Lookup(call.Name); ok {
		call.Arguments = dropOptionalNulls(t.InputSchema(), call.Arguments)
	}
	return reg.Validate(call)
}

func dropOptionalNulls(schema, args json.RawMessage) json.RawMessage {
	var s struct {
		Required []string `json:"required"`
	}
	var a map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil || json.Unmarshal(args, &a) != nil || a == nil {
		return args
	}
	changed := false
	for k, v := range a {
		if string(v) == "null" && !slices.Contains(s.Required, k) {
			delete(a, k)
			changed = true
		}
	}
	if !changed {
		return args
	}
	b, err := json.Marshal(a)
	if err != nil {
		return args
	}
	return b
}
