package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// TestCarriesResponseFormat checks the probe that picks the step-tool form
// of ModeStructured: every protocol but Bedrock Converse has a place for a
// response format.
func TestCarriesResponseFormat(t *testing.T) {
	got := map[string]bool{}
	for _, name := range providers.Names() {
		a, err := providers.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if !carriesResponseFormat(a) {
			got[name] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"bedrock": true}, got); diff != "" {
		t.Errorf("protocols without a response format (-want +got):\n%s", diff)
	}
}

func TestStepToolRequest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"step":{"anyOf":[]}},"required":["step"]}`)
	yes := true
	req := &core.Request{Model: "m", Tools: []core.ToolSpec{{Name: "get_weather"}}, ParallelToolCalls: &yes,
		ResponseFormat: &core.ResponseFormat{Name: StepSchemaName, Schema: schema, Strict: true}}
	got := stepToolRequest(req)
	want := &core.Request{Model: "m",
		Tools:      []core.ToolSpec{{Name: StepSchemaName, Description: "Write your next step: a tool call, the answer or a scratchpad.", InputSchema: schema}},
		ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceTool, Name: StepSchemaName}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if req.ResponseFormat == nil || len(req.Tools) != 1 || req.Tools[0].Name != "get_weather" {
		t.Errorf("the request given was changed: %+v", req)
	}
}

func TestStepToolResponse(t *testing.T) {
	step := `{"step":{"tool":"get_weather","arguments":{"city":"Oslo"}}}`
	thinking := core.Part{Kind: core.PartThinking, Text: "weather first", Signature: "sig"}
	tests := []struct {
		name string
		in   core.Response
		want core.Response
	}{
		{
			name: "step call becomes the step text, thinking kept, prose dropped",
			in: core.Response{Finish: core.FinishToolCalls, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
				thinking, core.TextPart("I will look."), core.CallPart(core.Call{ID: "t1", Name: StepSchemaName, Arguments: json.RawMessage(step)}),
			}}},
			want: core.Response{Finish: core.FinishStop, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
				thinking, core.TextPart(step),
			}}},
		},
		{
			name: "text step is left as it is",
			in:   core.Response{Finish: core.FinishStop, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(step)}}},
			want: core.Response{Finish: core.FinishStop, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(step)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stepToolResponse(&tt.in)
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			ex, err := structured{}.Extract(&core.Request{}, got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]core.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}}, ex.Calls); diff != "" {
				t.Errorf("extracted calls (-want +got):\n%s", diff)
			}
		})
	}
}
