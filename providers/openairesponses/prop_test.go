package openairesponses

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/oaichat"
	"pgregory.net/rapid"
)

// argFragments draws argument text made of whole pieces (valid UTF-8, as
// any text on the wire must be) and cuts it into fragments at any bytes,
// so that a character may be split between two deltas (B05). The
// fragments are never empty.
func argFragments(t *rapid.T, label string) []string {
	var text string
	for j := rapid.IntRange(0, 4).Draw(t, label+"Pieces"); j > 0; j-- {
		text += rapid.SampledFrom([]string{`{"a":`, `"x\"y"`, `ä`, `😀`, `\n`, `}`, `1`, ` `, "\t", `\u00e9`}).Draw(t, label+"Piece")
	}
	var frags []string
	for len(text) > 0 {
		n := rapid.IntRange(1, len(text)).Draw(t, label+"Cut")
		frags = append(frags, text[:n])
		text = text[n:]
	}
	return frags
}

// reasoningIDs are the reasoning item ids thinking events carry; a stream
// in normal form names the item of every thinking event.
var reasoningIDs = []string{"rs_a", "rs_b", "rs_0"}

var compactObjects = []string{`{}`, `{"a":1}`, `{"q":"ä 😀","n":[1,2]}`, `{"nested":{"x":null}}`}

// genEvents gives event sequences in the normal form EncodeStream
// documents, with the argument deltas of parallel calls interleaved (A16).
func genEvents(t *rapid.T) []core.Event {
	var out []core.Event
	type plan struct {
		events []core.Event
	}
	var plans []*plan
	nCalls := rapid.IntRange(0, 3).Draw(t, "calls")
	for k := 0; k < nCalls; k++ {
		idx := (k + 1) * 1000
		item := fmt.Sprintf("fc_%d", k)
		p := &plan{}
		frags := argFragments(t, "args")
		first := ""
		if len(frags) > 0 && rapid.IntRange(0, 3).Draw(t, "inAdded") == 0 {
			first, frags = frags[0], frags[1:]
		}
		p.events = append(p.events, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: idx, HasIndex: true, ItemID: item,
			ID: fmt.Sprintf("call_%d", k), Name: rapid.StringMatching(`[a-z_]{1,8}`).Draw(t, "name"), Start: true, ArgsDelta: first}})
		args := first
		for _, d := range frags {
			args += d
			p.events = append(p.events, core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: idx, HasIndex: true, ItemID: item, ArgsDelta: d}})
		}
		if rapid.IntRange(0, 4).Draw(t, "open") > 0 {
			if args == "" {
				args = rapid.SampledFrom(compactObjects).Draw(t, "doneOnly") // A17
			}
			p.events = append(p.events, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: idx, HasIndex: true, ItemID: item, Args: &args, Done: true}})
		}
		plans = append(plans, p)
	}
	for {
		var live []*plan
		for _, p := range plans {
			if len(p.events) > 0 {
				live = append(live, p)
			}
		}
		if len(live) == 0 && rapid.IntRange(0, 2).Draw(t, "more") == 0 {
			break
		}
		if len(live) == 0 || rapid.IntRange(0, 3).Draw(t, "other") == 0 {
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				out = append(out, core.Event{Kind: core.EventText, Text: rapid.StringMatching(`[a-zä😀 "\\]{1,6}`).Draw(t, "text")})
			case 1:
				out = append(out, core.Event{Kind: core.EventThinking, Text: rapid.StringMatching(`[a-z ]{1,8}`).Draw(t, "thinking"), ItemID: rapid.SampledFrom(reasoningIDs).Draw(t, "rs")})
			case 2:
				out = append(out, core.Event{Kind: core.EventThinking, Signature: rapid.StringMatching(`[A-Za-z0-9+/=]{1,12}`).Draw(t, "enc"), ItemID: rapid.SampledFrom(reasoningIDs).Draw(t, "rs")})
			}
			continue
		}
		p := live[rapid.IntRange(0, len(live)-1).Draw(t, "pick")]
		out = append(out, p.events[0])
		p.events = p.events[1:]
	}
	if rapid.Bool().Draw(t, "error") {
		out = append(out, core.Event{Kind: core.EventError, Error: &core.ProviderError{Code: rapid.SampledFrom([]string{"", "server_error"}).Draw(t, "code"),
			Type: rapid.SampledFrom([]string{"", "server_error"}).Draw(t, "etype"), Message: "boom"}})
	} else {
		// The final response object always carries usage: a stream
		// without counts is written, and read back, with zero counts.
		u := &core.Usage{}
		if rapid.Bool().Draw(t, "usage") {
			u = &core.Usage{InputTokens: rapid.IntRange(0, 999).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 999).Draw(t, "out")}
		}
		out = append(out, core.Event{Kind: core.EventUsage, Usage: u})
		fin := core.Event{Kind: core.EventFinish}
		switch rapid.IntRange(0, 4).Draw(t, "finish") {
		case 0:
			fin.Finish, fin.ProviderFinish = core.FinishStop, "completed"
			if nCalls > 0 {
				fin.Finish = core.FinishToolCalls
			}
		case 1:
			fin.Finish, fin.ProviderFinish = core.FinishLength, "max_output_tokens"
		case 2:
			fin.Finish, fin.ProviderFinish = core.FinishContentFilter, "content_filter"
		case 3:
			fin.Finish, fin.ProviderFinish = core.FinishError, "failed"
		case 4:
			fin.Finish, fin.ProviderFinish = core.FinishOther, "cancelled"
		}
		out = append(out, fin)
	}
	if rapid.Bool().Draw(t, "hasID") {
		out[0].ID, out[0].Model = "resp_x", "gpt"
	}
	return out
}

func TestPropStreamRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckStreamRoundTrip(t, a, genEvents, cmpopts.EquateEmpty())
}

func genResponse(t *rapid.T) *core.Response {
	r := &core.Response{ID: "resp_" + rapid.StringMatching(`[a-z0-9]{1,6}`).Draw(t, "id"), Model: "gpt", Message: core.Message{Role: core.RoleAssistant}}
	calls := false
	for i := rapid.IntRange(0, 5).Draw(t, "parts"); i > 0; i-- {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			r.Message.Parts = append(r.Message.Parts, core.TextPart(rapid.StringMatching(`[a-z ä]{0,8}`).Draw(t, "text")))
		case 1:
			r.Message.Parts = append(r.Message.Parts, core.Part{Kind: core.PartThinking, Text: rapid.StringMatching(`[a-z]{0,8}`).Draw(t, "th"),
				Signature: rapid.StringMatching(`[A-Z]{0,4}`).Draw(t, "enc"), ItemID: fmt.Sprintf("rs_%d", i)})
		case 2:
			calls = true
			r.Message.Parts = append(r.Message.Parts, core.CallPart(core.Call{ID: fmt.Sprintf("call_%d", i), ItemID: fmt.Sprintf("fc_%d", i), Name: "f",
				Arguments: json.RawMessage(rapid.SampledFrom(compactObjects).Draw(t, "args"))}))
		}
	}
	switch rapid.IntRange(0, 2).Draw(t, "finish") {
	case 0:
		r.Finish, r.ProviderFinish = core.FinishStop, "completed"
		if calls {
			r.Finish = core.FinishToolCalls
		}
	case 1:
		r.Finish, r.ProviderFinish = core.FinishLength, "max_output_tokens"
		if n := len(r.Message.Parts); n > 0 && r.Message.Parts[n-1].Kind == core.PartToolCall {
			// B11: a call cut by the limit is incomplete; keep this one
			// complete by ending on text.
			r.Message.Parts = append(r.Message.Parts, core.TextPart("cut"))
		}
	case 2:
		r.Finish, r.ProviderFinish = core.FinishError, "failed"
		r.Error = &core.ProviderError{Code: "server_error", Message: "boom"}
	}
	// A body always carries usage: no counts read back as zero counts.
	r.Usage = &core.Usage{}
	if rapid.Bool().Draw(t, "usage") {
		r.Usage = &core.Usage{InputTokens: rapid.IntRange(0, 99).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 99).Draw(t, "out")}
	}
	return r
}

func TestPropResponseRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckResponseRoundTrip(t, a, genResponse, cmpopts.EquateEmpty())
}

// genRequest gives canonical requests in the form the Responses input
// carries: one message per turn (no two assistant or tool messages in a
// row), outputs for every call, reasoning with its item id, strict tools
// with an already strict schema.
func genRequest(t *rapid.T) *core.Request {
	req := &core.Request{Model: "gpt", MaxTokens: rapid.IntRange(0, 4096).Draw(t, "max"), Stream: rapid.Bool().Draw(t, "stream")}
	text := func(label string) core.Part {
		return core.TextPart(rapid.StringMatching(`[a-zA-Z ä😀"]{1,10}`).Draw(t, label))
	}
	if rapid.Bool().Draw(t, "system") {
		req.Messages = append(req.Messages, msg(core.RoleSystem, text("sys")))
	}
	nid := 0
	for turn := rapid.IntRange(1, 4).Draw(t, "turns"); turn > 0; turn-- {
		req.Messages = append(req.Messages, msg(core.RoleUser, text("user")))
		am := core.Message{Role: core.RoleAssistant}
		var calls []string
		for p := rapid.IntRange(1, 4).Draw(t, "aparts"); p > 0; p-- {
			nid++
			switch rapid.IntRange(0, 2).Draw(t, "akind") {
			case 0:
				am.Parts = append(am.Parts, core.Part{Kind: core.PartThinking, Text: rapid.StringMatching(`[a-z]{0,5}`).Draw(t, "th"),
					ItemID: fmt.Sprintf("rs_%d", nid), Signature: rapid.StringMatching(`[A-Z]{0,5}`).Draw(t, "enc")})
			case 1:
				am.Parts = append(am.Parts, text("assistant"))
			case 2:
				id := fmt.Sprintf("call_%d", nid)
				item := ""
				if rapid.Bool().Draw(t, "itemid") {
					item = fmt.Sprintf("fc_%d", nid)
				}
				calls = append(calls, id)
				am.Parts = append(am.Parts, fcall(id, item, rapid.SampledFrom(compactObjects).Draw(t, "args")))
			}
		}
		req.Messages = append(req.Messages, am)
		if len(calls) > 0 {
			tm := core.Message{Role: core.RoleTool}
			for _, k := range rapid.Permutation(calls).Draw(t, "order") {
				r := core.Result{CallID: k}
				for n := rapid.IntRange(0, 2).Draw(t, "rparts"); n > 0; n-- {
					r.Content = append(r.Content, text("out"))
				}
				tm.Parts = append(tm.Parts, core.ResultPart(r))
			}
			req.Messages = append(req.Messages, tm)
		}
	}
	for i := rapid.IntRange(0, 2).Draw(t, "tools"); i > 0; i-- {
		spec := core.ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: rapid.StringMatching(`[a-z ]{0,8}`).Draw(t, "desc"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), Strict: rapid.Bool().Draw(t, "strict")}
		if spec.Strict {
			s, err := oaichat.StrictSchema(spec.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			spec.InputSchema = s
		}
		req.Tools = append(req.Tools, spec)
	}
	if rapid.Bool().Draw(t, "choice") {
		mode := rapid.SampledFrom([]core.ToolChoiceMode{core.ToolChoiceAuto, core.ToolChoiceNone, core.ToolChoiceRequired, core.ToolChoiceTool}).Draw(t, "mode")
		req.ToolChoice = &core.ToolChoice{Mode: mode}
		if mode == core.ToolChoiceTool {
			req.ToolChoice.Name = "tool1"
		}
	}
	if rapid.Bool().Draw(t, "par") {
		p := rapid.Bool().Draw(t, "parv")
		req.ParallelToolCalls = &p
	}
	if rapid.Bool().Draw(t, "format") {
		req.ResponseFormat = &core.ResponseFormat{Name: "out", Schema: json.RawMessage(`{"type":"object"}`), Strict: rapid.Bool().Draw(t, "fstrict")}
	}
	return req
}

func TestPropRequestRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckRequestRoundTrip(t, a, genRequest, cmpopts.EquateEmpty())
}

// TestPropSplitCorpusStreams feeds every recorded stream through a reader
// that returns random-size pieces and checks the events equal the unsplit
// decoding.
func TestPropSplitCorpusStreams(t *testing.T) {
	a := New()
	streams, _ := adaptertest.ResponseBodies(t, "openai-responses", adaptertest.IsSSE)
	if len(streams) < 20 {
		t.Fatalf("found %d corpus streams, want at least 20", len(streams))
	}
	adaptertest.CheckSplitStreams(t, streams, func(r io.Reader) core.EventStream { return a.DecodeStream(r) })
}
