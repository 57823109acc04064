package agent_test

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
)

// resultsIn returns the tool results a decoded follow-up request carries
// for the model's last turn, with the ids of that turn's calls: native
// results as result parts, text-mode results as <tool_result> blocks.
func lastResults(t *testing.T, mode agent.Mode, req *core.Request) (callIDs []string, results []core.Result) {
	t.Helper()
	msgs := req.Messages
	last := -1
	for i, m := range msgs {
		if m.Role == core.RoleAssistant {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("follow-up request has no assistant turn: %+v", msgs)
	}
	for _, c := range msgs[last].Calls() {
		callIDs = append(callIDs, c.ID)
	}
	for _, m := range msgs[last+1:] {
		results = append(results, m.Results()...)
		if mode != agent.ModeNative {
			results = append(results, parseResultBlocks(m.Text())...)
		}
	}
	return callIDs, results
}

// parseResultBlocks reads <tool_result id=".." tool=".." [error="true"]>…
// blocks back.
func parseResultBlocks(s string) []core.Result {
	var out []core.Result
	for {
		i := strings.Index(s, "<tool_result ")
		if i < 0 {
			return out
		}
		s = s[i:]
		end := strings.Index(s, "</tool_result>")
		gt := strings.IndexByte(s, '>')
		if end < 0 || gt < 0 {
			return out
		}
		head, body := s[:gt], s[gt+1:end]
		var r core.Result
		fmt.Sscanf(strings.SplitN(head, "id=", 2)[1], "%q", &r.CallID)
		fmt.Sscanf(strings.SplitN(head, "tool=", 2)[1], "%q", &r.Name)
		r.IsError = strings.Contains(head, `error="true"`)
		r.Content = []core.Part{core.TextPart(body)}
		out = append(out, r)
		s = s[end:]
	}
}

// TestLoopEndToEnd runs the loop over real HTTP against a fake provider for
// every protocol, every mode, streamed and not: a call that fails
// validation, the corrected call, then the answer. It checks the answer,
// the tool runs, and what the provider received on each follow-up: the
// results of the previous turn's calls, under their ids.
func TestLoopEndToEnd(t *testing.T) {
	for _, name := range providers.Names() {
		for _, mode := range agent.Modes {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/stream=%v", name, mode, stream), func(t *testing.T) {
					testEndToEnd(t, name, mode, stream)
				})
			}
		}
	}
}

func testEndToEnd(t *testing.T, protocol string, mode agent.Mode, stream bool) {
	adapter, err := providers.Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	turns := []turn{
		{text: "Let me look.", calls: []core.Call{{ID: "callAAAA1", Name: "get_weather", Arguments: json.RawMessage(`{"town":"Paris"}`)}}},
		{calls: []core.Call{{ID: "callBBBB2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
		{text: "It is 21 C in Paris."},
	}
	srv := fakeprovider.New(adapter, scriptedFor(protocol, mode, turns)...)
	defer srv.Close()
	loop := &agent.Loop{
		Adapter:  adapter,
		Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: srv.Client()},
		Registry: f.reg,
		Model:    "fake-model",
		Mode:     mode,
		Stream:   stream,
	}
	out, err := loop.Run(context.Background(), []core.Message{user("Weather in Paris?")})
	if err != nil {
		var b strings.Builder
		out.Trace.Write(&b)
		t.Fatalf("Run: %v\ntrace:\n%s", err, b.String())
	}
	if out.Answer != "It is 21 C in Paris." {
		t.Errorf("answer = %q", out.Answer)
	}
	if got := f.weather.Load(); got != 1 {
		t.Errorf("get_weather ran %d times, want 1 (the invalid call must not run)", got)
	}
	got := srv.Received()
	if len(got) != 3 {
		t.Fatalf("provider received %d requests, want 3", len(got))
	}
	for i, r := range got {
		if r.Err != nil {
			t.Fatalf("request %d: provider could not decode it: %v", i+1, r.Err)
		}
		if r.Stream != stream {
			t.Errorf("request %d: stream = %v, want %v (path %s)", i+1, r.Stream, stream, r.Path)
		}
		checkModeShape(t, protocol, mode, i+1, r.Request)
	}
	// Follow-up 1: an error result for the invalid call, under its id.
	ids, results := lastResults(t, mode, got[1].Request)
	if len(results) != 1 || results[0].IsError != carriesIsError(adapter, mode) || !strings.Contains(results[0].Text(), "/city: missing") {
		t.Fatalf("request 2: want one error result naming the missing city, got %+v", results)
	}
	wantID := "call_1_1"
	if mode == agent.ModeNative {
		wantID = out.Messages[1].Calls()[0].ID
		if cmp.Diff([]string{wantID}, ids) != "" {
			t.Errorf("request 2: assistant call ids %v, want [%s]", ids, wantID)
		}
	}
	if results[0].CallID != wantID {
		t.Errorf("request 2: result call id %q, want %q", results[0].CallID, wantID)
	}
	// Follow-up 2: the weather, under the second call's id.
	_, results = lastResults(t, mode, got[2].Request)
	if len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Text(), `"temp_c":21`) {
		t.Fatalf("request 3: want one result with the weather, got %+v", results)
	}
	wantID = "call_2_1"
	if mode == agent.ModeNative {
		wantID = out.Messages[3].Calls()[0].ID
	}
	if results[0].CallID != wantID {
		t.Errorf("request 3: result call id %q, want %q", results[0].CallID, wantID)
	}
	wantKinds := []agent.EntryKind{
		agent.KindRequest, agent.KindResponse, agent.KindCall, agent.KindResult,
		agent.KindRequest, agent.KindResponse, agent.KindCall, agent.KindResult,
		agent.KindRequest, agent.KindResponse, agent.KindAnswer,
	}
	if diff := cmp.Diff(wantKinds, out.Trace.Kinds()); diff != "" {
		t.Errorf("trace kinds (-want +got):\n%s", diff)
	}
}

// carriesIsError reports whether the adapter's requests keep a result's
// error flag (Chat Completions, for one, has no place for it); text modes
// always carry it in the <tool_result> block.
func carriesIsError(a core.Adapter, mode agent.Mode) bool {
	if mode != agent.ModeNative {
		return true
	}
	req := &core.Request{Model: "fake-model", Messages: []core.Message{
		user("x"),
		{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "callAAAA1", Name: "f", Arguments: json.RawMessage("{}")})}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "callAAAA1", Name: "f", IsError: true, Content: []core.Part{core.TextPart("bad")}})}},
	}}
	b, err := a.EncodeRequest(req)
	if err != nil {
		return false
	}
	back, err := a.DecodeRequest(b)
	if err != nil || len(back.Messages) < 3 {
		return false
	}
	rs := back.Messages[len(back.Messages)-1].Results()
	return len(rs) == 1 && rs[0].IsError
}

// checkModeShape checks that a request, as the provider decoded it, offers
// the tools the mode's way.
func checkModeShape(t *testing.T, protocol string, mode agent.Mode, n int, req *core.Request) {
	t.Helper()
	switch mode {
	case agent.ModeNative:
		if len(req.Tools) != 2 {
			t.Errorf("request %d: %d tools, want 2 native tools", n, len(req.Tools))
		}
	case agent.ModeStructured:
		if structuredViaTool[protocol] {
			// The step schema travels as the one tool's input schema, and
			// the tool choice forces that tool.
			if len(req.Tools) != 1 || req.Tools[0].Name != agent.StepSchemaName || !strings.Contains(string(req.Tools[0].InputSchema), `"anyOf"`) {
				t.Errorf("request %d: tools %+v, want the one step tool %q with the step schema", n, req.Tools, agent.StepSchemaName)
			}
			if want := (&core.ToolChoice{Mode: core.ToolChoiceTool, Name: agent.StepSchemaName}); !cmp.Equal(want, req.ToolChoice) {
				t.Errorf("request %d: tool choice %+v, want %+v", n, req.ToolChoice, want)
			}
			if req.ResponseFormat != nil {
				t.Errorf("request %d: response format %+v on a protocol without one", n, req.ResponseFormat)
			}
			return
		}
		if len(req.Tools) != 0 {
			t.Errorf("request %d: %d native tools, want none", n, len(req.Tools))
		}
		if req.ResponseFormat == nil || !strings.Contains(string(req.ResponseFormat.Schema), `"anyOf"`) {
			t.Errorf("request %d: response format %+v, want the step schema", n, req.ResponseFormat)
		}
	default:
		if len(req.Tools) != 0 || req.ResponseFormat != nil {
			t.Errorf("request %d: tools %d, response format %v; want neither", n, len(req.Tools), req.ResponseFormat)
		}
		if !strings.Contains(req.Messages[0].Text(), "<tool_call>") {
			t.Errorf("request %d: system prompt does not explain the call form: %q", n, req.Messages[0].Text())
		}
	}
}
