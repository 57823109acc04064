package wire

import (
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/toolconform/conform/core"
)

var errMalformed = errors.New("malformed")

func TestJSONError(t *testing.T) {
	var v struct {
		A struct {
			B int `json:"b"`
		} `json:"a"`
	}
	synErr := json.Unmarshal([]byte(`{"a": }`), &v)
	typeErr := json.Unmarshal([]byte(`{"a": {"b": "x"}}`), &v)
	tests := []struct {
		name string
		err  error
		want string
		off  int64
		path string
	}{
		{"syntax", synErr, "p: decode: at byte 16: at messages[0]: malformed: invalid character '}' looking for beginning of value", 16, "messages[0]"},
		{"type", typeErr, "p: decode: at byte 25: at messages[0].a.b: malformed: json: cannot unmarshal string into Go struct field .a.b of type int", 25, "messages[0].a.b"},
		{"other", errors.New("boom"), "p: decode: at messages[0]: malformed: boom", -1, "messages[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			de := JSONError("p", "decode", 10, "messages[0]", tt.err)
			if !errors.Is(de, core.ErrMalformed) {
				t.Errorf("%v does not wrap the malformed sentinel", de)
			}
			if de.Offset != tt.off || de.Path != tt.path {
				t.Errorf("offset, path = %d, %q; want %d, %q", de.Offset, de.Path, tt.off, tt.path)
			}
			if tt.name != "type" && de.Error() != tt.want { // the type error's text is encoding/json's own
				t.Errorf("error = %q, want %q", de.Error(), tt.want)
			}
		})
	}
	// A sub-value whose place in the body is unknown (base -1) gives no
	// offset rather than one counted from the wrong start.
	for _, err := range []error{synErr, typeErr} {
		if de := JSONError("p", "decode", -1, "x", err); de.Offset != -1 {
			t.Errorf("JSONError(base -1, %v).Offset = %d, want -1", err, de.Offset)
		}
	}
}

func TestDecodeErrorText(t *testing.T) {
	tests := []struct {
		err  *DecodeError
		want string
	}{
		{&DecodeError{Protocol: "gemini", Op: "decode stream", Offset: 12, Err: errMalformed}, "gemini: decode stream: at byte 12: malformed"},
		{&DecodeError{Protocol: "ollama", Op: "decode request", Offset: -1, Path: "messages[1].tool_calls[0]", Err: errMalformed}, "ollama: decode request: at messages[1].tool_calls[0]: malformed"},
		{&DecodeError{Protocol: "bedrock", Op: "decode stream", Offset: 0, Event: "contentBlockDelta", Err: errMalformed}, "bedrock: decode stream: at byte 0 (contentBlockDelta): malformed"},
		{&DecodeError{Protocol: "cohere", Op: "decode response", Offset: 82, Path: "usage.tokens", Err: errMalformed}, "cohere: decode response: at byte 82: at usage.tokens: malformed"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, errMalformed) {
			t.Errorf("%v does not unwrap to its cause", tt.err)
		}
	}
}

// TestStrictUnmarshal: the place and error of every way a body can fail,
// and the messages WrapJSONError makes of them.
func TestStrictUnmarshal(t *testing.T) {
	type body struct {
		A struct {
			B int `json:"b"`
		} `json:"a"`
	}
	tests := []struct {
		in      string
		offset  int64
		field   string
		err     string
		wrapped string
	}{
		{in: `{"a":{"b":1}}`},
		{in: " {\"a\":{\"b\":1}} \n"},
		{in: `{"a":{"b":}}`, offset: 10, err: "malformed: invalid character '}' looking for beginning of value", wrapped: "malformed data at byte 10: invalid character '}' looking for beginning of value"},
		{in: `{"a":{"b":"x"}}`, offset: 13, field: "a.b", err: "malformed: json: cannot unmarshal string into Go struct field .a.b of type int", wrapped: "malformed data field a.b at byte 13: json: cannot unmarshal string into Go struct field .a.b of type int"},
		{in: `{"a":`, err: "malformed: unexpected end of JSON input: unexpected EOF"},
		{in: ``, err: "malformed: unexpected end of JSON input: unexpected EOF"},
		{in: "{} \n {}", offset: 5, err: "malformed: unexpected data after the JSON value"},
		{in: `x`, offset: 0, err: "malformed: invalid character 'x' looking for beginning of value", wrapped: "malformed data at byte 0: invalid character 'x' looking for beginning of value"},
	}
	for _, tt := range tests {
		var v body
		off, field, err := StrictUnmarshal([]byte(tt.in), &v)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if off != tt.offset || field != tt.field || gotErr != tt.err || (err != nil) != errors.Is(err, core.ErrMalformed) {
			t.Errorf("StrictUnmarshal(%q) = %d, %q, %q; want %d, %q, %q", tt.in, off, field, gotErr, tt.offset, tt.field, tt.err)
		}
		if tt.wrapped == "" {
			continue
		}
		raw := json.Unmarshal([]byte(tt.in), &v)
		w := WrapJSONError("data", raw)
		if w.Error() != tt.wrapped || !errors.Is(w, raw) || !errors.Is(w, core.ErrMalformed) {
			t.Errorf("WrapJSONError(%q) = %q, want %q wrapping %v", tt.in, w, tt.wrapped, raw)
		}
	}
	if got, want := WrapJSONError("payload", io.EOF).Error(), "malformed payload: EOF"; got != want {
		t.Errorf("WrapJSONError(io.EOF) = %q, want %q", got, want)
	}
	if !errors.Is(mustErr(StrictUnmarshal([]byte(`{"a":`), new(body))), io.ErrUnexpectedEOF) {
		t.Error("a truncated body's error does not wrap io.ErrUnexpectedEOF")
	}
}

func mustErr(_ int64, _ string, err error) error { return err }

func TestPartKindsCheck(t *testing.T) {
	kinds := PartKinds{
		core.RoleUser:      {core.PartText},
		core.RoleAssistant: {core.PartText, core.PartToolCall},
		core.RoleTool:      {core.PartToolResult},
	}
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}
	tests := []struct {
		name string
		msgs []core.Message
		want string // "" for no error
	}{
		{"all carried", []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("a"), core.CallPart(core.Call{ID: "c"})}}}, ""},
		{"role not listed is left to the encoder", []core.Message{user, {Role: "wizard", Parts: []core.Part{{Kind: core.PartPlan}}}}, ""},
		{"kind without a place", []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("a"), {Kind: core.PartPlan, Text: "p"}}}},
			"p: encode request: at messages[1].parts[1].kind: not supported by the protocol: plan part in assistant message"},
		{"unknown kind", []core.Message{{Role: core.RoleUser, Parts: []core.Part{{Kind: "bogus"}}}},
			`p: encode request: at messages[0].parts[0].kind: not supported by the protocol: unknown part kind "bogus" in user message`},
		{"result content that is not text", []core.Message{{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "c", Content: []core.Part{core.TextPart("r"), {Kind: core.PartThinking}}})}}},
			"p: encode request: at messages[0].parts[0].result.content[1].kind: not supported by the protocol: thinking part in a tool result, which carries text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := kinds.Check("p: encode request", tt.msgs)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			var de *DecodeError
			if !errors.Is(err, core.ErrUnsupported) || !errors.As(err, &de) || err.Error() != tt.want {
				t.Errorf("Check:\n got %v\nwant %s (a *DecodeError wrapping core.ErrUnsupported)", err, tt.want)
			}
		})
	}
	err := kinds.CheckResponse("p: encode response", []core.Part{core.TextPart("a"), {Kind: core.PartToolResult}})
	if want := "p: encode response: at message.parts[1].kind: not supported by the protocol: tool_result part in assistant message"; !errors.Is(err, core.ErrUnsupported) || err == nil || err.Error() != want {
		t.Errorf("CheckResponse:\n got %v\nwant %s", err, want)
	}
}
