package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// poster sends raw bodies for one scenario to a test server.
type poster struct {
	t        *testing.T
	ts       *httptest.Server
	name     string
	protocol string
}

// post sends body and returns the status and the body of the answer.
func (p poster) post(body string, stream bool) (int, []byte) {
	p.t.Helper()
	ep, err := providers.HTTP(p.protocol)
	if err != nil {
		p.t.Fatal(err)
	}
	req, err := http.NewRequest("POST", ep.URL(p.ts.URL, ep.DefaultModel, stream), strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set(ScenarioHeader, p.name)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// verdictRules returns the rules of the scenario's verdict, failing the
// test when no follow-up was graded.
func verdictRules(t *testing.T, s *Server, name string) []string {
	t.Helper()
	v, ok := s.Verdict(name)
	if !ok || !v.Graded {
		t.Fatalf("no graded verdict: %+v", v)
	}
	if v.Pass != (len(v.Problems) == 0 && len(v.Errors) == 0) {
		t.Errorf("pass %v with problems %v and errors %v", v.Pass, v.Problems, v.Errors)
	}
	return rules(v.Problems)
}

// TestResponsesStateful runs stateful follow-ups (previous_response_id) to
// an OpenAI Responses scenario, streamed and not: the stored response is
// expanded before grading (G08).
func TestResponsesStateful(t *testing.T) {
	const name = "openai-responses/recorded/fantasy__TestOpenAIResponsesCommon--openai-gpt-4o--multi_tool-0"
	a, err := providers.Lookup("openai-responses")
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			s, ts := newServer(t, Options{})
			p := poster{t: t, ts: ts, name: name, protocol: "openai-responses"}
			first := func(extra string) *core.Response {
				t.Helper()
				status, data := p.post(fmt.Sprintf(`{"model":"gpt-4o","stream":%v%s,"input":[{"role":"user","content":"weather?"}]}`, stream, extra), stream)
				if status != 200 {
					t.Fatalf("first request: status %d: %s", status, data)
				}
				var resp *core.Response
				if stream {
					resp, err = core.Collect(a.DecodeStream(bytes.NewReader(data)))
				} else {
					resp, err = a.DecodeResponse(data)
				}
				if err != nil || resp.ID == "" || len(resp.Calls()) != 2 {
					t.Fatalf("first response: id %q, %d calls, err %v: %s", resp.ID, len(resp.Calls()), err, data)
				}
				return resp
			}
			outputs := func(calls []core.Call) string {
				var items []string
				for _, c := range calls {
					items = append(items, fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":"sunny"}`, c.ID))
				}
				return strings.Join(items, ",")
			}
			resent := func(calls []core.Call) string {
				var items []string
				for _, c := range calls {
					items = append(items, fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q,"arguments":%q}`, c.ItemID, c.ID, c.Name, c.Arguments))
				}
				return strings.Join(items, ",")
			}
			followUp := func(prev, input string) (int, []byte) {
				return p.post(fmt.Sprintf(`{"model":"gpt-4o","stream":%v,"previous_response_id":%q,"input":[%s]}`, stream, prev, input), stream)
			}

			resp := first("")
			calls := resp.Calls()
			if status, data := followUp(resp.ID, outputs(calls)); status != 200 {
				t.Fatalf("stateful follow-up: status %d: %s", status, data)
			}
			if diff := cmp.Diff([]string(nil), verdictRules(t, s, name)); diff != "" {
				t.Errorf("stateful follow-up (-want +got):\n%s", diff)
			}

			// Only one output: the other call of the stored response is
			// left without one (G07), which only the expansion shows.
			followUp(resp.ID, outputs(calls[:1]))
			if diff := cmp.Diff([]string{"G07"}, verdictRules(t, s, name)); diff != "" {
				t.Errorf("one output missing (-want +got):\n%s", diff)
			}

			// The stored function_call items sent again: "Duplicate item".
			followUp(resp.ID, resent(calls)+","+outputs(calls))
			if diff := cmp.Diff([]string{"G08", "G08"}, verdictRules(t, s, name)); diff != "" {
				t.Errorf("items sent again (-want +got):\n%s", diff)
			}

			// An id this server never issued.
			status, data := followUp("resp_never_issued", outputs(calls))
			if status != 400 || !strings.Contains(string(data), "resp_never_issued") {
				t.Errorf("unknown id: status %d: %s", status, data)
			}
			v, _ := s.Verdict(name)
			if len(v.Problems) != 1 || v.Problems[0].Rule != "G08" || !strings.Contains(v.Problems[0].Message, `"resp_never_issued"`) {
				t.Errorf("unknown id: problems %v, want one G08 naming the id", v.Problems)
			}

			// A response created with store false is not kept.
			unstored := first(`,"store":false`)
			followUp(unstored.ID, outputs(unstored.Calls()))
			v, _ = s.Verdict(name)
			if len(v.Problems) != 1 || v.Problems[0].Rule != "G08" || !strings.Contains(v.Problems[0].Message, "store false") {
				t.Errorf("store false: problems %v, want one G08 about store false", v.Problems)
			}

			// Stateless replay of the whole conversation still passes.
			resp = first("")
			p.post(fmt.Sprintf(`{"model":"gpt-4o","stream":%v,"input":[{"role":"user","content":"weather?"},%s,%s]}`, stream, resent(resp.Calls()), outputs(resp.Calls())), stream)
			if diff := cmp.Diff([]string(nil), verdictRules(t, s, name)); diff != "" {
				t.Errorf("stateless replay (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFollowUpWireRules sends follow-ups that break a rule only the wire
// form shows, and the same follow-ups without the fault.
func TestFollowUpWireRules(t *testing.T) {
	t.Run("anthropic G11", func(t *testing.T) {
		const name = "anthropic/streaming/A19-interleaved-content-blocks"
		s, ts := newServer(t, Options{})
		p := poster{t: t, ts: ts, name: name, protocol: "anthropic"}
		status, data := p.post(`{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, false)
		if status != 200 {
			t.Fatalf("first: status %d: %s", status, data)
		}
		var first struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(data, &first); err != nil {
			t.Fatal(err)
		}
		var uses, results []string
		for _, b := range first.Content {
			var blk struct{ Type, ID string }
			json.Unmarshal(b, &blk)
			if blk.Type == "tool_use" {
				uses = append(uses, string(b))
				results = append(results, fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":"ok"}`, blk.ID))
			}
		}
		followUp := func(lead string) {
			body := fmt.Sprintf(`{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[%s%s]},{"role":"user","content":[%s]}]}`,
				lead, strings.Join(uses, ","), strings.Join(results, ","))
			if status, data := p.post(body, false); status != 200 {
				t.Fatalf("follow-up: status %d: %s", status, data)
			}
		}
		followUp(`{"type":"text","text":"Let me check."},`)
		if diff := cmp.Diff([]string(nil), verdictRules(t, s, name)); diff != "" {
			t.Errorf("text beside tool_use (-want +got):\n%s", diff)
		}
		followUp(`{"type":"text","text":""},`)
		if diff := cmp.Diff([]string{"G11"}, verdictRules(t, s, name)); diff != "" {
			t.Errorf("empty text beside tool_use (-want +got):\n%s", diff)
		}
	})

	t.Run("bedrock G15", func(t *testing.T) {
		const name = "bedrock/response/D07-text-and-two-calls"
		s, ts := newServer(t, Options{})
		p := poster{t: t, ts: ts, name: name, protocol: "bedrock"}
		status, data := p.post(`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`, false)
		if status != 200 {
			t.Fatalf("first: status %d: %s", status, data)
		}
		var first struct {
			Output struct {
				Message struct {
					Content []json.RawMessage `json:"content"`
				} `json:"message"`
			} `json:"output"`
		}
		if err := json.Unmarshal(data, &first); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, b := range first.Output.Message.Content {
			var blk struct {
				ToolUse *struct {
					ToolUseID string `json:"toolUseId"`
				} `json:"toolUse"`
			}
			json.Unmarshal(b, &blk)
			if blk.ToolUse != nil {
				ids = append(ids, blk.ToolUse.ToolUseID)
			}
		}
		if len(ids) != 2 {
			t.Fatalf("first: %d toolUse blocks, want 2: %s", len(ids), data)
		}
		assistant, _ := json.Marshal(first.Output.Message.Content)
		followUp := func(content string) (int, []byte) {
			var res []string
			for _, id := range ids {
				res = append(res, fmt.Sprintf(`{"toolResult":{"toolUseId":%q,"content":%s}}`, id, content))
			}
			return p.post(fmt.Sprintf(`{"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":%s},{"role":"user","content":[%s]}]}`, assistant, strings.Join(res, ",")), false)
		}
		if status, data := followUp(`[{"text":"ok"}]`); status != 200 {
			t.Fatalf("good follow-up: status %d: %s", status, data)
		}
		if diff := cmp.Diff([]string(nil), verdictRules(t, s, name)); diff != "" {
			t.Errorf("results as lists of blocks (-want +got):\n%s", diff)
		}
		// The adapter cannot decode a result whose content is a string; the
		// request is refused and still graded.
		if status, data := followUp(`"ok"`); status != 400 {
			t.Fatalf("string results: status %d, want 400: %s", status, data)
		}
		if diff := cmp.Diff([]string{"G15", "G15"}, verdictRules(t, s, name)); diff != "" {
			t.Errorf("results as strings (-want +got):\n%s", diff)
		}
	})

	t.Run("deepseek G14", func(t *testing.T) {
		const name = "openai-chat/recorded/vercel-ai__deepseek-tool-call.json-0"
		s, ts := newServer(t, Options{})
		p := poster{t: t, ts: ts, name: name, protocol: "openai-chat"}
		status, data := p.post(`{"model":"deepseek-reasoner","messages":[{"role":"user","content":"weather?"}]}`, false)
		if status != 200 {
			t.Fatalf("first: status %d: %s", status, data)
		}
		var first struct {
			Choices []struct {
				Message map[string]json.RawMessage `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &first); err != nil || len(first.Choices) != 1 || first.Choices[0].Message["reasoning_content"] == nil {
			t.Fatalf("first: want one choice with reasoning_content (%v): %s", err, data)
		}
		msg := first.Choices[0].Message
		var calls []struct{ ID string }
		json.Unmarshal(msg["tool_calls"], &calls)
		followUp := func(m map[string]json.RawMessage) {
			am, _ := json.Marshal(m)
			var tools []string
			for _, c := range calls {
				tools = append(tools, fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":"sunny"}`, c.ID))
			}
			if status, data := p.post(fmt.Sprintf(`{"model":"deepseek-reasoner","messages":[{"role":"user","content":"weather?"},%s,%s]}`, am, strings.Join(tools, ",")), false); status != 200 {
				t.Fatalf("follow-up: status %d: %s", status, data)
			}
		}
		followUp(msg)
		if diff := cmp.Diff([]string(nil), verdictRules(t, s, name)); diff != "" {
			t.Errorf("reasoning_content sent back (-want +got):\n%s", diff)
		}
		delete(msg, "reasoning_content")
		followUp(msg)
		if diff := cmp.Diff([]string{"G14"}, verdictRules(t, s, name)); diff != "" {
			t.Errorf("reasoning_content dropped (-want +got):\n%s", diff)
		}
	})
}

// TestResponsesKeptLimit checks that responses past the limit are not kept,
// with a note, and that naming one says why it is unknown.
func TestResponsesKeptLimit(t *testing.T) {
	const name = "openai-responses/recorded/fantasy__TestOpenAIResponsesCommon--openai-gpt-4o--tool-0"
	s, ts := newServer(t, Options{})
	s.maxKept = 1
	s.responses["resp_earlier"] = storedResponse{name: name} // the store is full
	p := poster{t: t, ts: ts, name: name, protocol: "openai-responses"}
	status, data := p.post(`{"model":"gpt-4o","input":"weather?"}`, false)
	var r struct{ ID string }
	if status != 200 || json.Unmarshal(data, &r) != nil || r.ID == "" {
		t.Fatalf("first request: status %d: %s", status, data)
	}
	v, _ := s.Verdict(name)
	if len(v.Notes) != 1 || !strings.Contains(v.Notes[0], r.ID+" not kept") {
		t.Errorf("notes %q, want one saying %s was not kept", v.Notes, r.ID)
	}
	status, data = p.post(fmt.Sprintf(`{"model":"gpt-4o","previous_response_id":%q,"input":[{"type":"function_call_output","call_id":"x","output":"ok"}]}`, r.ID), false)
	if status != 400 {
		t.Fatalf("follow-up to a response not kept: status %d: %s", status, data)
	}
	v, _ = s.Verdict(name)
	if len(v.Problems) != 1 || v.Problems[0].Rule != "G08" || !strings.Contains(v.Problems[0].Message, "limit of 1") {
		t.Errorf("problems %v, want one G08 naming the limit", v.Problems)
	}
}

// TestFirstRequestWireRules checks that a request that is no follow-up but
// breaks a wire rule is refused, as the API refuses it, and graded.
func TestFirstRequestWireRules(t *testing.T) {
	tests := []struct {
		name, protocol, body string
		want                 []string
	}{
		{"cohere/recorded/vercel-ai__cohere-tool-call.json-0", "cohere", `{"model":"command-r","message":"weather?","chat_history":[]}`, []string{"G16", "G16"}},
		{"bedrock/response/D07-text-and-two-calls", "bedrock", `{"messages":[{"role":"user","content":[{"text":" "}]}]}`, []string{"G11"}},
	}
	for _, tt := range tests {
		t.Run(tt.protocol, func(t *testing.T) {
			s, ts := newServer(t, Options{})
			p := poster{t: t, ts: ts, name: tt.name, protocol: tt.protocol}
			if status, data := p.post(tt.body, false); status != 400 {
				t.Errorf("status %d, want 400: %s", status, data)
			}
			if diff := cmp.Diff(tt.want, verdictRules(t, s, tt.name)); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if v, _ := s.Verdict(tt.name); v.Served != 0 {
				t.Errorf("served %d responses to a refused request", v.Served)
			}
		})
	}
}

// TestSignedThinkingOnlyWhenEnabled sends back the calls of a scenario
// served with signed thinking, without the thinking: the API requires the
// echo only when thinking is enabled (G12), so the follow-up passes
// unless its body turns thinking on. The first request enables thinking:
// without it the API sends no thinking block, and the scenario is not
// applicable.
func TestSignedThinkingOnlyWhenEnabled(t *testing.T) {
	const name = "anthropic/streaming/G12-thinking-then-tool-use"
	const enabled = `"thinking":{"type":"enabled","budget_tokens":1024},`
	for _, tt := range []struct {
		thinking string
		want     []string
	}{
		{``, nil},
		{`"thinking":{"type":"disabled"},`, nil},
		{enabled, []string{"G12"}},
	} {
		s, ts := newServer(t, Options{})
		p := poster{t: t, ts: ts, name: name, protocol: "anthropic"}
		first := `{"model":"m","max_tokens":2048,` + tt.thinking + `"messages":[{"role":"user","content":"hi"}]}`
		status, data := p.post(first, false)
		if v, _ := s.Verdict(name); tt.thinking != enabled && (status != 400 || v.NotApplicable == "") {
			t.Errorf("first request with thinking %q: status %d, not applicable %q; want 400, not applicable", tt.thinking, status, v.NotApplicable)
		}
		first = `{"model":"m","max_tokens":2048,` + enabled + `"messages":[{"role":"user","content":"hi"}]}`
		status, data = p.post(first, false)
		if status != 200 {
			t.Fatalf("first: status %d: %s", status, data)
		}
		var resp struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(data, &resp); err != nil {
			t.Fatal(err)
		}
		var uses, results []string
		for _, b := range resp.Content {
			var blk struct{ Type, ID string }
			json.Unmarshal(b, &blk)
			if blk.Type == "tool_use" {
				uses = append(uses, string(b))
				results = append(results, fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":"ok"}`, blk.ID))
			}
		}
		if len(uses) == 0 {
			t.Fatalf("no tool_use served: %s", data)
		}
		body := `{"model":"m","max_tokens":2048,` + tt.thinking + `"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[` +
			strings.Join(uses, ",") + `]},{"role":"user","content":[` + strings.Join(results, ",") + `]}]}`
		if status, data := p.post(body, false); status != 200 {
			t.Fatalf("follow-up: status %d: %s", status, data)
		}
		if diff := cmp.Diff(tt.want, verdictRules(t, s, name)); diff != "" {
			t.Errorf("thinking %q (-want +got):\n%s", tt.thinking, diff)
		}
	}
}

// TestThinkingEnabled reads the request option that makes signed thinking
// due, for each protocol that has one.
func TestThinkingEnabled(t *testing.T) {
	for _, tt := range []struct {
		protocol, body string
		want           bool
	}{
		{"anthropic", `{"messages":[]}`, false},
		{"anthropic", `{"thinking":{"type":"enabled","budget_tokens":1024}}`, true},
		{"anthropic", `{"thinking":{"type":"adaptive"}}`, true},
		{"anthropic", `{"thinking":{"type":"disabled"}}`, false},
		{"bedrock", `{"messages":[]}`, false},
		{"bedrock", `{"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}}}`, true},
		{"bedrock", `{"additionalModelRequestFields":{"reasoning_config":{"type":"enabled"}}}`, true},
		{"bedrock", `{"additionalModelRequestFields":{"top_k":5}}`, false},
	} {
		if got := descriptor(tt.protocol).Grading.ThinkingEnabled([]byte(tt.body)); got != tt.want {
			t.Errorf("%s %s: %v, want %v", tt.protocol, tt.body, got, tt.want)
		}
	}
}
