package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

func call(id, name, args string) core.Call {
	return core.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func result(id string) core.Part {
	return core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart("ok")}})
}

func assistant(parts ...core.Part) core.Message {
	return core.Message{Role: core.RoleAssistant, Parts: parts}
}

func tool(parts ...core.Part) core.Message { return core.Message{Role: core.RoleTool, Parts: parts} }

var user = core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}

func rules(ps []scenarios.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Rule)
	}
	return out
}

// TestGrade checks each rule of Grade on a hand-made follow-up.
func TestGrade(t *testing.T) {
	a := call("call_a", "get_weather", `{"city":"Oslo"}`)
	b := call("call_b", "get_weather", `{"city":"Rome"}`)
	two := &core.Response{Message: assistant(core.CallPart(a), core.CallPart(b))}
	signed := &core.Response{Message: assistant(core.Part{Kind: core.PartThinking, Text: "hmm", Signature: "sig1"}, core.CallPart(a))}
	sigCall := a
	sigCall.Signature = "ts1"
	gemSigned := &core.Response{Message: assistant(core.CallPart(sigCall))}
	cut := &core.Response{Message: assistant(core.CallPart(a)), Incomplete: []core.Call{{ID: "call_b", Name: "get_weather"}}}
	gen := &core.Response{Message: assistant(core.CallPart(call("gemini_call_0", "f", `{}`)))}
	thinking := core.Part{Kind: core.PartThinking, Text: "the user wants Oslo"}
	reasoned := &core.Response{Model: "deepseek-reasoner", Message: assistant(thinking, core.CallPart(a))}
	reasonedTwo := &core.Response{Model: "DeepSeek-V3.2", Message: assistant(thinking, core.CallPart(a), core.CallPart(b))}
	reasonedKimi := &core.Response{Model: "moonshotai/kimi-k2.5-0127", Message: assistant(thinking, core.CallPart(a))}
	plan := core.Part{Kind: core.PartPlan, Text: "I will look up the weather in Oslo."}
	planned := &core.Response{Message: assistant(plan, core.CallPart(a))}

	tests := []struct {
		desc     string
		protocol string
		served   *core.Response
		msgs     []core.Message
		want     []string
	}{
		{"all good", "anthropic", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_b"))}, nil},
		{"key order and spacing of arguments do not matter", "openai-chat", two,
			[]core.Message{user, assistant(core.CallPart(call("call_a", "get_weather", `{ "city" : "Oslo" }`)), core.CallPart(b)), tool(result("call_a")), tool(result("call_b"))}, nil},
		{"results in completion order, strict protocol", "anthropic", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_b"), result("call_a"))}, []string{"G05"}},
		{"results in completion order, chat completions allows it", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_b")), tool(result("call_a"))}, nil},
		{"missing result, anthropic", "anthropic", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"))}, []string{"G01"}},
		{"missing result, chat completions", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"))}, []string{"G03"}},
		{"missing result, gemini", "gemini", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_b"))}, []string{"G04"}},
		{"missing result, responses", "openai-responses", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"))}, []string{"G07"}},
		{"duplicate result", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_a"), result("call_b"))}, []string{"G03"}},
		{"no assistant turn", "anthropic", two, []core.Message{user, tool(result("call_a"), result("call_b"))}, []string{"G02"}},
		{"orphan result", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_b"), result("call_x"))}, []string{"G02"}},
		{"result without id", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_b"), result(""))}, []string{"G06"}},
		{"call dropped from the turn", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, []string{"G02"}},
		{"arguments changed", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(call("call_b", "get_weather", `{"city":"Roma"}`))), tool(result("call_a"), result("call_b"))}, []string{"G09"}},
		{"call renamed", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(call("call_b", "get_weather2", `{"city":"Rome"}`))), tool(result("call_a"), result("call_b"))}, []string{"E01"}},
		{"id rewritten", "openai-chat", two, []core.Message{user, assistant(core.CallPart(call("x1", "get_weather", `{"city":"Oslo"}`)), core.CallPart(b)), tool(result("x1"), result("call_b"))}, []string{"D02"}},
		{"id translated for mistral", "mistral", two, []core.Message{user, assistant(core.CallPart(call("abcDEF123", "get_weather", `{"city":"Oslo"}`)), core.CallPart(b)), tool(result("abcDEF123"), result("call_b"))}, nil},
		{"extra call", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b), core.CallPart(call("call_c", "f", `{}`))), tool(result("call_a"), result("call_b"), result("call_c"))}, []string{"G09", "G02"}},
		{"result not in the next message, anthropic", "anthropic", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a")), tool(result("call_b"))}, []string{"G01"}},
		{"signed thinking dropped", "anthropic", signed, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, []string{"G12"}},
		{"signed thinking kept", "anthropic", signed, []core.Message{user, assistant(core.Part{Kind: core.PartThinking, Text: "hmm", Signature: "sig1"}, core.CallPart(a)), tool(result("call_a"))}, nil},
		{"thought signature dropped", "gemini", gemSigned, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, []string{"G13"}},
		{"cut-off call was run", "anthropic", cut, []core.Message{user, assistant(core.CallPart(a), core.CallPart(call("call_b", "get_weather", `{"ci`))), tool(result("call_a"), result("call_b"))}, []string{"B09", "G09", "G02"}},
		{"responses pairs each call with its output", "openai-responses", two, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a")), assistant(core.CallPart(b)), tool(result("call_b"))}, nil},
		{"an earlier round before the last user message is not graded", "openai-chat", two,
			[]core.Message{user, assistant(core.CallPart(call("old", "f", `{}`))), tool(result("old")), user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_b"))}, nil},
		{"reasoning_content sent back", "openai-chat", reasoned, []core.Message{user, assistant(thinking, core.CallPart(a)), tool(result("call_a"))}, nil},
		{"reasoning_content dropped", "openai-chat", reasoned, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, []string{"G14"}},
		{"reasoning_content dropped on a second message of the round", "openai-chat", reasonedTwo,
			[]core.Message{user, assistant(thinking, core.CallPart(a)), tool(result("call_a")), assistant(core.CallPart(b)), tool(result("call_b"))}, []string{"G14"}},
		{"reasoning_content not needed by a model served where it is not required", "openai-chat", reasonedKimi, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, nil},
		{"reasoning_content needed by chat completions only", "mistral", reasoned, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, nil},
		{"no reasoning served, none needed", "openai-chat", two, []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_b"))}, nil},
		{"tool_plan sent back as tool_plan", "cohere", planned, []core.Message{user, assistant(plan, core.CallPart(a)), tool(result("call_a"))}, nil},
		{"tool_plan sent back as answer text", "cohere", planned, []core.Message{user, assistant(core.TextPart(plan.Text), core.CallPart(a)), tool(result("call_a"))}, []string{"G16"}},
		{"tool_plan left out", "cohere", planned, []core.Message{user, assistant(core.CallPart(a)), tool(result("call_a"))}, nil},
		{"an earlier tool round of the same turn is not graded", "openai-chat", two,
			[]core.Message{user, assistant(core.CallPart(call("old", "f", `{}`))), tool(result("old")), assistant(core.CallPart(a), core.CallPart(b)), tool(result("call_a"), result("call_b"))}, nil},
		{"an earlier round still counts when the served calls are missing", "openai-chat", two,
			[]core.Message{user, assistant(core.CallPart(call("old", "f", `{}`))), tool(result("old"))}, []string{"G02", "G02", "G09", "G02"}},
		{"generated ids paired by position", "gemini", gen, []core.Message{user, assistant(core.CallPart(call("gemini_call_0_0", "f", `{}`))), tool(result("gemini_call_0_0"))}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got := Grade(tt.protocol, tt.served, &core.Request{Messages: tt.msgs})
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Errorf("rules (-want +got):\n%s\nproblems: %v", diff, got)
			}
		})
	}
}

// TestGradeInventedIDs checks the pairing rules for calls whose ids
// conform made up (D03: the provider sent none): the client's own ids
// stand for them, as long as each call has its own and each result names
// the call it answers.
func TestGradeInventedIDs(t *testing.T) {
	a := call("tool_0_0", "get_weather", `{"city":"Oslo"}`)
	b := call("tool_0_1", "get_weather", `{"city":"Bergen"}`)
	served := &core.Response{Message: assistant(core.CallPart(a), core.CallPart(b))}
	invented := map[string]bool{"tool_0_0": true, "tool_0_1": true}
	own := func(id string, c core.Call) core.Part { c.ID = id; return core.CallPart(c) }
	tests := []struct {
		desc     string
		protocol string
		msgs     []core.Message
		want     []string
	}{
		{"conform's ids sent back", "openai-chat", []core.Message{user, assistant(core.CallPart(a), core.CallPart(b)), tool(result("tool_0_0")), tool(result("tool_0_1"))}, nil},
		{"the client's own distinct ids", "openai-chat", []core.Message{user, assistant(own("call_x", a), own("call_y", b)), tool(result("call_x")), tool(result("call_y"))}, nil},
		{"the client's own ids, results in completion order", "openai-chat", []core.Message{user, assistant(own("call_x", a), own("call_y", b)), tool(result("call_y")), tool(result("call_x"))}, nil},
		{"the client's own ids, calls in another order", "openai-chat", []core.Message{user, assistant(own("call_y", b), own("call_x", a)), tool(result("call_x")), tool(result("call_y"))}, nil},
		{"one id for both calls", "openai-chat", []core.Message{user, assistant(own("call_x", a), own("call_x", b)), tool(result("call_x")), tool(result("call_x"))}, []string{"D06", "G03", "G03"}},
		{"a result naming no call", "openai-chat", []core.Message{user, assistant(own("call_x", a), own("call_y", b)), tool(result("call_x")), tool(result("call_z"))}, []string{"G02", "G03"}},
		{"a result missing", "anthropic", []core.Message{user, assistant(own("toolu_x", a), own("toolu_y", b)), tool(result("toolu_x"))}, []string{"G01"}},
		{"a result before its call", "anthropic", []core.Message{user, tool(result("toolu_x")), assistant(own("toolu_x", a), own("toolu_y", b)), tool(result("toolu_y"))}, []string{"G02", "G01"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got := GradeInvented(tt.protocol, served, &core.Request{Messages: tt.msgs}, invented)
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Errorf("rules (-want +got):\n%s\nproblems: %v", diff, got)
			}
		})
	}
}

// recordedFaults are the recorded follow-ups that break a rule although
// the API answered them 200: a real client fault the API tolerates.
var recordedFaults = map[string][]string{
	// langchaingo sent the call's arguments back as "" (G09).
	"openai-chat/langchaingo__TestOpenAIFunctionsAgentWithHTTPRR.httprr.yaml#1": {"G09"},
}

// TestGradeRecordedFollowUps grades every follow-up recorded from a real
// client against the response recorded before it: the API accepted each,
// so each must pass, but for the client faults listed in recordedFaults.
func TestGradeRecordedFollowUps(t *testing.T) {
	checked := 0
	for _, protocol := range []string{"anthropic", "bedrock", "openai-chat", "openai-responses", "gemini", "cohere", "mistral"} {
		a, err := providers.Lookup(protocol)
		if err != nil {
			t.Fatal(err)
		}
		names, err := cassettes.Glob(protocol)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			c, err := cassettes.Load(n)
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			for i := 1; i < len(c.Interactions); i++ {
				prev, next := c.Interactions[i-1], c.Interactions[i]
				if prev.Response.Code != 200 || next.Response.Code != 200 {
					continue
				}
				served := decodeRecorded(a, prev.Response.Headers.Get("Content-Type"), []byte(prev.Response.Body))
				if served == nil || len(served.Calls()) == 0 {
					continue
				}
				body := []byte(next.Request.Body)
				req, err := a.DecodeRequest(body)
				if err != nil || !IsFollowUp(req) {
					continue
				}
				checked++
				key := fmt.Sprintf("%s#%d", n, i)
				got := rules(append(Grade(protocol, served, req), GradeBody(protocol, body)...))
				if diff := cmp.Diff(recordedFaults[key], got); diff != "" {
					t.Errorf("%s: rules (-want +got):\n%s", key, diff)
				}
			}
		}
	}
	if checked < 60 {
		t.Errorf("only %d recorded follow-ups graded; want the corpus (60+)", checked)
	}
	t.Logf("%d recorded follow-ups graded", checked)
}

// decodeRecorded decodes a recorded response body, a stream by its media
// type; nil when it does not decode.
func decodeRecorded(a core.Adapter, ctype string, body []byte) *core.Response {
	var resp *core.Response
	var err error
	if strings.Contains(ctype, "event-stream") || strings.Contains(ctype, "eventstream") || strings.Contains(ctype, "ndjson") {
		resp, err = core.Collect(a.DecodeStream(bytes.NewReader(body)))
	} else {
		resp, err = a.DecodeResponse(body)
	}
	if err != nil {
		return nil
	}
	return resp
}
