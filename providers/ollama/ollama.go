package ollama

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
)

// Name is the protocol name of the adapter.
const Name = "ollama"

// DefaultMaxLine bounds one NDJSON line of a stream, in bytes.
const DefaultMaxLine = 4 << 20

// GeneratedIDPrefix starts every call id the adapter makes up for a tool
// call that carries none (Ollama sends none, or "id" in newer versions).
// Encoders never send such an id.
const GeneratedIDPrefix = "ollama_call_"

// DecodeError is every fault of the adapter that has a place: the byte
// offset in a body or stream, or the JSON path of a value in a body or of
// a canonical value that cannot be written (Op "encode request").
type DecodeError = wire.DecodeError

// Option configures an Adapter.
type Option func(*Adapter)

// WithMaxLine sets the largest stream line DecodeStream accepts.
func WithMaxLine(n int) Option { return func(a *Adapter) { a.maxLine = n } }

// Adapter is the Ollama /api/chat protocol. Use New.
type Adapter struct {
	maxLine int
}

// New returns an Ollama adapter.
func New(opts ...Option) *Adapter {
	a := &Adapter{maxLine: DefaultMaxLine}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Name returns "ollama".
func (a *Adapter) Name() string { return Name }

var _ core.Adapter = (*Adapter)(nil)

type wireToolCall struct {
	ID       string           `json:"id,omitempty"`
	Function wireCallFunction `json:"function"`
}

type wireCallFunction struct {
	Index     *int            `json:"index,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// compact is set by the fast path when Arguments has no white space
	// between its tokens.
	compact bool
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Thinking   string         `json:"thinking,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type wireRequest struct {
	Model    string          `json:"model"`
	Messages []wireMessage   `json:"messages"`
	Tools    []wireTool      `json:"tools,omitempty"`
	Stream   *bool           `json:"stream,omitempty"`
	Format   json.RawMessage `json:"format,omitempty"`
	Options  map[string]any  `json:"options,omitempty"`
}

type wireResponse struct {
	Model           string       `json:"model,omitempty"`
	CreatedAt       string       `json:"created_at,omitempty"`
	Message         *wireMessage `json:"message,omitempty"`
	Done            bool         `json:"done"`
	DoneReason      string       `json:"done_reason,omitempty"`
	TotalDuration   *int64       `json:"total_duration,omitempty"`
	PromptEvalCount *int         `json:"prompt_eval_count,omitempty"`
	EvalCount       *int         `json:"eval_count,omitempty"`
	Error           *string      `json:"error,omitempty"`
}

// wireBody is a wireResponse as the encoders write a body or line that is
// not an error: model and created_at always, as Ollama's API documentation
// shows every one.
type wireBody struct {
	Model           string       `json:"model"`
	CreatedAt       string       `json:"created_at"`
	Message         *wireMessage `json:"message,omitempty"`
	Done            bool         `json:"done"`
	DoneReason      string       `json:"done_reason,omitempty"`
	TotalDuration   *int64       `json:"total_duration,omitempty"`
	PromptEvalCount *int         `json:"prompt_eval_count,omitempty"`
	EvalCount       *int         `json:"eval_count,omitempty"`
	Error           *string      `json:"error,omitempty"`
}

// createdAt is the created_at the encoders write: the canonical response
// holds no time, so a fixed one (the Unix epoch) keeps the output a
// function of the input.
const createdAt = "1970-01-01T00:00:00Z"

// marshalBody writes w, an error as Ollama sends it, anything else with
// its model and created_at.
func marshalBody(w wireResponse) ([]byte, error) {
	if w.Error != nil {
		return json.Marshal(w)
	}
	w.CreatedAt = createdAt
	return json.Marshal(wireBody(w))
}

// setDone gives a done body or line its counts, zero when u is nil, and a
// total_duration of 0 (the canonical response holds no timing), as every
// done body of Ollama's API documentation carries them.
func (w *wireResponse) setDone(u *core.Usage) {
	var c core.Usage
	if u != nil {
		c = *u
	}
	var d int64
	w.TotalDuration, w.PromptEvalCount, w.EvalCount = &d, &c.InputTokens, &c.OutputTokens
}

// IsGeneratedID reports whether id was made up by this adapter.
func IsGeneratedID(id string) bool { return strings.HasPrefix(id, GeneratedIDPrefix) }

func wireID(id string) string {
	if IsGeneratedID(id) {
		return ""
	}
	return id
}

// DecodeArguments reads tool-call arguments as Ollama sends them: a JSON
// object (C04). A JSON string holding a JSON object (double-encoded, C05)
// is accepted and unwrapped, and reported: repaired is true and original is
// the string as received. Absent or null arguments are {}. Anything else
// is an error.
func DecodeArguments(raw json.RawMessage) (args json.RawMessage, repaired bool, original string, err error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), false, "", nil
	}
	switch t[0] {
	case '{':
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err != nil {
			return nil, false, "", fmt.Errorf("%w: arguments: %v", core.ErrMalformed, err)
		}
		return buf.Bytes(), false, "", nil
	case '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, false, "", fmt.Errorf("%w: arguments: %v", core.ErrMalformed, err)
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 {
			return json.RawMessage("{}"), true, s, nil
		}
		if inner[0] != '{' || !json.Valid(inner) {
			return nil, false, "", fmt.Errorf("%w: arguments are a string that does not hold a JSON object", core.ErrMalformed)
		}
		var buf bytes.Buffer
		_ = json.Compact(&buf, inner)
		return buf.Bytes(), true, s, nil
	}
	return nil, false, "", fmt.Errorf("%w: arguments must be a JSON object, got %s", core.ErrMalformed, kind(t[0]))
}

func kind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// callsOf converts a message's tool calls. gen gives the id of the k-th
// call that has none.
func callsOf(tcs []wireToolCall, gen func(k int) string, path string, op string) ([]core.Call, error) {
	var calls []core.Call
	for k, tc := range tcs {
		if zeroCall(tc) {
			continue // a zero-valued entry is an absent one
		}
		args, repaired, orig, err := DecodeArguments(tc.Function.Arguments)
		if err != nil {
			return nil, wire.Placed(op, -1, path+".tool_calls["+strconv.Itoa(k)+"].function.arguments", err)
		}
		id := tc.ID
		if id == "" {
			id = gen(k)
		}
		calls = append(calls, core.Call{ID: id, Name: tc.Function.Name, Arguments: args, Repaired: repaired, Original: orig})
	}
	return calls, nil
}

// zeroCall reports whether a tool call entry is zero-valued, as a server
// that writes every field of its types sends it: no id, no name, and no
// arguments (absent, null or {}). It is an absent one, never a call.
func zeroCall(tc wireToolCall) bool {
	if tc.ID != "" || tc.Function.Name != "" {
		return false
	}
	switch string(bytes.TrimSpace(tc.Function.Arguments)) {
	case "", "null", "{}":
		return true
	}
	return false
}

func wireCall(c core.Call) (wireToolCall, error) {
	args := bytes.TrimSpace(c.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return wireToolCall{}, fmt.Errorf("%w; Ollama sends arguments as an object", core.ErrInvalidArguments)
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, args)
	return wireToolCall{ID: wireID(c.ID), Function: wireCallFunction{Name: c.Name, Arguments: buf.Bytes()}}, nil
}

// EncodeRequest encodes a canonical request as an /api/chat body.
//
// Messages keep their roles; an assistant message's text parts are joined
// into content, its thinking parts into thinking, its calls become
// tool_calls with arguments as JSON objects. A tool message becomes one
// "tool" message per result, with tool_name (the result's Name, or the name
// of the call it answers) and tool_call_id when the call id came from the
// provider. The results of consecutive tool messages are sent in the order
// of the calls of the assistant message before them (G05). MaxTokens is
// options.num_predict; ResponseFormat is format (its schema, or "json" when
// it has none). stream is always written, since Ollama streams when it is
// absent. Ollama has no tool choice: auto and none are not written (none
// leaves the choice to the model), and a choice that forces a call (mode
// required or tool) is refused with an error wrapping core.ErrUnsupported
// and errors.ErrUnsupported (a case the scenario engine skips) rather than
// dropped (F08). ParallelToolCalls is not written.
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	const op = "ollama: encode request"
	if req == nil {
		return nil, fmt.Errorf("%s: %w: nil request", op, core.ErrMalformed)
	}
	if err := wire.CheckToolChoice("ollama", req.ToolChoice); err != nil {
		return nil, err
	}
	if err := wire.CheckResultParts("ollama", req.Messages); err != nil {
		return nil, err
	}
	if tc := req.ToolChoice; tc != nil && (tc.Mode == core.ToolChoiceTool || tc.Mode == core.ToolChoiceRequired) {
		// Dropping a forced choice would let the model answer in text
		// while the caller believes a call is forced (F08).
		return nil, wire.Placed(op, -1, "tool_choice.mode", fmt.Errorf("%w: Ollama has no tool choice, so mode %q cannot be sent (%w)", core.ErrUnsupported, tc.Mode, errors.ErrUnsupported))
	}
	if err := partKinds.Check(op, req.Messages); err != nil {
		return nil, err
	}
	stream := req.Stream
	w := wireRequest{Model: req.Model, Messages: []wireMessage{}, Stream: &stream}
	names := map[string]string{}
	var lastCalls []core.Call
	msgs := req.Messages
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		path := "messages[" + strconv.Itoa(i) + "]"
		switch m.Role {
		case core.RoleSystem, core.RoleUser, core.RoleAssistant:
			wm := wireMessage{Role: string(m.Role)}
			for j, p := range m.Parts {
				switch p.Kind {
				case core.PartText:
					wm.Content += p.Text
				case core.PartThinking:
					wm.Thinking += p.Text
				case core.PartToolCall:
					if p.Call == nil {
						return nil, wire.Placed(op, -1, path+".parts["+strconv.Itoa(j)+"]", fmt.Errorf("%w: tool_call part without a call", core.ErrMalformed))
					}
					tc, err := wireCall(*p.Call)
					if err != nil {
						return nil, wire.Placed(op, -1, path+".parts["+strconv.Itoa(j)+"].call.arguments", err)
					}
					names[p.Call.ID] = p.Call.Name
					wm.ToolCalls = append(wm.ToolCalls, tc)
				}
			}
			if m.Role == core.RoleAssistant {
				lastCalls = m.Calls()
			}
			w.Messages = append(w.Messages, wm)
		case core.RoleTool:
			var results []core.Result
			for ; i < len(msgs) && msgs[i].Role == core.RoleTool; i++ {
				results = append(results, msgs[i].Results()...)
			}
			i--
			for _, r := range inCallOrder(results, lastCalls) {
				name := r.Name
				if name == "" {
					name = names[r.CallID]
				}
				content := resultText(r)
				w.Messages = append(w.Messages, wireMessage{Role: "tool", Content: content, ToolName: name, ToolCallID: wireID(r.CallID)})
			}
		default:
			return nil, wire.Placed(op, -1, path+".role", fmt.Errorf("%w: unknown role %q", core.ErrMalformed, m.Role))
		}
	}
	// The history rules the other adapters follow (G01, G02, G03, G06,
	// D06), checked after the messages, so that a fault inside one part
	// is reported by its path first: Ollama takes a call without a result
	// or an orphan result, but the model is then handed a conversation no
	// other provider would take.
	if err := wire.History("ollama", core.CheckHistory(msgs)); err != nil {
		return nil, err
	}
	for i, t := range req.Tools {
		params := t.InputSchema
		if len(bytes.TrimSpace(params)) > 0 && !json.Valid(params) {
			return nil, wire.Placed(op, -1, "tools["+strconv.Itoa(i)+"].input_schema", fmt.Errorf("%w: schema is not valid JSON", core.ErrMalformed))
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if rf := req.ResponseFormat; rf != nil {
		if len(bytes.TrimSpace(rf.Schema)) == 0 {
			w.Format = json.RawMessage(`"json"`)
		} else {
			w.Format = rf.Schema
		}
	}
	if req.MaxTokens > 0 {
		w.Options = map[string]any{"num_predict": req.MaxTokens}
	}
	return json.Marshal(w)
}

// partKinds are the parts each role carries: an /api/chat message has
// content, the thinking of an assistant message and its tool_calls; a tool
// message carries one result. Ollama has no place for a plan.
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall},
	core.RoleTool:      {core.PartToolResult},
}

// inCallOrder returns the results of one tool turn (consecutive tool
// messages) in the order of the calls they answer (G05): many local chat
// templates pair tool messages with calls by position. Every result
// answers one of calls (EncodeRequest refuses any other history).
func inCallOrder(results []core.Result, calls []core.Call) []core.Result {
	rank := make(map[string]int, len(calls))
	for k, c := range calls {
		if _, ok := rank[c.ID]; !ok {
			rank[c.ID] = k
		}
	}
	key := func(r core.Result) int { return rank[r.CallID] }
	out := slices.Clone(results)
	slices.SortStableFunc(out, func(x, y core.Result) int { return cmp.Compare(key(x), key(y)) })
	return out
}

// DecodeRequest decodes an /api/chat body. Tool calls without an id get
// "ollama_call_<t>_<k>", t counting the assistant messages; a tool message is paired with a call
// by tool_call_id when present, else with the first unanswered call of the
// same tool_name in the assistant message before it, else with the first
// unanswered call. Consecutive tool messages make one canonical tool
// message. stream defaults to true, as in Ollama. Unmodelled fields
// (options other than num_predict, keep_alive, think, images) are ignored.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	const op = "ollama: decode request"
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, syntaxError(op, 0, err)
	}
	req := &core.Request{Model: w.Model, Stream: w.Stream == nil || *w.Stream}
	var prev []core.Call
	var used []bool
	assistants := 0
	for i, m := range w.Messages {
		path := "messages[" + strconv.Itoa(i) + "]"
		switch m.Role {
		case "system", "user", "assistant":
			cm := core.Message{Role: core.Role(m.Role), Parts: []core.Part{}}
			if m.Thinking != "" {
				cm.Parts = append(cm.Parts, core.Part{Kind: core.PartThinking, Text: m.Thinking})
			}
			if m.Content != "" || (m.Role != "assistant" && len(m.ToolCalls) == 0) {
				cm.Parts = append(cm.Parts, core.TextPart(m.Content))
			}
			if m.Role == "assistant" {
				turn := assistants
				assistants++
				calls, err := callsOf(m.ToolCalls, func(k int) string {
					return GeneratedIDPrefix + strconv.Itoa(turn) + "_" + strconv.Itoa(k)
				}, path, op)
				if err != nil {
					return nil, err
				}
				for _, c := range calls {
					cm.Parts = append(cm.Parts, core.CallPart(c))
				}
				prev, used = calls, make([]bool, len(calls))
			}
			req.Messages = append(req.Messages, cm)
		case "tool":
			id := m.ToolCallID
			pick := -1
			for k, c := range prev {
				if used[k] {
					continue
				}
				if (id != "" && c.ID == id) || (id == "" && m.ToolName != "" && c.Name == m.ToolName) {
					pick = k
					break
				}
			}
			if pick < 0 && id == "" {
				for k := range prev {
					if !used[k] {
						pick = k
						break
					}
				}
			}
			if pick >= 0 {
				used[pick] = true
				if id == "" {
					id = prev[pick].ID
				}
			}
			if id == "" {
				id = GeneratedIDPrefix + strconv.Itoa(i) + "_result"
			}
			r := core.Result{CallID: id, Name: m.ToolName, Content: []core.Part{core.TextPart(m.Content)}}
			n := len(req.Messages)
			if n > 0 && req.Messages[n-1].Role == core.RoleTool {
				req.Messages[n-1].Parts = append(req.Messages[n-1].Parts, core.ResultPart(r))
			} else {
				req.Messages = append(req.Messages, core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(r)}})
			}
		default:
			return nil, wire.Placed(op, -1, path+".role", fmt.Errorf("%w: unknown role %q", core.ErrMalformed, m.Role))
		}
	}
	for _, t := range w.Tools {
		schema := t.Function.Parameters
		if schema != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, schema) == nil {
				schema = buf.Bytes()
			}
		}
		req.Tools = append(req.Tools, core.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: schema})
	}
	if f := bytes.TrimSpace(w.Format); len(f) > 0 && string(f) != "null" && string(f) != `""` {
		if f[0] == '"' {
			req.ResponseFormat = &core.ResponseFormat{}
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, f); err == nil {
				f = buf.Bytes()
			}
			req.ResponseFormat = &core.ResponseFormat{Schema: f}
		}
	}
	if n, ok := w.Options["num_predict"].(float64); ok {
		req.MaxTokens = int(n)
	}
	return req, nil
}

// NormalizeFinish maps an Ollama done_reason to the canonical finish
// reason. Ollama says "stop" when the model called tools; with calls it
// becomes tool_calls.
func NormalizeFinish(reason string, hasCalls bool) core.FinishReason {
	switch reason {
	case "stop", "":
		if hasCalls {
			return core.FinishToolCalls
		}
		return core.FinishStop
	case "length":
		return core.FinishLength
	}
	return core.FinishOther
}

func rawFinish(f core.FinishReason, provider string) string {
	if provider != "" {
		return provider
	}
	switch f {
	case core.FinishLength:
		return "length"
	case core.FinishStop, core.FinishToolCalls, "":
		return "stop"
	}
	return string(f)
}

// DecodeResponse decodes an /api/chat response body (stream: false). Calls
// without an id get "ollama_call_<k>"; identical calls are all kept (D07).
// An error body {"error": "..."} becomes Response.Error; any other body
// without a message is an error wrapping core.ErrMalformed.
func (a *Adapter) DecodeResponse(body []byte) (resp *core.Response, err error) {
	defer vendorerr.Fallback(body, &resp, &err)
	const op = "ollama: decode response"
	if bad := jsonstr.InvalidUTF8At(body); bad >= 0 {
		return nil, wire.Placed(op, int64(bad), "", core.ErrInvalidUTF8)
	}
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, syntaxError(op, 0, err)
	}
	resp = &core.Response{Model: w.Model, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if w.Error != nil {
		resp.Error = &core.ProviderError{Message: *w.Error}
		resp.Finish = core.FinishError
		return resp, nil
	}
	if w.Message == nil {
		return nil, wire.Placed(op, -1, "message", fmt.Errorf("%w: missing, and the body is not an error body", core.ErrMalformed))
	}
	m := w.Message
	if m.Thinking != "" {
		resp.Message.Parts = append(resp.Message.Parts, core.Part{Kind: core.PartThinking, Text: m.Thinking})
	}
	if m.Content != "" {
		resp.Message.Parts = append(resp.Message.Parts, core.TextPart(m.Content))
	}
	calls, err := callsOf(m.ToolCalls, func(k int) string { return GeneratedIDPrefix + strconv.Itoa(k) }, "message", op)
	if err != nil {
		return nil, err
	}
	hasCalls := false
	for _, c := range calls {
		if c.Name == "" {
			// A call without a name is never complete.
			c.Original, c.Arguments, c.Repaired = string(c.Arguments), nil, false
			resp.Incomplete = append(resp.Incomplete, c)
			continue
		}
		resp.Message.Parts = append(resp.Message.Parts, core.CallPart(c))
		hasCalls = true
	}
	if w.PromptEvalCount != nil || w.EvalCount != nil {
		resp.Usage = &core.Usage{InputTokens: deref(w.PromptEvalCount), OutputTokens: deref(w.EvalCount)}
	}
	if !w.Done {
		// A whole /api/chat response says done: true. done false is
		// one line of a stream that was cut before its done line: what
		// it carried is kept, and the cut is an error, as for a stream.
		return resp, wire.Placed(op, -1, "done", fmt.Errorf("false: a stream line cut before its done line, not a whole response: %w", core.ErrTruncated))
	}
	resp.ProviderFinish = w.DoneReason
	resp.Finish = NormalizeFinish(w.DoneReason, hasCalls)
	return resp, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// EncodeResponse encodes a canonical response as an /api/chat body.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	const op = "ollama: encode response"
	if resp == nil {
		return nil, fmt.Errorf("%s: %w: nil response", op, core.ErrMalformed)
	}
	if resp.Error != nil {
		msg := resp.Error.Message
		return json.Marshal(wireResponse{Model: resp.Model, Error: &msg})
	}
	if err := partKinds.CheckResponse(op, resp.Message.Parts); err != nil {
		return nil, err
	}
	m := &wireMessage{Role: "assistant"}
	for i, p := range resp.Message.Parts {
		switch p.Kind {
		case core.PartText:
			m.Content += p.Text
		case core.PartThinking:
			m.Thinking += p.Text
		case core.PartToolCall:
			if p.Call == nil {
				return nil, wire.Placed(op, -1, "message.parts["+strconv.Itoa(i)+"]", fmt.Errorf("%w: tool_call part without a call", core.ErrMalformed))
			}
			tc, err := wireCall(*p.Call)
			if err != nil {
				return nil, wire.Placed(op, -1, "message.parts["+strconv.Itoa(i)+"].call.arguments", err)
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
	}
	w := wireResponse{Model: resp.Model, Message: m}
	if resp.Finish != "" || resp.ProviderFinish != "" {
		w.Done = true
		w.DoneReason = rawFinish(resp.Finish, resp.ProviderFinish)
		w.setDone(resp.Usage)
	} else if u := resp.Usage; u != nil {
		w.PromptEvalCount, w.EvalCount = &u.InputTokens, &u.OutputTokens
	}
	return marshalBody(w)
}

func syntaxError(op string, base int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset
		if off > 0 {
			off--
		}
		return wire.Placed(op, base+off, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return wire.Placed(op, base+te.Offset, "", fmt.Errorf("%w: value ending here, field %s: %v", core.ErrMalformed, te.Field, err))
	}
	return wire.Placed(op, base, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
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
