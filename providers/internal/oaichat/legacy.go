package oaichat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolconform/conform/core"
)

// The legacy function-calling form of Chat Completions, which OpenAI
// replaced with tools in November 2023 and many OpenAI-compatible servers
// still send (API reference, "functions" and "function_call", marked
// deprecated): a request lists "functions" (name, description, parameters)
// and chooses with "function_call" ("auto", "none" or {"name": ...}); an
// assistant message carries at most one "function_call" {name, arguments}
// with finish_reason "function_call", streamed as delta.function_call; the
// result goes back as a message of role "function" with the function's
// name and no id.
//
// Every form is read; none is written: EncodeRequest writes tools and
// tool_choice, which every server that reads tools accepts, and a codec
// that wrote both forms could not round-trip one canonical request.

// LegacyIDPrefix starts the id given to a legacy function_call, which has
// none on the wire.
const LegacyIDPrefix = "function_call_"

// legacyResponseID returns the id of the legacy call of a response: the
// prefix and 12 hex digits of a hash of the response id, or of the call's
// name and arguments for a response without one, so that the same bytes
// always give the same id and, when the response has an id, a streamed
// response gives the id of the same response unstreamed.
func legacyResponseID(responseID string, fc *wireFunctionArg) string {
	key := "id:" + responseID
	if responseID == "" {
		name := ""
		if fc.Name != nil {
			name = *fc.Name
		}
		key = "call:" + name + "\x00" + string(fc.Arguments)
	}
	sum := sha256.Sum256([]byte(key))
	return LegacyIDPrefix + hex.EncodeToString(sum[:6])
}

// legacyRequestID returns the id of the legacy call of the t-th assistant
// message of a request, unique in the conversation.
func legacyRequestID(t int) string { return LegacyIDPrefix + strconv.Itoa(t) }

// legacyCall turns a function_call into the tool call decodeCall reads.
func legacyCall(fc *wireFunctionArg) wireToolCall {
	return wireToolCall{Type: "function", Function: *fc}
}

// decodeFunctions reads the legacy "functions" of a request as tools.
func decodeFunctions(op string, fs []wireFunction) ([]core.ToolSpec, error) {
	var out []core.ToolSpec
	for i, f := range fs {
		if f.Name == "" {
			return nil, fieldError(op, pathf("functions[%d].name", i), fmt.Errorf("%w: function without a name", core.ErrMalformed))
		}
		out = append(out, core.ToolSpec{Name: f.Name, Description: f.Description, InputSchema: f.Parameters})
	}
	return out, nil
}

// decodeFunctionChoice reads the legacy "function_call" of a request:
// "auto", "none" or {"name": ...}.
func decodeFunctionChoice(raw json.RawMessage) (*core.ToolChoice, error) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
		}
		if s == "auto" || s == "none" {
			return &core.ToolChoice{Mode: core.ToolChoiceMode(s)}, nil
		}
		return nil, fmt.Errorf("%w: unknown function_call %q", core.ErrMalformed, s)
	}
	var o struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
	}
	if o.Name == "" {
		return nil, fmt.Errorf("%w: function_call object without name", core.ErrMalformed)
	}
	return &core.ToolChoice{Mode: core.ToolChoiceTool, Name: o.Name}, nil
}

// legacyPairing numbers the legacy calls of a request and gives each
// "function" message the id of the unanswered legacy call of the same name
// in the assistant message before it.
type legacyPairing struct {
	turn int
	// open maps a name to the ids of its unanswered legacy calls, oldest
	// first, of the last assistant message.
	open map[string][]string
}

func (l *legacyPairing) assistant(fc *wireFunctionArg) string {
	clear(l.open)
	if fc == nil {
		return ""
	}
	id := legacyRequestID(l.turn)
	l.turn++
	name := ""
	if fc.Name != nil {
		name = *fc.Name
	}
	if l.open == nil {
		l.open = map[string][]string{}
	}
	l.open[name] = append(l.open[name], id)
	return id
}

// result returns the call id for a function message of name, or "" when
// no legacy call of that name is open.
func (l *legacyPairing) result(name string) string {
	ids := l.open[name]
	if len(ids) == 0 {
		return ""
	}
	l.open[name] = ids[1:]
	return ids[0]
}

// decodeFunctionResult reads a legacy "function" message: the result of
// the legacy call of the same name in the assistant message before it.
func (c *Codec) decodeFunctionResult(op, path string, wm wireMessage, l *legacyPairing) (core.Message, error) {
	parts, err := decodeContent(op, wm.Content, path+".content")
	if err != nil {
		return core.Message{}, err
	}
	if wm.Name == "" {
		return core.Message{}, fieldError(op, path+".name", fmt.Errorf("%w: function message without the function's name", core.ErrMalformed))
	}
	id := l.result(wm.Name)
	if id == "" {
		return core.Message{}, fieldError(op, path+".name", fmt.Errorf("%w: function message for %q answers no function_call of the assistant message before it", core.ErrResultWithoutID, wm.Name))
	}
	if parts == nil {
		parts = []core.Part{}
	}
	r := core.Result{CallID: id, Name: wm.Name, Content: parts}
	return core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(r)}}, nil
}
