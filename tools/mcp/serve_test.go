package mcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
	"github.com/toolconform/conform/tools"
)

// mcpScenario is a case for conform serve whose response calls two tools
// of the stdio test server, under the names tools.NameMapper gives them.
const mcpScenario = `The model calls two tools imported from an MCP server.

severity: MUST
guards: D07
protocols: *
kind: response
-- canonical-response.json --
{
 "message":{"role":"assistant","parts":[
  {"kind":"tool_call","call":{"id":"call_echo_1","name":"local_echo","arguments":{"text":"ping"}}},
  {"kind":"tool_call","call":{"id":"call_read_2","name":"local_files_read","arguments":{"path":"notes.txt"}}}
 ]},
 "finish_reason":"tool_calls"
}
-- want/calls.json --
[
 {"id":"call_echo_1","name":"local_echo","arguments":{"text":"ping"}},
 {"id":"call_read_2","name":"local_files_read","arguments":{"path":"notes.txt"}}
]
`

// TestAgentLoopServe runs the agent loop against conform serve, the fake
// provider of the command line, for every protocol, streamed and not,
// with the tools imported from the stdio test server: serve answers with
// the scenario's two calls, the loop runs them on the MCP server, and
// serve grades the follow-up (results paired with the calls, in order)
// and answers. The MCP server's answers are checked in the conversation.
func TestAgentLoopServe(t *testing.T) {
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
	sc, err := scenarios.Parse("any/response/mcp-two-calls", "mcp-two-calls.txtar", []byte(mcpScenario), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, protocol := range providers.Names() {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", protocol, stream), func(t *testing.T) {
				adapter, err := providers.Lookup(protocol)
				if err != nil {
					t.Fatal(err)
				}
				name := sc.NameFor(protocol)
				srv, err := serve.New(serve.Options{Scenarios: []*scenarios.Scenario{sc}, Scenario: name})
				if err != nil {
					t.Fatal(err)
				}
				ts := httptest.NewServer(srv)
				defer ts.Close()
				loop := &agent.Loop{
					Adapter:  adapter,
					Endpoint: agent.Endpoint{BaseURL: ts.URL, Client: ts.Client()},
					Registry: reg,
					Model:    "fake-model",
					Mode:     agent.ModeNative,
					Stream:   stream,
					Approve:  func(context.Context, core.Call, tools.Risk) (bool, error) { return true, nil },
				}
				out, err := loop.Run(context.Background(), []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Read notes.txt")}}})
				if err != nil {
					var b strings.Builder
					out.Trace.Write(&b)
					t.Fatalf("Run: %v\ntrace:\n%s", err, b.String())
				}
				if out.Answer != serve.DefaultAnswer {
					t.Errorf("answer = %q, want serve's %q", out.Answer, serve.DefaultAnswer)
				}
				v, _ := srv.Verdict(name)
				if !v.Graded || !v.Pass {
					t.Errorf("serve's verdict on the follow-up: graded %v, pass %v, problems %v, errors %v", v.Graded, v.Pass, v.Problems, v.Errors)
				}
				// The ids are the ones the adapter decoded (Gemini, Ollama and
				// Mistral make their own), so results are matched with the
				// calls of the assistant turn.
				var calls, results []string
				for _, m := range out.Messages {
					for _, c := range m.Calls() {
						calls = append(calls, c.ID+" "+c.Name)
					}
					for _, r := range m.Results() {
						results = append(results, fmt.Sprintf("%s %s error=%v %s", r.CallID, r.Name, r.IsError, r.Text()))
					}
				}
				if len(calls) != 2 {
					t.Fatalf("calls in the conversation: %q, want the scenario's two", calls)
				}
				want := []string{
					calls[0] + ` error=false {"echo":{"text":"ping"}}`,
					calls[1] + ` error=false contents of notes.txt`,
				}
				if diff := cmp.Diff(want, results); diff != "" {
					t.Errorf("tool results sent back (-want +got):\n%s", diff)
				}
			})
		}
	}
}
