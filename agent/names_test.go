package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/agent/fakeprovider"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/tools"
)

// TestLoopWireNames: a registry name the provider's rules refuse travels
// under its mapped name (tools/names) and the provider's call to the
// mapped name runs the registry's tool. "get-weather" passes OpenAI's rule
// and is sent as it is; Cohere allows no dash, so it becomes "get_weather",
// and neither Gemini nor Cohere a leading digit, so "3d_render" becomes
// "_3d_render". Both adapters refuse the registry's name (E03), so a loop
// that sent it unmapped would fail.
func TestLoopWireNames(t *testing.T) {
	tests := []struct {
		protocol, tool, wire string
	}{
		{"openai-chat", "get-weather", "get-weather"},
		{"cohere", "get-weather", "get_weather"},
		{"gemini", "3d_render", "_3d_render"},
		{"cohere", "3d_render", "_3d_render"},
	}
	for _, tt := range tests {
		t.Run(tt.protocol+" "+tt.tool, func(t *testing.T) {
			adapter, err := providers.Lookup(tt.protocol)
			if err != nil {
				t.Fatal(err)
			}
			var ran atomic.Int32
			tool, err := tools.NewRawTool(tt.tool, "a tool", json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
				func(context.Context, json.RawMessage) (json.RawMessage, error) {
					ran.Add(1)
					return json.RawMessage(`{"ok":true}`), nil
				}, tools.WithRisk(tools.RiskReadOnly))
			if err != nil {
				t.Fatal(err)
			}
			reg := tools.NewRegistry()
			if err := reg.Add(tool); err != nil {
				t.Fatal(err)
			}
			call := core.Response{ID: "r1", Model: "m", Finish: core.FinishToolCalls, Message: core.Message{Role: core.RoleAssistant,
				Parts: []core.Part{core.CallPart(core.Call{ID: "call_1", Name: tt.wire, Arguments: json.RawMessage(`{"q":"x"}`)})}}}
			answer := core.Response{ID: "r2", Model: "m", Finish: core.FinishStop, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("done")}}}
			srv := fakeprovider.New(adapter, call, answer)
			defer srv.Close()
			loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: srv.Client()}, Registry: reg, Model: "m", Mode: agent.ModeNative}
			out, err := loop.Run(context.Background(), []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}})
			if err != nil {
				var b strings.Builder
				out.Trace.Write(&b)
				t.Fatalf("Run: %v\n%s", err, b.String())
			}
			if ran.Load() != 1 {
				t.Errorf("tool ran %d times, want 1", ran.Load())
			}
			got := srv.Received()
			if len(got) != 2 {
				t.Fatalf("provider received %d requests, want 2", len(got))
			}
			var sent, history []string
			for _, r := range got {
				if r.Err != nil {
					t.Fatal(r.Err)
				}
				for _, s := range r.Request.Tools {
					sent = append(sent, s.Name)
				}
			}
			for _, m := range got[1].Request.Messages {
				for _, c := range m.Calls() {
					history = append(history, c.Name)
				}
			}
			if diff := cmp.Diff([]string{tt.wire, tt.wire}, sent); diff != "" {
				t.Errorf("tool names sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tt.wire}, history); diff != "" {
				t.Errorf("call names in the follow-up's history (-want +got):\n%s", diff)
			}
			if c := out.Messages[1].Calls(); len(c) != 1 || c[0].Name != tt.tool {
				t.Errorf("call in the conversation: %+v, want it under the registry's name %q", c, tt.tool)
			}
		})
	}
}
