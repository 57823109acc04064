package gateway

import (
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestSameSchema compares schemas by what they accept: empty properties,
// required and $defs are absent, at any depth; anything else that differs
// is a different schema.
func TestSameSchema(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"type":"object"}`, `{"type":"object","properties":{},"required":[]}`, true},
		{`{"type":"object"}`, `{"type":"object","properties":{},"required":[],"$defs":{}}`, true},
		{`{"type":"object","properties":{"a":{"type":"object"}}}`, `{"type":"object","properties":{"a":{"type":"object","properties":{}}},"required":[]}`, true},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object"}}}}`, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","required":[]}}}}`, true},
		{`{"anyOf":[{"type":"object"}]}`, `{"anyOf":[{"type":"object","definitions":{}}]}`, true},
		{`{"type":"object"}`, `{"type":"object","required":["a"]}`, false},
		{`{"type":"object"}`, `{"type":"object","additionalProperties":false}`, false},
		{`{"type":"object","properties":{"a":{}}}`, `{"type":"object"}`, false},
		// a property named like a keyword is a property, not a keyword
		{`{"type":"object","properties":{"required":{"type":"string"}}}`, `{"type":"object","properties":{"required":{"type":"string"}},"required":[]}`, true},
		{`not json`, `not json`, true},
		{`not json`, `{}`, false},
	} {
		if got := sameSchema(json.RawMessage(tt.a), json.RawMessage(tt.b)); got != tt.want {
			t.Errorf("sameSchema(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestEffectiveToolChoice reads an absent tool choice as auto, the
// default of every API with tools, and leaves any other alone.
func TestEffectiveToolChoice(t *testing.T) {
	tools := []core.ToolSpec{{Name: "f"}}
	auto := core.ToolChoice{Mode: core.ToolChoiceAuto}
	if got := effectiveToolChoice(&core.Request{Tools: tools}); got == nil || *got != auto {
		t.Errorf("absent with tools: %v, want auto", got)
	}
	if got := effectiveToolChoice(&core.Request{}); got != nil {
		t.Errorf("absent without tools: %v, want nil", got)
	}
	none := &core.ToolChoice{Mode: core.ToolChoiceNone}
	if got := effectiveToolChoice(&core.Request{Tools: tools, ToolChoice: none}); got != none {
		t.Errorf("none: %v", got)
	}
}
