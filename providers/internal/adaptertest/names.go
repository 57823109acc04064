package adaptertest

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// CheckToolNames checks E01 and E02 for an adapter that follows the common
// provider rule ^[a-zA-Z0-9_-]{1,64}$: a tool name outside it is refused by
// EncodeRequest before sending, with an error that starts with prefix, names
// the tool at field (such as "tools[1]" or "tools[1].name") and tools.NameMapper,
// and wraps a *core.NameError; valid names, digit-leading ones included
// (E03), are encoded.
func CheckToolNames(t *testing.T, a core.Adapter, prefix, field string) {
	t.Helper()
	long := strings.Repeat("a", 65)
	tests := []struct {
		name, tool string
		want       string // substring of the error; empty means encoded
	}{
		{"plain", "get_weather", ""},
		{"dash and digits", "fs-read-2", ""},
		{"digit first", "3d_render", ""},
		{"64 characters", long[:64], ""},
		{"E01 slash and space", "fs/read file", field + `: check tool name "fs/read file": character '/' at byte 2 not allowed`},
		{"E01 dot", "web.search", `check tool name "web.search": character '.' at byte 3`},
		{"E02 65 characters", long, `check tool name "` + long + `": 65 bytes long, more than 64`},
		{"empty", "", `check tool name "": empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &core.Request{
				Model:    "m",
				Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
				Tools:    []core.ToolSpec{{Name: "ok"}, {Name: tt.tool}},
			}
			body, err := a.EncodeRequest(req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid name refused: %v", err)
				}
				if !strings.Contains(string(body), `"`+tt.tool+`"`) {
					t.Errorf("body %s lacks the tool name", body)
				}
				return
			}
			if err == nil {
				t.Fatalf("encoded %s, which the provider rejects", body)
			}
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "NameMapper") {
				t.Errorf("error %q, want one starting %q, containing %q and naming NameMapper", err, prefix, tt.want)
			}
			var ne *core.NameError
			if !errors.As(err, &ne) || ne.Name != tt.tool || !errors.Is(err, core.ErrInvalidName) {
				t.Errorf("error %v is not a *core.NameError for %q", err, tt.tool)
			}
		})
	}
}
