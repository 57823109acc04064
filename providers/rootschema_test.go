package providers_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// TestRootSchemaKeywords: which adapters refuse a tool whose schema holds a
// combining or value keyword at its top level, beside "type": "object", as
// their providers answer 400 (Anthropic: oneOf, allOf, anyOf; OpenAI: those
// and enum, const, not). The others send the schema, Gemini after its
// rewrite.
func TestRootSchemaKeywords(t *testing.T) {
	alts := `[{"required":["a"]},{"required":["b"]}]`
	schemas := map[string]string{
		"oneOf": `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":` + alts + `}`,
		"anyOf": `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":` + alts + `}`,
		"allOf": `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"required":["a"]}]}`,
		"enum":  `{"type":"object","properties":{"a":{"type":"string"}},"enum":[{"a":"x"}]}`,
		"const": `{"type":"object","properties":{"a":{"type":"string"}},"const":{"a":"x"}}`,
		"not":   `{"type":"object","properties":{"a":{"type":"string"}},"not":{"required":["a"]}}`,
	}
	openAI := []string{"openai-chat", "openai-responses"}
	want := map[string][]string{
		"oneOf": {"anthropic", "openai-chat", "openai-responses"},
		"anyOf": {"anthropic", "openai-chat", "openai-responses"},
		"allOf": {"anthropic", "openai-chat", "openai-responses"},
		"enum":  openAI,
		"const": openAI,
		"not":   openAI,
	}
	user := []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}
	got := map[string][]string{}
	for k, s := range schemas {
		for _, a := range providers.All() {
			_, err := a.EncodeRequest(&core.Request{Model: "m", Messages: user, Tools: []core.ToolSpec{{Name: "pick", InputSchema: json.RawMessage(s)}}})
			if err != nil {
				got[k] = append(got[k], a.Name())
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("adapters refusing each top-level keyword (-want +got):\n%s", diff)
	}
}
