package ollama

import (
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestEncodeRequestKeepsAnyToolName: Ollama sets no rule for tool names, so
// the encoder sends names its declared mapping rule would rename as given,
// as the API takes them.
func TestEncodeRequestKeepsAnyToolName(t *testing.T) {
	for _, name := range []string{"web.search", "fs/read file", strings.Repeat("a", 65)} {
		if New().ToolNameRules().Check(name) == nil {
			t.Fatalf("%q passes the declared rule; the case checks nothing", name)
		}
		req := &core.Request{Model: "m", Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
			Tools: []core.ToolSpec{{Name: name}}}
		body, err := New().EncodeRequest(req)
		if err != nil {
			t.Fatalf("EncodeRequest refused %q: %v", name, err)
		}
		if !strings.Contains(string(body), `"name":"`+name+`"`) {
			t.Errorf("body %s lacks the name %q", body, name)
		}
	}
}
