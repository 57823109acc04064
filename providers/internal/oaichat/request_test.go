package oaichat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestEncodeRequestStrictErrorNamesTool checks that a strict schema the
// encoder cannot rewrite (H03) is refused with an error that names the
// tool by index and by name, then the schema pointer, and that wraps both
// the *StrictSchemaError and its sentinel.
func TestEncodeRequestStrictErrorNamesTool(t *testing.T) {
	good := core.ToolSpec{Name: "ok", Strict: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}
	tests := []struct {
		name        string
		dialect     string
		tools       []core.ToolSpec
		wantPrefix  string
		wantPath    string
		wantPointer string
	}{
		{
			name:        "untyped property of the second tool",
			dialect:     "openai-chat",
			tools:       []core.ToolSpec{good, {Name: "echo", Strict: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{}}}`)}},
			wantPrefix:  `openai-chat: encode request: at tools[1] "echo": strict schema: #/properties/x: `,
			wantPath:    `tools[1] "echo"`,
			wantPointer: "/properties/x",
		},
		{
			name:        "root anyOf of the first tool, Mistral dialect",
			dialect:     "mistral",
			tools:       []core.ToolSpec{{Name: "pick-one", Strict: true, InputSchema: json.RawMessage(`{"anyOf":[{"type":"object","properties":{}},{"type":"null"}]}`)}, good},
			wantPrefix:  `mistral: encode request: at tools[0] "pick-one": strict schema: #: `,
			wantPath:    `tools[0] "pick-one"`,
			wantPointer: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &core.Request{Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}, Tools: tt.tools}
			out, err := New(Config{Name: tt.dialect}).EncodeRequest(req)
			if err == nil {
				t.Fatalf("encoded %s, want an error", out)
			}
			if !strings.HasPrefix(err.Error(), tt.wantPrefix) {
				t.Errorf("error %q, want it to start with %q", err, tt.wantPrefix)
			}
			var e *DecodeError
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			var se *StrictSchemaError
			if !errors.As(err, &se) || !errors.Is(err, core.ErrUnsupported) {
				t.Fatalf("error %v does not wrap a *StrictSchemaError and core.ErrUnsupported", err)
			}
			got := []string{e.Path, se.Pointer}
			if diff := cmp.Diff([]string{tt.wantPath, tt.wantPointer}, got); diff != "" {
				t.Errorf("path and pointer (-want +got):\n%s", diff)
			}
		})
	}
}
