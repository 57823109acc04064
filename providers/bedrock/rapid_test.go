package bedrock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

var wireStops = []string{"end_turn", "tool_use", "max_tokens", "stop_sequence", "guardrail_intervened", "content_filtered", "something_new"}

// genText and genArgs are adaptertest's generators, shared with cohere.
var (
	genText = adaptertest.DrawText
	genArgs = adaptertest.DrawArgs
)

// genVisible draws text of genText's alphabet with at least one character
// that is not white space: requests leave blank text out (G11, tested in
// TestEncodeRequestResultsAndEmptyText), so only such text round-trips.
func genVisible(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-zA-Z0-9 äé😀"\\\n{}:,]{0,6}[a-zA-Z0-9äé😀"\\{}:,][a-zA-Z0-9 äé😀"\\\n{}:,]{0,5}`).Draw(t, label)
}

// genEvents draws a canonical event sequence: the form DecodeStream gives.
func genEvents(t *rapid.T, api API) []core.Event {
	var evs []core.Event
	n := rapid.IntRange(0, 8).Draw(t, "segments")
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			evs = append(evs, core.Event{Kind: core.EventText, Text: genText(t, "text")})
		case 1:
			switch rapid.IntRange(0, 2).Draw(t, "think") {
			case 0:
				evs = append(evs, core.Event{Kind: core.EventThinking, Signature: rapid.StringMatching(`[A-Za-z0-9+/=]{1,20}`).Draw(t, "signature")})
			case 1:
				evs = append(evs, core.Event{Kind: core.EventThinking, Text: genText(t, "thinking")})
			case 2:
				// Redacted reasoning, a block of its own.
				evs = append(evs, core.Event{Kind: core.EventThinking, Data: rapid.StringMatching(`[A-Za-z0-9+/]{1,20}={0,2}`).Draw(t, "redacted")})
			}
		default:
			idx := rapid.IntRange(-2, 20).Draw(t, "index")
			evs = append(evs, start(idx, rapid.StringMatching(`tooluse_[a-zA-Z0-9]{1,10}`).Draw(t, "id"), rapid.StringMatching(`[a-zA-Z_][a-zA-Z0-9_-]{0,10}`).Draw(t, "name")))
			args := string(genArgs(t, "args"))
			if rapid.Bool().Draw(t, "noargs") {
				evs = append(evs, end(idx, ptr("{}")))
				continue
			}
			for _, frag := range adaptertest.DrawCuts(t, args) {
				evs = append(evs, delta(idx, frag))
			}
			evs = append(evs, end(idx, nil))
		}
	}
	if rapid.Bool().Draw(t, "finish") {
		stop := rapid.SampledFrom(wireStops).Draw(t, "stop")
		if n := len(evs); stop == "max_tokens" && n > 0 && evs[n-1].Kind == core.EventCallEnd {
			// B11: the call the limit cut never ends.
			evs = evs[:n-1]
		}
		evs = append(evs, core.Event{Kind: core.EventFinish, Finish: finishFromStop(stop), ProviderFinish: stop})
	}
	if api == Converse && rapid.Bool().Draw(t, "usage") {
		evs = append(evs, core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}})
	}
	if rapid.Bool().Draw(t, "error") {
		evs = append(evs, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: rapid.SampledFrom([]string{"throttlingException", "modelStreamErrorException"}).Draw(t, "etype"), Message: genText(t, "emsg")}})
	}
	return evs
}

func TestStreamRoundTrip(t *testing.T) {
	for _, api := range []API{Converse, InvokeAnthropic} {
		t.Run(fmt.Sprint(api), func(t *testing.T) {
			a := New(WithAPI(api))
			adaptertest.CheckStreamRoundTrip(t, a, func(t *rapid.T) []core.Event { return genEvents(t, api) })
		})
	}
}

func genCall(t *rapid.T) core.Call {
	return core.Call{ID: rapid.StringMatching(`tooluse_[a-zA-Z0-9]{1,10}`).Draw(t, "id"), Name: rapid.StringMatching(`[a-zA-Z_][a-zA-Z0-9_-]{0,10}`).Draw(t, "name"), Arguments: genArgs(t, "args")}
}

func genAssistantParts(t *rapid.T, calls bool) []core.Part {
	var parts []core.Part
	if rapid.Bool().Draw(t, "thinking") {
		parts = append(parts, core.Part{Kind: core.PartThinking, Text: genText(t, "thought"), Signature: rapid.StringMatching(`[A-Za-z0-9]{0,8}`).Draw(t, "sig")})
	}
	if rapid.Bool().Draw(t, "redacted") {
		parts = append(parts, core.Part{Kind: core.PartThinking, Data: rapid.StringMatching(`[A-Za-z0-9+/]{1,20}={0,2}`).Draw(t, "data")})
	}
	if rapid.Bool().Draw(t, "hastext") {
		parts = append(parts, core.TextPart(genText(t, "text")))
	}
	if calls {
		for i := rapid.IntRange(0, 3).Draw(t, "ncalls"); i > 0; i-- {
			parts = append(parts, core.CallPart(genCall(t)))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, core.TextPart(genText(t, "text")))
	}
	return parts
}

func TestResponseRoundTrip(t *testing.T) {
	for _, api := range []API{Converse, InvokeAnthropic} {
		t.Run(fmt.Sprint(api), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				stop := rapid.SampledFrom(wireStops).Draw(t, "stop")
				want := &core.Response{
					Message:        core.Message{Role: core.RoleAssistant, Parts: genAssistantParts(t, true)},
					Finish:         finishFromStop(stop),
					ProviderFinish: stop,
					Usage:          &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")},
				}
				if api == InvokeAnthropic {
					want.ID, want.Model = "msg_1", "claude"
				}
				a := New(WithAPI(api))
				body, err := a.EncodeResponse(want)
				if err != nil {
					t.Fatal(err)
				}
				got, err := a.DecodeResponse(body)
				if err != nil {
					t.Fatalf("%v in %s", err, body)
				}
				if n := len(want.Message.Parts); stop == "max_tokens" && want.Message.Parts[n-1].Kind == core.PartToolCall {
					// B11: the limit cut the call the message ends with.
					c := *want.Message.Parts[n-1].Call
					c.Original, c.Arguments = string(c.Arguments), nil
					want.Incomplete = []core.Call{c}
					want.Message.Parts = want.Message.Parts[:n-1]
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("response (-want +got):\n%s\nbody %s", diff, body)
				}
			})
		})
	}
}

// genRequest draws a canonical request in the form DecodeRequest gives:
// system first, user and assistant turns alternating, tool results in a
// RoleTool message that may be followed by user text in the same wire turn.
func genRequest(t *rapid.T, api API) *core.Request {
	req := &core.Request{MaxTokens: rapid.IntRange(0, 4096).Draw(t, "max")}
	if rapid.Bool().Draw(t, "system") {
		sys := core.Message{Role: core.RoleSystem}
		for i := rapid.IntRange(1, 2).Draw(t, "nsys"); i > 0; i-- {
			sys.Parts = append(sys.Parts, core.TextPart(genVisible(t, "sys")))
		}
		req.Messages = append(req.Messages, sys)
	}
	var pending []core.Call
	answer := func() {
		tool := core.Message{Role: core.RoleTool}
		for _, c := range pending {
			r := core.Result{CallID: c.ID, IsError: rapid.Bool().Draw(t, "iserr"), Content: []core.Part{core.TextPart(genVisible(t, "result"))}}
			if api == Converse && rapid.Bool().Draw(t, "jsonresult") {
				j := string(genArgs(t, "json"))
				r.Content = append(r.Content, core.Part{Kind: core.PartText, Text: j, Data: j})
			}
			tool.Parts = append(tool.Parts, core.ResultPart(r))
		}
		req.Messages = append(req.Messages, tool)
		pending = nil
	}
	for turn := rapid.IntRange(1, 6).Draw(t, "turns"); turn > 0; turn-- {
		if len(pending) > 0 {
			answer()
			if rapid.Bool().Draw(t, "userafter") {
				req.Messages = append(req.Messages, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(genVisible(t, "user"))}})
			}
		} else {
			req.Messages = append(req.Messages, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(genVisible(t, "user"))}})
		}
		parts := genAssistantParts(t, true)
		for k, p := range parts {
			if p.Kind == core.PartText && isBlank(p.Text) {
				parts[k].Text = genVisible(t, "visible")
			}
		}
		req.Messages = append(req.Messages, core.Message{Role: core.RoleAssistant, Parts: parts})
		for k, p := range parts {
			if p.Kind == core.PartToolCall {
				p.Call.ID += fmt.Sprintf("_%d", k) // distinct in the turn (D06)
				pending = append(pending, *p.Call)
			}
		}
	}
	if len(pending) > 0 {
		answer() // EncodeRequest refuses calls without results (G01)
	}
	for i := rapid.IntRange(0, 3).Draw(t, "ntools"); i > 0; i-- {
		req.Tools = append(req.Tools, core.ToolSpec{Name: rapid.StringMatching(`[a-z_]{1,8}`).Draw(t, "tool"), Description: rapid.StringMatching(`[a-z ]{0,10}`).Draw(t, "desc"), InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	}
	if len(req.Tools) > 0 {
		modes := []core.ToolChoiceMode{"", core.ToolChoiceAuto, core.ToolChoiceRequired, core.ToolChoiceTool}
		if api == InvokeAnthropic {
			modes = append(modes, core.ToolChoiceNone)
		}
		switch m := rapid.SampledFrom(modes).Draw(t, "choice"); m {
		case "":
		case core.ToolChoiceTool:
			req.ToolChoice = &core.ToolChoice{Mode: m, Name: req.Tools[0].Name}
		default:
			req.ToolChoice = &core.ToolChoice{Mode: m}
		}
		if api == InvokeAnthropic && rapid.Bool().Draw(t, "noparallel") {
			f := false
			req.ParallelToolCalls = &f
			if req.ToolChoice == nil {
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
			}
		}
	}
	return req
}

func TestRequestRoundTrip(t *testing.T) {
	for _, api := range []API{Converse, InvokeAnthropic} {
		t.Run(fmt.Sprint(api), func(t *testing.T) {
			a := New(WithAPI(api))
			adaptertest.CheckRequestRoundTrip(t, a, func(t *rapid.T) *core.Request { return genRequest(t, api) })
		})
	}
}

// TestSplitReads decodes every recorded stream from a reader that returns
// arbitrary small pieces and checks the events equal the unsplit decode.
func TestSplitReads(t *testing.T) {
	adaptertest.CheckSplitStreams(t, adaptertest.RecordedStreams(t, "bedrock"), func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}

// TestStreamingParity states that the same response, sent whole or
// streamed, gives a client the same text, calls, finish and usage: decoding
// EncodeResponse's body and collecting EncodeStream's events with
// core.Collect agree (D03, F02).
func TestStreamingParity(t *testing.T) {
	for _, api := range []API{Converse, InvokeAnthropic} {
		t.Run(fmt.Sprint(api), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				stop := rapid.SampledFrom(wireStops[:4]).Draw(t, "stop")
				parts := genAssistantParts(t, true)
				resp := &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: parts}, Finish: finishFromStop(stop), ProviderFinish: stop}
				if api == Converse {
					resp.Usage = &core.Usage{InputTokens: rapid.IntRange(1, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(1, 1e6).Draw(t, "out")}
				}
				var evs []core.Event
				for i, p := range resp.Message.Parts {
					switch p.Kind {
					case core.PartText:
						evs = append(evs, core.Event{Kind: core.EventText, Text: p.Text})
					case core.PartThinking:
						evs = append(evs, core.Event{Kind: core.EventThinking, Text: p.Text, Data: p.Data})
					case core.PartToolCall:
						evs = append(evs, start(i, p.Call.ID, p.Call.Name))
						for _, r := range string(p.Call.Arguments) {
							evs = append(evs, delta(i, string(r)))
						}
						evs = append(evs, end(i, nil))
					}
				}
				evs = append(evs, core.Event{Kind: core.EventFinish, Finish: resp.Finish, ProviderFinish: resp.ProviderFinish})
				if resp.Usage != nil {
					evs = append(evs, core.Event{Kind: core.EventUsage, Usage: resp.Usage})
				}

				a := New(WithAPI(api))
				if n := len(parts); stop != "max_tokens" || parts[n-1].Kind != core.PartToolCall {
					adaptertest.CheckParity(t, a, resp, evs)
					return
				}
				checkCutParity(t, a, resp, evs)
			})
		})
	}
}

// cutView is what a client sees of a response whose last call the token
// limit cut (B11): adaptertest.ParityView's fields, with the incomplete
// calls beside the calls to run.
type cutView struct {
	Text, Finish, ProviderFinish string
	Calls, Incomplete            []core.Call
	Usage                        *core.Usage
}

// checkCutParity is adaptertest.CheckParity for a response cut by the
// token limit while it wrote a call (B11), which the streamed side reports
// as an error (core.ErrIncomplete) that CheckParity does not expect: the
// whole body and the collected stream must give the same text, finish,
// usage, calls to run and incomplete calls (input so far in Original,
// compared as JSON), and the last call must be incomplete in both.
func checkCutParity(t *rapid.T, a *Adapter, resp *core.Response, evs []core.Event) {
	body, err := a.EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := a.DecodeResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := a.EncodeStream(&buf, evs); err != nil {
		t.Fatal(err)
	}
	streamed, err := core.Collect(a.DecodeStream(&buf))
	if !errors.Is(err, core.ErrIncomplete) {
		t.Fatalf("collect: error %v, want core.ErrIncomplete", err)
	}
	see := func(r *core.Response) cutView {
		v := cutView{Text: r.Text(), Finish: string(r.Finish), ProviderFinish: r.ProviderFinish, Usage: r.Usage}
		for _, c := range r.Calls() {
			c.Arguments = adaptertest.Compact(t, c.Arguments)
			v.Calls = append(v.Calls, c)
		}
		for _, c := range r.Incomplete {
			c.Original = string(adaptertest.Compact(t, json.RawMessage(c.Original)))
			v.Incomplete = append(v.Incomplete, c)
		}
		return v
	}
	w, s := see(whole), see(streamed)
	if diff := cmp.Diff(w, s); diff != "" {
		t.Fatalf("whole vs streamed (-whole +streamed):\n%s", diff)
	}
	last := resp.Message.Parts[len(resp.Message.Parts)-1].Call
	if n := len(w.Incomplete); n != 1 || w.Incomplete[0].ID != last.ID {
		t.Fatalf("incomplete %+v, want the last call %q", w.Incomplete, last.ID)
	}
}
