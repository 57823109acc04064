package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/bedrock"
)

// carried is, for each built-in adapter and role, the part kinds its wire
// has a place for, read from each protocol's documented message format;
// every other kind, and an unknown one, must be refused.
var carried = map[string]map[core.Role][]core.PartKind{
	"anthropic":        anthropicKinds,
	"bedrock":          anthropicKinds, // Converse and InvokeModel alike
	"cohere":           {core.RoleSystem: {core.PartText}, core.RoleUser: {core.PartText}, core.RoleTool: {core.PartToolResult}, core.RoleAssistant: {core.PartText, core.PartThinking, core.PartPlan, core.PartToolCall}},
	"gemini":           separateToolKinds,
	"mistral":          chatKinds,
	"ollama":           separateToolKinds,
	"openai-chat":      chatKinds,
	"openai-responses": anthropicKinds,
}

var (
	// Text and results in a user turn, where a tool message's results
	// (and any text beside them) go too.
	anthropicKinds = map[core.Role][]core.PartKind{core.RoleSystem: {core.PartText}, core.RoleUser: {core.PartText, core.PartToolResult}, core.RoleTool: {core.PartText, core.PartToolResult}, core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall}}
	// Results only in tool messages, one "tool" message per result.
	chatKinds = map[core.Role][]core.PartKind{core.RoleSystem: {core.PartText}, core.RoleUser: {core.PartText, core.PartToolResult}, core.RoleTool: {core.PartToolResult}, core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall}}
	// Results only in a tool turn, never beside user text.
	separateToolKinds = map[core.Role][]core.PartKind{core.RoleSystem: {core.PartText}, core.RoleUser: {core.PartText}, core.RoleTool: {core.PartToolResult}, core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall}}
)

var partKinds = []core.PartKind{core.PartText, core.PartThinking, core.PartPlan, core.PartToolCall, core.PartToolResult, "bogus"}

// samplePart is a part of kind k; a result answers callID.
func samplePart(k core.PartKind, callID string) core.Part {
	switch k {
	case core.PartText:
		return core.TextPart("x")
	case core.PartThinking:
		// An item id, so that OpenAI Responses can replay it as its own
		// reasoning item.
		return core.Part{Kind: k, Text: "t", ItemID: "rs_1"}
	case core.PartToolCall:
		return core.CallPart(core.Call{ID: "call00002", Name: "g", Arguments: json.RawMessage(`{"b":2}`)})
	case core.PartToolResult:
		return core.ResultPart(core.Result{CallID: callID, Name: "f", Content: []core.Part{core.TextPart("r")}})
	}
	return core.Part{Kind: k, Text: "p"}
}

// conversation returns a sound history that holds p in a message of role
// role, and the indexes of that message and part.
func conversation(role core.Role, p core.Part) (msgs []core.Message, i, j int) {
	msg := func(r core.Role, parts ...core.Part) core.Message { return core.Message{Role: r, Parts: parts} }
	hi := msg(core.RoleUser, core.TextPart("hi"))
	c1 := core.CallPart(core.Call{ID: "call00001", Name: "f", Arguments: json.RawMessage(`{"a":1}`)})
	r1 := core.ResultPart(core.Result{CallID: "call00001", Name: "f", Content: []core.Part{core.TextPart("ok")}})
	switch role {
	case core.RoleSystem:
		return []core.Message{msg(role, p), hi}, 0, 0
	case core.RoleUser:
		if p.Kind == core.PartToolResult {
			return []core.Message{hi, msg(core.RoleAssistant, c1), msg(role, p)}, 2, 0
		}
		return []core.Message{hi, msg(core.RoleAssistant, c1), msg(core.RoleTool, r1), msg(role, p)}, 3, 0
	case core.RoleTool:
		if p.Kind == core.PartToolResult {
			c2 := core.CallPart(core.Call{ID: "call00002", Name: "f", Arguments: json.RawMessage(`{}`)})
			return []core.Message{hi, msg(core.RoleAssistant, c1, c2), msg(role, r1, p)}, 2, 1
		}
		return []core.Message{hi, msg(core.RoleAssistant, c1), msg(role, r1, p)}, 2, 1
	}
	msgs = []core.Message{hi, msg(core.RoleAssistant, c1), msg(core.RoleTool, r1), msg(role, p)}
	if p.Kind == core.PartToolCall {
		msgs = append(msgs, msg(core.RoleTool, samplePart(core.PartToolResult, p.Call.ID)))
	}
	return msgs, 3, 0
}

// partView is what of a part a protocol must carry: its kind and text, a
// call's id, name and arguments (as compact JSON), a result's call id and
// text.
type partView struct {
	Kind                core.PartKind
	Text                string
	ID, Name, Arguments string
}

func viewOf(p core.Part) partView {
	v := partView{Kind: p.Kind, Text: p.Text}
	switch {
	case p.Call != nil:
		var b bytes.Buffer
		_ = json.Compact(&b, p.Call.Arguments)
		v.ID, v.Name, v.Arguments = p.Call.ID, p.Call.Name, b.String()
	case p.Result != nil:
		v.ID, v.Text = p.Result.CallID, p.Result.Text()
	}
	return v
}

func viewsOf(msgs ...core.Message) []partView {
	var vs []partView
	for _, m := range msgs {
		for _, p := range m.Parts {
			vs = append(vs, viewOf(p))
		}
	}
	return vs
}

// TestEncodersCarryOrRefuseEveryPart gives each adapter's EncodeRequest a
// part of every kind in a message of every role, and its EncodeResponse a
// part of every kind: a kind the protocol has a place for must come back
// from decode(encode(m)) as it was; any other must be refused with an
// error wrapping core.ErrUnsupported that names the message, the part and
// its kind, never dropped or sent as another kind.
func TestEncodersCarryOrRefuseEveryPart(t *testing.T) {
	roles := []core.Role{core.RoleSystem, core.RoleUser, core.RoleAssistant, core.RoleTool}
	// Bedrock's InvokeModel body (Anthropic Messages) too, as "bedrock#invoke".
	adapters := map[string]core.Adapter{"bedrock#invoke": bedrock.New(bedrock.WithAPI(bedrock.InvokeAnthropic))}
	for _, a := range All() {
		adapters[a.Name()] = a
	}
	for _, label := range slices.Sorted(maps.Keys(adapters)) {
		a := adapters[label]
		kinds, ok := carried[a.Name()]
		if !ok {
			t.Errorf("%s: no expectations in carried", a.Name())
			continue
		}
		for _, role := range roles {
			for _, k := range partKinds {
				t.Run(fmt.Sprintf("%s/request/%s/%s", label, role, k), func(t *testing.T) {
					callID := "call00001"
					if role == core.RoleTool {
						callID = "call00002"
					}
					p := samplePart(k, callID)
					msgs, i, j := conversation(role, p)
					body, err := a.EncodeRequest(&core.Request{Messages: msgs})
					checkCarried(t, slices.Contains(kinds[role], k), err, fmt.Sprintf("messages[%d].parts[%d].kind", i, j), p, func() ([]partView, error) {
						req, err := a.DecodeRequest(body)
						if err != nil {
							return nil, err
						}
						return viewsOf(req.Messages...), nil
					})
				})
			}
		}
		for _, k := range partKinds {
			t.Run(fmt.Sprintf("%s/response/%s", label, k), func(t *testing.T) {
				p := samplePart(k, "call00001")
				finish := core.FinishStop
				if k == core.PartToolCall {
					finish = core.FinishToolCalls
				}
				body, err := a.EncodeResponse(&core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{p}}, Finish: finish})
				checkCarried(t, slices.Contains(kinds[core.RoleAssistant], k), err, "message.parts[0].kind", p, func() ([]partView, error) {
					resp, err := a.DecodeResponse(body)
					if err != nil {
						return nil, err
					}
					return viewsOf(resp.Message), nil
				})
			})
		}
	}
}

// TestEncodersRefuseResultContentThatIsNotText gives each adapter's
// EncodeRequest a tool result holding a part that is not text: every
// protocol's results carry text only, so each must refuse it naming the
// content part, never drop it.
func TestEncodersRefuseResultContentThatIsNotText(t *testing.T) {
	for _, a := range All() {
		for _, k := range []core.PartKind{core.PartThinking, core.PartPlan, core.PartToolCall, core.PartToolResult, "bogus"} {
			t.Run(a.Name()+"/"+string(k), func(t *testing.T) {
				r := core.ResultPart(core.Result{CallID: "call00001", Name: "f", Content: []core.Part{core.TextPart("ok"), samplePart(k, "call00001")}})
				msgs, i, j := conversation(core.RoleUser, r)
				if !slices.Contains(carried[a.Name()][core.RoleUser], core.PartToolResult) {
					msgs, i, j = conversation(core.RoleTool, core.ResultPart(core.Result{CallID: "call00002", Name: "f", Content: r.Result.Content}))
				}
				_, err := a.EncodeRequest(&core.Request{Messages: msgs})
				place := fmt.Sprintf("messages[%d].parts[%d].result.content[1].kind", i, j)
				if !errors.Is(err, core.ErrUnsupported) || !strings.Contains(err.Error(), place) {
					t.Errorf("EncodeRequest: %v, want an error wrapping core.ErrUnsupported naming %s", err, place)
				}
			})
		}
	}
}

// checkCarried checks the outcome of encoding p: with carry, no error and
// p among the parts decode returns; else an error wrapping
// core.ErrUnsupported naming place and p's kind.
func checkCarried(t *testing.T, carry bool, err error, place string, p core.Part, decode func() ([]partView, error)) {
	t.Helper()
	if !carry {
		if !errors.Is(err, core.ErrUnsupported) || !strings.Contains(err.Error(), place) || !strings.Contains(err.Error(), string(p.Kind)) {
			t.Fatalf("encode: error %v, want one wrapping core.ErrUnsupported naming %s and the kind %s", err, place, p.Kind)
		}
		return
	}
	if err != nil {
		t.Fatalf("encode: %v, want the part carried", err)
	}
	got, err := decode()
	if err != nil {
		t.Fatalf("decode of what was encoded: %v", err)
	}
	want := viewOf(p)
	if !slices.Contains(got, want) {
		t.Errorf("decode(encode(m)) lost the %s part (-want +got):\n%s", p.Kind, cmp.Diff([]partView{want}, got))
	}
}

// TestStreamEncodersPlanAndUnknownEvents gives each stream encoder a plan
// event and an event of no known kind, and checks what each does: a plan
// round-trips as a plan, is refused (core.ErrUnsupported), or is written
// as the kind its EncodeStream documents; an unknown kind is refused
// (core.ErrMalformed) or left out.
func TestStreamEncodersPlanAndUnknownEvents(t *testing.T) {
	type outcome struct{ Plan, Unknown string } // "refused", or the kinds decode gives back
	want := map[string]outcome{
		"anthropic":        {"refused", "refused"},
		"bedrock":          {"refused", "refused"},
		"cohere":           {"plan", "refused"},
		"gemini":           {"refused", "refused"},
		"mistral":          {"refused", "refused"},
		"ollama":           {"refused", "refused"},
		"openai-chat":      {"refused", "refused"},
		"openai-responses": {"refused", "refused"},
	}
	run := func(a core.Adapter, k core.EventKind) string {
		var b bytes.Buffer
		err := a.(core.StreamEncoder).EncodeStream(&b, []core.Event{{Kind: k, Text: "p"}, {Kind: core.EventFinish, Finish: core.FinishStop}})
		switch {
		case k == core.EventPlan && errors.Is(err, core.ErrUnsupported), k != core.EventPlan && errors.Is(err, core.ErrMalformed):
			return "refused"
		case err != nil:
			return "error: " + err.Error()
		}
		resp, err := core.Collect(a.DecodeStream(&b))
		if err != nil {
			return "decode error: " + err.Error()
		}
		var kinds []string
		for _, p := range resp.Message.Parts {
			kinds = append(kinds, string(p.Kind))
		}
		return strings.Join(kinds, ",")
	}
	for _, a := range All() {
		if _, ok := a.(core.StreamEncoder); !ok {
			continue
		}
		got := outcome{run(a, core.EventPlan), run(a, "bogus")}
		if diff := cmp.Diff(want[a.Name()], got); diff != "" {
			t.Errorf("%s: plan and unknown events (-want +got):\n%s", a.Name(), diff)
		}
	}
}
