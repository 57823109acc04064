package cohere

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

var wireFinishes = []string{"COMPLETE", "STOP_SEQUENCE", "TOOL_CALL", "MAX_TOKENS", "ERROR", "ERROR_TOXIC", "ERROR_LIMIT", "SOMETHING_NEW"}

// genText is adaptertest's generator, shared with bedrock.
var genText = adaptertest.DrawText

// genArgs draws arguments with adaptertest.DrawArgs, indented or not:
// Cohere's argument strings are kept byte for byte.
func genArgs(t *rapid.T, label string) json.RawMessage {
	b := adaptertest.DrawArgs(t, label)
	if rapid.Bool().Draw(t, label+"-indent") {
		var buf bytes.Buffer
		_ = json.Indent(&buf, b, "", " ")
		b = buf.Bytes()
	}
	return b
}

// genEvents draws a canonical event sequence: the form DecodeStream gives.
func genEvents(t *rapid.T) []core.Event {
	var evs []core.Event
	for i := rapid.IntRange(0, 4).Draw(t, "plans"); i > 0; i-- {
		evs = append(evs, core.Event{Kind: core.EventPlan, Text: genText(t, "plan")})
	}
	for n := rapid.IntRange(0, 8).Draw(t, "segments"); n > 0; n-- {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			evs = append(evs, core.Event{Kind: core.EventText, Text: genText(t, "text")})
		case 1:
			evs = append(evs, core.Event{Kind: core.EventThinking, Text: genText(t, "thinking")})
		default:
			idx := rapid.IntRange(-1, 20).Draw(t, "index")
			id := rapid.StringMatching(`[a-z]{1,6}_[a-z0-9]{12}`).Draw(t, "id")
			name := rapid.StringMatching(`[a-zA-Z_][a-zA-Z0-9_-]{0,10}`).Draw(t, "name")
			if rapid.Bool().Draw(t, "noargs") {
				evs = append(evs, start(idx, id, name, ""), end(idx, ptr("{}")))
				continue
			}
			parts := adaptertest.DrawCuts(t, string(genArgs(t, "args")))
			first := ""
			if rapid.Bool().Draw(t, "args-on-start") {
				first, parts = parts[0], parts[1:]
			}
			evs = append(evs, start(idx, id, name, first))
			for _, p := range parts {
				evs = append(evs, delta(idx, p))
			}
			evs = append(evs, end(idx, nil))
		}
	}
	usage := rapid.Bool().Draw(t, "usage")
	if usage {
		evs = append(evs, core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}})
	}
	if rapid.Bool().Draw(t, "finish") {
		if !usage {
			// A finish's message-end always carries usage: zero counts
			// when the events have none.
			evs = append(evs, core.Event{Kind: core.EventUsage, Usage: &core.Usage{}})
		}
		f := rapid.SampledFrom(wireFinishes).Draw(t, "finish")
		evs = append(evs, core.Event{Kind: core.EventFinish, Finish: finishFromWire(f), ProviderFinish: f})
	}
	if rapid.Bool().Draw(t, "error") {
		evs = append(evs, core.Event{Kind: core.EventError, Error: &core.ProviderError{Message: genText(t, "emsg")}})
	}
	if len(evs) > 0 && rapid.Bool().Draw(t, "hasid") {
		evs[0].ID = rapid.StringMatching(`[0-9a-f-]{8,36}`).Draw(t, "respid")
	}
	return evs
}

func TestStreamRoundTrip(t *testing.T) {
	adaptertest.CheckStreamRoundTrip(t, New(), genEvents)
}

func genCall(t *rapid.T) core.Call {
	return core.Call{ID: rapid.StringMatching(`[a-z]{1,6}_[a-z0-9]{12}`).Draw(t, "id"), Name: rapid.StringMatching(`[a-zA-Z_][a-zA-Z0-9_-]{0,10}`).Draw(t, "name"), Arguments: genArgs(t, "args")}
}

// genAssistant draws assistant parts in decode order: plan, content
// (thinking and text), calls.
func genAssistant(t *rapid.T) []core.Part {
	var parts []core.Part
	if rapid.Bool().Draw(t, "hasplan") {
		parts = append(parts, core.Part{Kind: core.PartPlan, Text: genText(t, "plan")})
	}
	if rapid.Bool().Draw(t, "thinking") {
		parts = append(parts, core.Part{Kind: core.PartThinking, Text: genText(t, "thought")})
	}
	for i := rapid.IntRange(0, 2).Draw(t, "ntext"); i > 0; i-- {
		parts = append(parts, core.TextPart(genText(t, "text")))
	}
	for i := rapid.IntRange(0, 3).Draw(t, "ncalls"); i > 0; i-- {
		parts = append(parts, core.CallPart(genCall(t)))
	}
	if len(parts) == 0 {
		parts = []core.Part{}
	}
	return parts
}

func TestResponseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom(wireFinishes).Draw(t, "finish")
		want := &core.Response{
			ID:             rapid.StringMatching(`[0-9a-f-]{0,36}`).Draw(t, "id"),
			Message:        core.Message{Role: core.RoleAssistant, Parts: genAssistant(t)},
			Finish:         finishFromWire(f),
			ProviderFinish: f,
			// A body always carries usage; a response without counts is
			// written, and read back, as zero counts.
			Usage: &core.Usage{},
		}
		if rapid.Bool().Draw(t, "usage") {
			want.Usage = &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}
		}
		body, err := New().EncodeResponse(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := New().DecodeResponse(body)
		if err != nil {
			t.Fatalf("%v in %s", err, body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("response (-want +got):\n%s\nbody %s", diff, body)
		}
	})
}

// genRequest draws a canonical request in the form DecodeRequest gives:
// one RoleTool message per result, no auto tool choice (auto is Cohere's
// default and is not written), no named choice, strict on all tools or none.
func genRequest(t *rapid.T) *core.Request {
	req := &core.Request{
		Model:     rapid.StringMatching(`(command-[a-z0-9-]{1,12})?`).Draw(t, "model"),
		MaxTokens: rapid.IntRange(0, 4096).Draw(t, "max"),
		Stream:    rapid.Bool().Draw(t, "stream"),
	}
	if rapid.Bool().Draw(t, "system") {
		req.Messages = append(req.Messages, core.Message{Role: core.RoleSystem, Parts: []core.Part{core.TextPart(genText(t, "sys"))}})
	}
	for turn := rapid.IntRange(1, 5).Draw(t, "turns"); turn > 0; turn-- {
		var user []core.Part
		for i := rapid.IntRange(1, 3).Draw(t, "nuser"); i > 0; i-- {
			user = append(user, core.TextPart(genText(t, "user")))
		}
		req.Messages = append(req.Messages, core.Message{Role: core.RoleUser, Parts: user})
		parts := genAssistant(t)
		req.Messages = append(req.Messages, core.Message{Role: core.RoleAssistant, Parts: parts})
		for _, p := range parts {
			if p.Kind != core.PartToolCall {
				continue
			}
			r := core.Result{CallID: p.Call.ID, Content: []core.Part{}}
			for i := rapid.IntRange(0, 2).Draw(t, "nresult"); i > 0; i-- {
				if rapid.Bool().Draw(t, "doc") {
					j := string(genArgs(t, "doc"))
					var buf bytes.Buffer
					_ = json.Compact(&buf, []byte(j))
					r.Content = append(r.Content, core.Part{Kind: core.PartText, Text: buf.String(), Data: buf.String()})
				} else {
					r.Content = append(r.Content, core.TextPart(genText(t, "result")))
				}
			}
			req.Messages = append(req.Messages, core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(r)}})
		}
	}
	strict := rapid.Bool().Draw(t, "strict")
	for i := rapid.IntRange(0, 3).Draw(t, "ntools"); i > 0; i-- {
		req.Tools = append(req.Tools, core.ToolSpec{Name: rapid.StringMatching(`[a-z_]{1,8}`).Draw(t, "tool"), Description: rapid.StringMatching(`[a-z ]{0,10}`).Draw(t, "desc"), InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), Strict: strict})
	}
	switch rapid.IntRange(0, 2).Draw(t, "choice") {
	case 1:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
	case 2:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
	}
	if rapid.Bool().Draw(t, "format") {
		req.ResponseFormat = &core.ResponseFormat{Schema: json.RawMessage(`{"type":"object"}`)}
	}
	return req
}

func TestRequestRoundTrip(t *testing.T) {
	adaptertest.CheckRequestRoundTrip(t, New(), genRequest)
}

// TestSplitReads decodes every recorded stream from a reader that returns
// arbitrary small pieces and checks the events equal the unsplit decode.
func TestSplitReads(t *testing.T) {
	adaptertest.CheckSplitStreams(t, adaptertest.RecordedStreams(t, "cohere"), func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}

// TestStreamingParity states that the same response, sent whole or
// streamed, gives a client the same text, calls, finish and usage: decoding
// EncodeResponse's body and collecting EncodeStream's events with
// core.Collect agree (D03, F02).
func TestStreamingParity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom(wireFinishes[:4]).Draw(t, "finish")
		resp := &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: genAssistant(t)}, Finish: finishFromWire(f), ProviderFinish: f,
			Usage: &core.Usage{InputTokens: rapid.IntRange(1, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(1, 1e6).Draw(t, "out")}}
		var evs []core.Event
		for i, p := range resp.Message.Parts {
			switch p.Kind {
			case core.PartText:
				evs = append(evs, core.Event{Kind: core.EventText, Text: p.Text})
			case core.PartThinking:
				evs = append(evs, core.Event{Kind: core.EventThinking, Text: p.Text})
			case core.PartPlan:
				evs = append(evs, core.Event{Kind: core.EventPlan, Text: p.Text})
			case core.PartToolCall:
				evs = append(evs, start(i, p.Call.ID, p.Call.Name, ""))
				for _, frag := range adaptertest.DrawCuts(t, string(p.Call.Arguments)) {
					evs = append(evs, delta(i, frag))
				}
				evs = append(evs, end(i, nil))
			}
		}
		evs = append(evs, core.Event{Kind: core.EventUsage, Usage: resp.Usage}, core.Event{Kind: core.EventFinish, Finish: resp.Finish, ProviderFinish: resp.ProviderFinish})

		a := New()
		adaptertest.CheckParity(t, a, resp, evs)
	})
}
