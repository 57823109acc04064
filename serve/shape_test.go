package serve

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// TestGradeBody checks each wire-form rule on a good follow-up and on one
// that breaks it; a broken one must name the rule and the JSON path.
func TestGradeBody(t *testing.T) {
	const (
		antUse    = `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}}`
		antResult = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}`
		cvResult  = `{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"ok"}]}}]}`
		chatCall  = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	)
	ant := func(blocks string) string {
		return `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[` + blocks + `]},` + antResult + `]}`
	}
	cv := func(blocks, extra string) string {
		return `{"messages":[{"role":"user","content":[{"text":"go"}]},{"role":"assistant","content":[` + blocks + `]},` + cvResult + `]` + extra + `}`
	}
	chat := func(content string) string {
		return `{"model":"m","messages":[{"role":"user","content":"go"},` + chatCall + `,{"role":"tool","tool_call_id":"call_1","content":` + content + `}]}`
	}
	tests := []struct {
		desc     string
		protocol string
		body     string
		want     []string
		path     string // in the first problem's message
	}{
		{"anthropic: text beside tool_use", "anthropic", ant(`{"type":"text","text":"Let me look."},` + antUse), nil, ""},
		{"anthropic: empty text beside tool_use", "anthropic", ant(`{"type":"text","text":""},` + antUse), []string{"G11"}, "messages[1].content[0]"},
		{"anthropic: white-space text beside tool_use", "anthropic", ant(antUse + `,{"type":"text","text":" \n"}`), []string{"G11"}, "messages[1].content[1]: white-space-only"},
		{"anthropic: string content is not a block", "anthropic", `{"messages":[{"role":"user","content":""}]}`, nil, ""},
		{"bedrock invoke: empty text beside tool_use", "bedrock", `{"anthropic_version":"bedrock-2023-05-31","max_tokens":9,"messages":[{"role":"assistant","content":[{"type":"text","text":""},` + antUse + `]}]}`, []string{"G11"}, "messages[0].content[0]"},
		{"bedrock: good follow-up", "bedrock", cv(`{"text":"Looking."},{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}`, `,"toolConfig":{"tools":[],"toolChoice":{"auto":{}}}`), nil, ""},
		{"bedrock: blank text", "bedrock", cv(`{"text":""},{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}`, ""), []string{"G11"}, "messages[1].content[0].text"},
		{"bedrock: no-arg toolUse without input", "bedrock", cv(`{"toolUse":{"toolUseId":"t1","name":"f"}}`, ""), []string{"G15"}, "messages[1].content[0].toolUse.input: missing"},
		{"bedrock: null input", "bedrock", cv(`{"toolUse":{"toolUseId":"t1","name":"f","input":null}}`, ""), []string{"G15"}, "messages[1].content[0].toolUse.input: null"},
		{"bedrock: input as a JSON string", "bedrock", cv(`{"toolUse":{"toolUseId":"t1","name":"f","input":"{}"}}`, ""), []string{"G15"}, "is not a JSON object"},
		{"bedrock: result in the assistant turn", "bedrock", `{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"f","input":{}}},{"toolResult":{"toolUseId":"t1","content":[{"text":"ok"}]}}]}]}`, []string{"G15"}, "messages[0].content[1].toolResult"},
		{"bedrock: result content as a string", "bedrock", `{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":"ok"}}]}]}`, []string{"G15"}, "messages[0].content[0].toolResult.content: must be a list of content blocks, got a string"},
		{"bedrock: none tool choice", "bedrock", cv(`{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}`, `,"toolConfig":{"tools":[],"toolChoice":{"none":{}}}`), []string{"G15"}, "toolConfig.toolChoice.none"},
		{"chat: string result", "openai-chat", chat(`"sunny"`), nil, ""},
		{"chat: JSON text that is not parts", "openai-chat", chat(`"[{\"city\":\"Oslo\"}]"`), nil, ""},
		{"chat: list of parts", "openai-chat", chat(`[{"type":"text","text":"sunny"}]`), nil, ""},
		{"chat: parts serialised into the text", "openai-chat", chat(`"[{\"type\":\"text\",\"text\":\"sunny\"}]"`), []string{"G10"}, "messages[2].content"},
		{"mistral: parts serialised into the text", "mistral", chat(`"[{\"type\":\"text\",\"text\":\"sunny\"}]"`), []string{"G10"}, "messages[2].content"},
		{"ollama: string result", "ollama", chat(`"sunny"`), nil, ""},
		{"ollama: list of parts", "ollama", chat(`[{"type":"text","text":"sunny"}]`), []string{"G10"}, "messages[2].content: a list of parts"},
		{"cohere: good follow-up", "cohere", `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","tool_plan":"p","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"document","document":{"data":{"t":1}}}]}]}`, nil, ""},
		{"cohere: v1 tool_results", "cohere", `{"model":"m","message":"","chat_history":[],"tool_results":[{"call":{"name":"f","parameters":{}},"outputs":[{"t":1}]}]}`, []string{"G16", "G16", "G16"}, "message: a Cohere v1 field"},
		{"cohere: v1 roles", "cohere", `{"model":"m","messages":[{"role":"USER","content":"go"},{"role":"CHATBOT","content":"ok"}]}`, []string{"G16", "G16"}, "messages[0].role"},
		{"cohere: content objects serialised into a string", "cohere", `{"model":"m","messages":[{"role":"tool","tool_call_id":"c1","content":"[{\"type\":\"document\",\"document\":{\"data\":{\"t\":1}}}]"}]}`, []string{"G16"}, "messages[0].content"},
		{"cohere: JSON object string is the documented form", "cohere", `{"model":"m","messages":[{"role":"tool","tool_call_id":"c1","content":"{\"t\":1}"}]}`, nil, ""},
		{"not JSON", "anthropic", `{"messages":[`, nil, ""},
		{"a protocol without wire rules", "gemini", `{"contents":[]}`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got := GradeBody(tt.protocol, []byte(tt.body))
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Fatalf("rules (-want +got):\n%s\nproblems: %v", diff, got)
			}
			if tt.path != "" && !strings.Contains(got[0].Message, tt.path) {
				t.Errorf("problem %q does not name %q", got[0].Message, tt.path)
			}
		})
	}
}

// wireRules are the rules GradeBody may report.
var wireRules = map[string]bool{"G10": true, "G11": true, "G15": true, "G16": true}

// FuzzGradeBody reads arbitrary bodies as each protocol's follow-up: no
// panic, and every problem names one of the wire rules with a message. The
// seeds are request bodies recorded from the real APIs and known-bad ones.
func FuzzGradeBody(f *testing.F) {
	for _, p := range []string{"anthropic", "bedrock", "openai-chat", "cohere", "mistral"} {
		names, err := cassettes.Glob(p)
		if err != nil {
			f.Fatal(err)
		}
		for i, n := range names {
			if i >= 4 {
				break
			}
			c, err := cassettes.Load(n)
			if err != nil {
				continue
			}
			for _, in := range c.Interactions {
				f.Add(in.Request.Body)
			}
		}
	}
	f.Add(`{"messages":[{"role":"assistant","content":[{"type":"text","text":" "},{"type":"tool_use","id":"t","name":"f","input":{}}]}]}`)
	f.Add(`{"anthropic_version":"x","messages":[{"role":"assistant","content":[{"type":"text","text":""}]}]}`)
	f.Add(`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"f","input":[1]}},{"toolResult":{"content":{}}}]}],"toolConfig":{"toolChoice":{"none":{}}}}`)
	f.Add(`{"messages":[{"role":"tool","tool_call_id":"c","content":"[{\"type\":\"text\",\"text\":\"x\"}]"},{"role":"tool","content":[{"type":"text","text":"x"}]}]}`)
	f.Add(`{"message":"hi","tool_results":[],"messages":[{"role":"TOOL","content":"[{\"type\":\"document\",\"document\":{}}]"}]}`)
	f.Add(`{"messages":[{"role":"tool","content":"[{\"type\":\"text\"}]"}]}`)
	f.Add(`{"messages":null}`)
	f.Add("\x00[")
	protocols := providers.Names()
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range protocols {
			for _, pr := range GradeBody(p, []byte(body)) {
				if !wireRules[pr.Rule] || pr.Message == "" {
					t.Fatalf("%s: problem %+v", p, pr)
				}
			}
		}
	})
}

// TestGradeBodyPassesAdapterFollowUps checks, for random tool turns, that
// the follow-up conform's own adapters write breaks no wire rule: the
// adapters leave out empty text (G11), write Converse's shapes (G15) and
// send results as content, not as JSON text (G10, G16).
func TestGradeBodyPassesAdapterFollowUps(t *testing.T) {
	protocols := []string{"anthropic", "bedrock", "openai-chat", "mistral", "ollama", "cohere"}
	rapid.Check(t, func(t *rapid.T) {
		// Never white space alone: the anthropic and bedrock adapters
		// send such text as it is, which both APIs refuse (reported).
		word := rapid.StringMatching(`([a-z][a-z ]{0,11})?`)
		n := rapid.IntRange(1, 3).Draw(t, "calls")
		asst := core.Message{Role: core.RoleAssistant}
		if rapid.Bool().Draw(t, "lead") {
			asst.Parts = append(asst.Parts, core.TextPart(word.Draw(t, "lead text")))
		}
		results := core.Message{Role: core.RoleTool}
		for i := range n {
			args := "{}"
			if rapid.Bool().Draw(t, "args") {
				args = fmt.Sprintf(`{"q":%q}`, word.Draw(t, "arg"))
			}
			id := fmt.Sprintf("call%d", i)
			asst.Parts = append(asst.Parts, core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(args)}))
			results.Parts = append(results.Parts, core.ResultPart(core.Result{CallID: id, Name: "f", Content: []core.Part{core.TextPart(word.Draw(t, "result"))}}))
		}
		req := &core.Request{
			Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}, asst, results},
			Tools:    []core.ToolSpec{{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		}
		for _, p := range protocols {
			a, err := providers.Lookup(p)
			if err != nil {
				t.Fatal(err)
			}
			body, err := a.EncodeRequest(req)
			if err != nil {
				t.Fatalf("%s: encode: %v", p, err)
			}
			if got := GradeBody(p, body); got != nil {
				t.Fatalf("%s: problems %v in the adapter's follow-up %s", p, got, body)
			}
		}
	})
}

// TestGradeBodyAcceptsRecordedRequests reads every request recorded from
// a real API that answered it 200: the API accepted it, so no wire rule
// may fault it. This guards the rules against false alarms.
func TestGradeBodyAcceptsRecordedRequests(t *testing.T) {
	checked := 0
	for _, protocol := range []string{"anthropic", "bedrock", "openai-chat", "cohere", "mistral"} {
		names, err := cassettes.Glob(protocol)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			c, err := cassettes.Load(n)
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			for i, in := range c.Interactions {
				route, ok := providers.MatchPath(urlPath(in.Request.URL))
				if !ok || in.Response.Code != 200 || !slices.Contains(route.Protocols, protocol) {
					continue
				}
				checked++
				if got := GradeBody(protocol, []byte(in.Request.Body)); got != nil {
					t.Errorf("%s interaction %d (%s): problems %v in a request the API accepted", n, i, protocol, got)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d recorded requests checked; want the corpus (50+)", checked)
	}
	t.Logf("%d recorded requests checked", checked)
}

// urlPath returns the path of a recorded URL, "" when it does not parse.
func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}
