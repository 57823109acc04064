package adaptertest

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// CheckToolNames checks E01, E02 and E03 against the rules a declares
// (ToolNameRules): EncodeRequest encodes a name the rules allow unchanged
// and refuses one they do not, before sending, with an error that starts
// with prefix, names the tool at field (such as "tools[1]" or
// "tools[1].name"), the rule's pattern and tools.NameMapper, and wraps a
// *core.NameError. Whether a digit-leading name, a dash, a dot or a colon
// is allowed is read from the rule's fields (LetterFirst, Extra), so each
// adapter is held to its own provider's rule (E03: a digit-leading name is
// refused only where the provider refuses it).
func CheckToolNames(t *testing.T, a core.NameRuler, prefix, field string) {
	t.Helper()
	rules := a.ToolNameRules()
	if rules.Source == "" || rules.Pattern == "" || rules.MaxLen == 0 {
		t.Fatalf("rules %+v lack a pattern, a length or a source", rules)
	}
	long := strings.Repeat("a", 65)
	allowIf := func(ok bool, reason string) string {
		if ok {
			return ""
		}
		return reason
	}
	extra := func(c byte) bool { return strings.IndexByte(rules.Extra, c) >= 0 }
	tests := []struct {
		name, tool string
		want       string // substring of the error; empty means encoded
	}{
		{"plain", "get_weather", ""},
		{"underscore first", "_3d_render", ""},
		{"64 characters", long[:64], ""},
		{"E03 digit first", "3d_render", allowIf(!rules.LetterFirst, `check tool name "3d_render": starts with '3', not a letter or '_'`)},
		{"dash", "fs-read-2", allowIf(extra('-'), `check tool name "fs-read-2": character '-' at byte 2 not allowed`)},
		{"dot", "web.search", allowIf(extra('.'), `check tool name "web.search": character '.' at byte 3 not allowed`)},
		{"colon", "fs:read", allowIf(extra(':'), `check tool name "fs:read": character ':' at byte 2 not allowed`)},
		{"E01 slash and space", "fs/read file", field + `: check tool name "fs/read file": character '/' at byte 2 not allowed`},
		{"E01 non-ASCII", "café", `check tool name "café": character 'é' at byte 3 not allowed`},
		{"E02 65 characters", long, `check tool name "` + long + `": 65 bytes long, more than 64`},
		{"empty", "", `check tool name "": empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ruleErr := rules.Check(tt.tool); (ruleErr == nil) != (tt.want == "") {
				t.Fatalf("the declared rule and this table disagree on %q: rules.Check = %v", tt.tool, ruleErr)
			}
			req := &core.Request{
				Model:    "m",
				Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
				Tools:    []core.ToolSpec{{Name: "ok"}, {Name: tt.tool}},
			}
			body, err := a.EncodeRequest(req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("name the rules allow refused: %v", err)
				}
				if !strings.Contains(string(body), `"`+tt.tool+`"`) {
					t.Errorf("body %s lacks the tool name", body)
				}
				return
			}
			if err == nil {
				t.Fatalf("encoded %s, which the provider refuses (%s)", body, rules.Source)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tt.want) || !strings.Contains(msg, rules.Pattern) || !strings.Contains(msg, "NameMapper") {
				t.Errorf("error %q, want one starting %q, containing %q, the pattern %s and naming NameMapper", err, prefix, tt.want, rules.Pattern)
			}
			var ne *core.NameError
			if !errors.As(err, &ne) || ne.Name != tt.tool || !errors.Is(err, core.ErrInvalidName) {
				t.Errorf("error %v is not a *core.NameError for %q", err, tt.tool)
			}
		})
	}
}
