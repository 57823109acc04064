package cohere

import (
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// shapes compares what the encoder writes with the recorded Cohere traffic.
var shapes = adaptertest.Shapes{Protocol: "cohere"}

// isV2Response tells a recorded v2 chat body from an error body, whose
// "message" is a string.
func isV2Response(m map[string]any) bool {
	_, ok := m["message"].(map[string]any)
	return ok && m["finish_reason"] != nil
}

// TestEncodeResponseShapeMatchesRecordings checks that every body
// EncodeResponse writes carries each key that every recorded v2 chat body
// carries, and each key of their usage objects (billed_units and tokens
// with input_tokens and output_tokens), with usage in the response or not:
// Portkey 1.15.2 refuses a Cohere body without "usage" as an invalid
// response.
func TestEncodeResponseShapeMatchesRecordings(t *testing.T) {
	call := core.CallPart(core.Call{ID: "get_weather_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)})
	tests := []struct {
		name string
		resp core.Response
	}{
		{"text, no usage", core.Response{ID: "a", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("Hi")}}, Finish: core.FinishStop}},
		{"text and two calls, no usage", core.Response{ID: "b", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("Checking."), call, call}}, Finish: core.FinishToolCalls}},
		{"plan and call, usage", core.Response{ID: "c", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartPlan, Text: "I will look."}, call}},
			Finish: core.FinishToolCalls, ProviderFinish: "TOOL_CALL", Usage: &core.Usage{InputTokens: 12, OutputTokens: 3}}},
		{"no parts, no usage", core.Response{ID: "d", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}, Finish: core.FinishLength}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := New().EncodeResponse(&tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			shapes.CheckBody(t, body, isV2Response)
			shapes.CheckBodyObject(t, body, isV2Response, "usage")
		})
	}
}
