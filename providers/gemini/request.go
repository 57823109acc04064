package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

type wireRequest struct {
	Model             string                `json:"model,omitempty"`
	Contents          []wireContent         `json:"contents"`
	SystemInstruction *wireContent          `json:"systemInstruction,omitempty"`
	Tools             []wireTool            `json:"tools,omitempty"`
	ToolConfig        *wireToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *wireGenerationConfig `json:"generationConfig,omitempty"`

	// The protobuf JSON mapping also accepts the original snake_case
	// names; some clients (llm-gemini) send them.
	SystemInstructionSnake *wireContent          `json:"system_instruction,omitempty"`
	ToolConfigSnake        *wireToolConfig       `json:"tool_config,omitempty"`
	GenerationConfigSnake  *wireGenerationConfig `json:"generation_config,omitempty"`
}

type wireTool struct {
	FunctionDeclarations      []wireFunctionDeclaration `json:"functionDeclarations,omitempty"`
	FunctionDeclarationsSnake []wireFunctionDeclaration `json:"function_declarations,omitempty"`
}

type wireFunctionDeclaration struct {
	Name                      string          `json:"name"`
	Description               string          `json:"description,omitempty"`
	Parameters                json.RawMessage `json:"parameters,omitempty"`
	ParametersJSONSchema      json.RawMessage `json:"parametersJsonSchema,omitempty"`
	ParametersJSONSchemaSnake json.RawMessage `json:"parameters_json_schema,omitempty"`
}

type wireToolConfig struct {
	FunctionCallingConfig      *wireFunctionCallingConfig `json:"functionCallingConfig,omitempty"`
	FunctionCallingConfigSnake *wireFunctionCallingConfig `json:"function_calling_config,omitempty"`
}

type wireFunctionCallingConfig struct {
	Mode                      string   `json:"mode,omitempty"`
	AllowedFunctionNames      []string `json:"allowedFunctionNames,omitempty"`
	AllowedFunctionNamesSnake []string `json:"allowed_function_names,omitempty"`
}

type wireGenerationConfig struct {
	MaxOutputTokens         int             `json:"maxOutputTokens,omitempty"`
	ResponseMimeType        string          `json:"responseMimeType,omitempty"`
	ResponseSchema          json.RawMessage `json:"responseSchema,omitempty"`
	ResponseJSONSchema      json.RawMessage `json:"responseJsonSchema,omitempty"`
	MaxOutputTokensSnake    int             `json:"max_output_tokens,omitempty"`
	ResponseMimeTypeSnake   string          `json:"response_mime_type,omitempty"`
	ResponseSchemaSnake     json.RawMessage `json:"response_schema,omitempty"`
	ResponseJSONSchemaSnake json.RawMessage `json:"response_json_schema,omitempty"`
}

// normalize folds the snake_case aliases into the camelCase fields.
func (r *wireRequest) normalize() {
	if r.SystemInstruction == nil {
		r.SystemInstruction = r.SystemInstructionSnake
	}
	if r.ToolConfig == nil {
		r.ToolConfig = r.ToolConfigSnake
	}
	if r.GenerationConfig == nil {
		r.GenerationConfig = r.GenerationConfigSnake
	}
	for i := range r.Tools {
		t := &r.Tools[i]
		t.FunctionDeclarations = append(t.FunctionDeclarations, t.FunctionDeclarationsSnake...)
		for j := range t.FunctionDeclarations {
			d := &t.FunctionDeclarations[j]
			if d.ParametersJSONSchema == nil {
				d.ParametersJSONSchema = d.ParametersJSONSchemaSnake
			}
		}
	}
	if tc := r.ToolConfig; tc != nil {
		if tc.FunctionCallingConfig == nil {
			tc.FunctionCallingConfig = tc.FunctionCallingConfigSnake
		}
		if f := tc.FunctionCallingConfig; f != nil && f.AllowedFunctionNames == nil {
			f.AllowedFunctionNames = f.AllowedFunctionNamesSnake
		}
	}
	if g := r.GenerationConfig; g != nil {
		if g.MaxOutputTokens == 0 {
			g.MaxOutputTokens = g.MaxOutputTokensSnake
		}
		if g.ResponseMimeType == "" {
			g.ResponseMimeType = g.ResponseMimeTypeSnake
		}
		if g.ResponseSchema == nil {
			g.ResponseSchema = g.ResponseSchemaSnake
		}
		if g.ResponseJSONSchema == nil {
			g.ResponseJSONSchema = g.ResponseJSONSchemaSnake
		}
	}
}

// UnmarshalJSON accepts the snake_case aliases of a part's fields.
func (p *wirePart) UnmarshalJSON(b []byte) error {
	type plain wirePart
	var aux struct {
		plain
		FunctionCallSnake     *wireFunctionCall     `json:"function_call"`
		FunctionResponseSnake *wireFunctionResponse `json:"function_response"`
		ThoughtSignatureSnake string                `json:"thought_signature"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*p = wirePart(aux.plain)
	if p.FunctionCall == nil {
		p.FunctionCall = aux.FunctionCallSnake
	}
	if p.FunctionResponse == nil {
		p.FunctionResponse = aux.FunctionResponseSnake
	}
	if p.ThoughtSignature == "" {
		p.ThoughtSignature = aux.ThoughtSignatureSnake
	}
	return nil
}

// EncodeRequest encodes a canonical request as a generateContent body.
//
// System messages become systemInstruction; assistant messages become
// "model" contents; tool messages (consecutive ones merged) become one
// "user" content of functionResponse parts, one per functionCall of the
// preceding model turn, in the order of the calls (G04, G05). Provider call
// ids are echoed in the functionResponse (D02) and thought signatures sent
// back on their parts (G13). Tools are rewritten by SanitizeSchema (H01,
// H02). Request.Stream and Request.ParallelToolCalls have no place in the
// body and are not written.
//
// What Gemini answers with a 400 is refused: a tool name outside
// ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$ (E01, E02, E03: no leading digit;
// tools.NameMapper maps such names), and
// a history that core.CheckHistory faults (G01, G02, G03, G06), such as a
// call followed by a user turn instead of its result, and one Gemini adds
// (G04: a tool turn answers each functionCall of the model turn before it,
// once), each a *core.HistoryError.
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	const op = "gemini: encode request"
	if req == nil {
		return nil, fmt.Errorf("%s: %w: nil request", op, core.ErrMalformed)
	}
	if err := wire.CheckResultParts(protocolName, req.Messages); err != nil {
		return nil, err
	}
	for i, t := range req.Tools {
		if err := a.ToolNameRules().Check(t.Name); err != nil {
			return nil, wire.Placed(op, -1, "tools["+strconv.Itoa(i)+"].name", err)
		}
	}
	if err := partKinds.Check(op, req.Messages); err != nil {
		return nil, err
	}
	w := wireRequest{Contents: []wireContent{}}
	if req.Model != "" {
		w.Model = req.Model
		if !strings.Contains(w.Model, "/") {
			w.Model = "models/" + w.Model
		}
	}
	var lastCalls []core.Call
	lastCallsAt := -1
	msgs := req.Messages
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		path := "messages[" + strconv.Itoa(i) + "]"
		switch m.Role {
		case core.RoleSystem:
			if w.SystemInstruction == nil {
				w.SystemInstruction = &wireContent{}
			}
			for _, p := range m.Parts {
				w.SystemInstruction.Parts = append(w.SystemInstruction.Parts, wirePart{Text: ptr(p.Text)})
			}
		case core.RoleUser:
			c := wireContent{Role: "user", Parts: []wirePart{}}
			for _, p := range m.Parts {
				c.Parts = append(c.Parts, wirePart{Text: ptr(p.Text)})
			}
			w.Contents = append(w.Contents, c)
		case core.RoleAssistant:
			c := wireContent{Role: "model", Parts: []wirePart{}}
			lastCalls, lastCallsAt = nil, i
			for j, p := range m.Parts {
				pp := path + ".parts[" + strconv.Itoa(j) + "]"
				switch p.Kind {
				case core.PartText:
					c.Parts = append(c.Parts, wirePart{Text: ptr(p.Text), ThoughtSignature: p.Signature})
				case core.PartThinking:
					c.Parts = append(c.Parts, wirePart{Text: ptr(p.Text), Thought: true, ThoughtSignature: p.Signature})
				case core.PartToolCall:
					if p.Call == nil {
						return nil, wire.Placed(op, -1, pp, fmt.Errorf("%w: tool_call part without a call", core.ErrMalformed))
					}
					args, err := objectArgs(p.Call.Arguments)
					if err != nil {
						return nil, wire.Placed(op, -1, pp+".call.arguments", err)
					}
					c.Parts = append(c.Parts, wirePart{
						FunctionCall:     &wireFunctionCall{ID: wireID(p.Call.ID), Name: p.Call.Name, Args: args},
						ThoughtSignature: p.Call.Signature,
					})
					lastCalls = append(lastCalls, *p.Call)
				}
			}
			w.Contents = append(w.Contents, c)
		case core.RoleTool:
			var results []core.Result
			first := i
			for ; i < len(msgs) && msgs[i].Role == core.RoleTool; i++ {
				results = append(results, msgs[i].Results()...)
			}
			i--
			parts, err := encodeResults(results, lastCalls, lastCallsAt, first)
			if err != nil {
				return nil, err
			}
			w.Contents = append(w.Contents, wireContent{Role: "user", Parts: parts})
			lastCalls, lastCallsAt = nil, -1
		default:
			return nil, wire.Placed(op, -1, path+".role", fmt.Errorf("%w: unknown role %q", core.ErrMalformed, m.Role))
		}
	}
	// Checked after the messages, so that a fault inside one part is
	// reported by its path first. A call followed by a user turn instead
	// of its functionResponse passes encodeResults, which sees only tool
	// turns; Gemini answers it with a 400 (G01).
	if err := wire.History(protocolName, core.CheckHistory(msgs)); err != nil {
		return nil, err
	}
	if len(req.Tools) > 0 {
		t := wireTool{}
		for i, spec := range req.Tools {
			d := wireFunctionDeclaration{Name: spec.Name, Description: spec.Description}
			if len(bytes.TrimSpace(spec.InputSchema)) > 0 && !isEmptyObject(spec.InputSchema) && string(bytes.TrimSpace(spec.InputSchema)) != "null" {
				params, _, err := SanitizeSchema(spec.InputSchema)
				if err != nil {
					return nil, wire.Placed(op, -1, "tools["+strconv.Itoa(i)+"].input_schema", err)
				}
				d.Parameters = params
			}
			t.FunctionDeclarations = append(t.FunctionDeclarations, d)
		}
		w.Tools = []wireTool{t}
	}
	if tc := req.ToolChoice; tc != nil {
		f := &wireFunctionCallingConfig{}
		switch tc.Mode {
		case core.ToolChoiceAuto:
			f.Mode = "AUTO"
		case core.ToolChoiceNone:
			f.Mode = "NONE"
		case core.ToolChoiceRequired:
			f.Mode = "ANY"
		case core.ToolChoiceTool:
			if tc.Name == "" {
				return nil, wire.Placed(op, -1, "tool_choice.name", fmt.Errorf("%w: mode tool needs a tool name", core.ErrMalformed))
			}
			f.Mode = "ANY"
			f.AllowedFunctionNames = []string{tc.Name}
		default:
			return nil, wire.Placed(op, -1, "tool_choice.mode", fmt.Errorf("%w: unknown mode %q", core.ErrMalformed, tc.Mode))
		}
		w.ToolConfig = &wireToolConfig{FunctionCallingConfig: f}
	}
	if req.MaxTokens > 0 || req.ResponseFormat != nil {
		g := &wireGenerationConfig{MaxOutputTokens: req.MaxTokens}
		if rf := req.ResponseFormat; rf != nil {
			g.ResponseMimeType = "application/json"
			g.ResponseJSONSchema = rf.Schema
		}
		w.GenerationConfig = g
	}
	return json.Marshal(w)
}

// partKinds are the parts each role carries. Gemini has no place for a
// plan, and none for a thought or a functionCall in a user turn: thoughts
// and calls are the model's parts. A tool message holds results only,
// sent as the functionResponse parts of a user turn.
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall},
	core.RoleTool:      {core.PartToolResult},
}

func ptr[T any](v T) *T { return &v }

func isEmptyObject(b json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil && len(m) == 0
}

// objectArgs checks that call arguments are a JSON object; empty arguments
// are sent as {}.
func objectArgs(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return json.RawMessage("{}"), nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return nil, fmt.Errorf("%w; Gemini args must be an object", core.ErrInvalidArguments)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeResults pairs the results of one tool turn, messages[at], with the
// calls of the model turn before it, messages[callsAt]: one
// functionResponse per functionCall, in call order (G04).
func encodeResults(results []core.Result, calls []core.Call, callsAt, at int) ([]wirePart, error) {
	fault := func(id string, err error) error {
		return &core.HistoryError{Protocol: protocolName, Message: at, CallID: id, Guard: "G04", Err: err}
	}
	if callsAt < 0 || len(calls) == 0 {
		id := ""
		if len(results) > 0 {
			id = results[0].CallID
		}
		return nil, fault(id, fmt.Errorf("%w: %d tool results with no functionCall in the model turn before them", core.ErrOrphanResult, len(results)))
	}
	if len(results) != len(calls) {
		missing := core.ErrMissingResult
		if len(results) > len(calls) {
			missing = core.ErrOrphanResult
		}
		return nil, fault("", fmt.Errorf("%w: turn %d answers %d of the %d functionCall parts of turn %d; Gemini needs one functionResponse per functionCall", missing, at, len(results), len(calls), callsAt))
	}
	byID := make(map[string]int, len(results))
	for i, r := range results {
		if r.CallID == "" {
			return nil, fault("", fmt.Errorf("%w: result %d has no call id", core.ErrResultWithoutID, i))
		}
		if _, dup := byID[r.CallID]; dup {
			return nil, fault(r.CallID, fmt.Errorf("%w: two results for call id %q", core.ErrDuplicateResult, r.CallID))
		}
		byID[r.CallID] = i
	}
	parts := make([]wirePart, 0, len(calls))
	for _, c := range calls {
		ri, ok := byID[c.ID]
		if !ok {
			return nil, fault(c.ID, fmt.Errorf("%w: no result for call %q (%s) of turn %d", core.ErrMissingResult, c.ID, c.Name, callsAt))
		}
		r := results[ri]
		name := r.Name
		if name == "" {
			name = c.Name
		}
		parts = append(parts, wirePart{FunctionResponse: &wireFunctionResponse{
			ID: wireID(c.ID), Name: name, Response: resultObject(r),
		}})
	}
	return parts, nil
}

// resultObject gives the functionResponse.response object of a result: its
// text when that is a JSON object, else {"result": text} or, for an error
// result, {"error": text}.
func resultObject(r core.Result) json.RawMessage {
	text := resultText(r)
	t := bytes.TrimSpace([]byte(text))
	if !r.IsError && len(t) > 0 && t[0] == '{' && json.Valid(t) {
		var buf bytes.Buffer
		if json.Compact(&buf, t) == nil {
			return buf.Bytes()
		}
	}
	key := "result"
	if r.IsError {
		key = "error"
	}
	b, _ := json.Marshal(map[string]string{key: text})
	return b
}

// resultFromObject is the inverse of resultObject.
func resultFromObject(callID, name string, resp json.RawMessage) core.Result {
	r := core.Result{CallID: callID, Name: name}
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) == nil && len(m) == 1 {
		for k, v := range m {
			var s string
			if (k == "result" || k == "error") && json.Unmarshal(v, &s) == nil {
				t := strings.TrimSpace(s)
				if !(strings.HasPrefix(t, "{") && json.Valid([]byte(t))) || k == "error" {
					r.IsError = k == "error"
					r.Content = []core.Part{core.TextPart(s)}
					return r
				}
			}
		}
	}
	var buf bytes.Buffer
	text := string(resp)
	if json.Compact(&buf, resp) == nil {
		text = buf.String()
	}
	r.Content = []core.Part{core.TextPart(text)}
	return r
}

// DecodeRequest decodes a generateContent body into a canonical request.
// functionCall parts without an id get generated ids
// ("gemini_call_<t>_<k>", t counting the model turns, k the calls of the
// turn); a functionResponse without
// an id is paired with the first unanswered call of the same name in the
// model turn before it. Fields conform does not model (safetySettings,
// thinkingConfig, other tool kinds, …) are ignored.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	const op = "gemini: decode request"
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, syntaxError(op, 0, err)
	}
	w.normalize()
	req := &core.Request{Model: strings.TrimPrefix(w.Model, "models/")}
	if si := w.SystemInstruction; si != nil {
		m := core.Message{Role: core.RoleSystem}
		for _, p := range si.Parts {
			if p.Text != nil {
				m.Parts = append(m.Parts, core.TextPart(*p.Text))
			}
		}
		req.Messages = append(req.Messages, m)
	}
	var prevCalls []core.Call
	modelTurns := 0
	for ci, c := range w.Contents {
		path := "contents[" + strconv.Itoa(ci) + "]"
		switch c.Role {
		case "model":
			m := core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}
			prevCalls = nil
			turn := modelTurns
			modelTurns++
			for pi, p := range c.Parts {
				switch {
				case p.FunctionCall != nil:
					fc := p.FunctionCall
					id := fc.ID
					if id == "" {
						id = GeneratedIDPrefix + strconv.Itoa(turn) + "_" + strconv.Itoa(len(prevCalls))
					}
					args, err := argsOf(fc.Args)
					if err != nil {
						return nil, wire.Placed(op, -1, path+".parts["+strconv.Itoa(pi)+"].functionCall.args", err)
					}
					call := core.Call{ID: id, Name: fc.Name, Arguments: args, Signature: p.ThoughtSignature}
					prevCalls = append(prevCalls, call)
					m.Parts = append(m.Parts, core.CallPart(call))
				case p.Text != nil && p.Thought:
					m.Parts = append(m.Parts, core.Part{Kind: core.PartThinking, Text: *p.Text, Signature: p.ThoughtSignature})
				case p.Text != nil:
					m.Parts = append(m.Parts, core.Part{Kind: core.PartText, Text: *p.Text, Signature: p.ThoughtSignature})
				}
			}
			req.Messages = append(req.Messages, m)
		case "user", "":
			user := core.Message{Role: core.RoleUser}
			tool := core.Message{Role: core.RoleTool}
			used := make([]bool, len(prevCalls))
			for pi, p := range c.Parts {
				switch {
				case p.FunctionResponse != nil:
					fr := p.FunctionResponse
					id := fr.ID
					if id == "" {
						for k, call := range prevCalls {
							if !used[k] && call.Name == fr.Name {
								id, used[k] = call.ID, true
								break
							}
						}
					} else {
						for k, call := range prevCalls {
							if call.ID == id {
								used[k] = true
							}
						}
					}
					if id == "" {
						id = GeneratedIDPrefix + strconv.Itoa(ci) + "_result_" + strconv.Itoa(pi)
					}
					tool.Parts = append(tool.Parts, core.ResultPart(resultFromObject(id, fr.Name, fr.Response)))
				case p.Text != nil:
					user.Parts = append(user.Parts, core.TextPart(*p.Text))
				}
			}
			if len(tool.Parts) > 0 {
				req.Messages = append(req.Messages, tool)
			}
			if len(user.Parts) > 0 || len(tool.Parts) == 0 {
				if user.Parts == nil {
					user.Parts = []core.Part{}
				}
				req.Messages = append(req.Messages, user)
			}
		default:
			return nil, wire.Placed(op, -1, path+".role", fmt.Errorf("%w: unknown role %q", core.ErrMalformed, c.Role))
		}
	}
	for _, t := range w.Tools {
		for _, d := range t.FunctionDeclarations {
			schema := d.Parameters
			if schema == nil {
				schema = d.ParametersJSONSchema
			}
			if schema != nil {
				var buf bytes.Buffer
				if json.Compact(&buf, schema) == nil {
					schema = buf.Bytes()
				}
			}
			req.Tools = append(req.Tools, core.ToolSpec{Name: d.Name, Description: d.Description, InputSchema: schema})
		}
	}
	if w.ToolConfig != nil && w.ToolConfig.FunctionCallingConfig != nil {
		f := w.ToolConfig.FunctionCallingConfig
		switch strings.ToUpper(f.Mode) {
		case "AUTO":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
		case "NONE":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
		case "ANY":
			if len(f.AllowedFunctionNames) == 1 {
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: f.AllowedFunctionNames[0]}
			} else {
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
			}
		}
	}
	if g := w.GenerationConfig; g != nil {
		req.MaxTokens = g.MaxOutputTokens
		schema := g.ResponseJSONSchema
		if schema == nil {
			schema = g.ResponseSchema
		}
		if schema != nil {
			req.ResponseFormat = &core.ResponseFormat{Schema: schema}
		}
	}
	return req, nil
}

// argsOf returns function call arguments as compact JSON; absent arguments
// are {}. Gemini sends an object; anything else is an error.
func argsOf(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("%w: args must be a JSON object", core.ErrMalformed)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
	}
	return buf.Bytes(), nil
}

// resultText joins the text parts of a tool result with a newline (G10):
// MCP tools return separate paragraphs as separate parts, and joined with
// nothing between them their words run together.
func resultText(r core.Result) string {
	var texts []string
	for _, p := range r.Content {
		if p.Kind == core.PartText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
