package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/agent/fakeprovider"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/tools"
)

// TestAgentLoop runs the agent loop, over real HTTP, against a fake
// provider of every protocol, streamed and not, with the tools of the
// stdio test server: the model calls two of them in one turn, the calls
// reach the server, and the server's answers go back to the provider in
// the follow-up request under the calls' ids.
func TestAgentLoop(t *testing.T) {
	s := connectStdio(t)
	ts, err := s.Tools(context.Background(), tools.WithNameMapper(tools.NewNameMapper()))
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, tool := range ts {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, protocol := range providers.Names() {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", protocol, stream), func(t *testing.T) {
				adapter, err := providers.Lookup(protocol)
				if err != nil {
					t.Fatal(err)
				}
				calls := []core.Call{
					{ID: "call_echo_1", Name: "local_echo", Arguments: json.RawMessage(`{"text":"ping"}`)},
					{ID: "call_read_2", Name: "local_files_read", Arguments: json.RawMessage(`{"path":"notes.txt"}`)},
				}
				turn1 := core.Response{ID: "r1", Model: "fake-model", Finish: core.FinishToolCalls, Message: core.Message{Role: core.RoleAssistant}}
				for _, c := range calls {
					turn1.Message.Parts = append(turn1.Message.Parts, core.CallPart(c))
				}
				turn2 := core.Response{ID: "r2", Model: "fake-model", Finish: core.FinishStop, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("Done.")}}}
				fake := fakeprovider.New(adapter, turn1, turn2)
				defer fake.Close()
				var approved []string
				loop := &agent.Loop{
					Adapter:  adapter,
					Endpoint: agent.Endpoint{BaseURL: fake.URL, Client: fake.Client()},
					Registry: reg,
					Model:    "fake-model",
					Mode:     agent.ModeNative,
					Stream:   stream,
					Approve: func(_ context.Context, c core.Call, _ tools.Risk) (bool, error) {
						approved = append(approved, c.Name)
						return true, nil
					},
				}
				out, err := loop.Run(context.Background(), []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Read notes.txt")}}})
				if err != nil {
					var b strings.Builder
					out.Trace.Write(&b)
					t.Fatalf("Run: %v\ntrace:\n%s", err, b.String())
				}
				if out.Answer != "Done." {
					t.Errorf("answer = %q, want Done.", out.Answer)
				}
				if diff := cmp.Diff([]string{"local_files_read"}, approved); diff != "" {
					t.Errorf("approvals asked (-want +got), the read-only echo needs none:\n%s", diff)
				}
				got := fake.Received()
				if len(got) != 2 {
					t.Fatalf("provider received %d requests, want 2", len(got))
				}
				if got[1].Err != nil {
					t.Fatalf("follow-up request: %v", got[1].Err)
				}
				var results []string
				for _, m := range got[1].Request.Messages {
					for _, r := range m.Results() {
						results = append(results, fmt.Sprintf("%s error=%v %s", r.CallID, r.IsError, r.Text()))
					}
				}
				want := []string{
					`call_echo_1 error=false {"echo":{"text":"ping"}}`,
					`call_read_2 error=false contents of notes.txt`,
				}
				if diff := cmp.Diff(want, results); diff != "" {
					t.Errorf("tool results in the follow-up request (-want +got):\n%s", diff)
				}
			})
		}
	}
}
