package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

// argText gives argument fragments with quotes, escapes and multi-byte
// characters, sometimes cut inside a character.
func argText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		s := rapid.SampledFrom([]string{`{"a":`, `"x\"y"`, `ä`, `😀`, `\n`, `}`, `1`, ` `, "\t", `\u00e9`}).Draw(t, "piece")
		if rapid.Bool().Draw(t, "cut") && len(s) > 1 {
			s = s[:rapid.IntRange(1, len(s)-1).Draw(t, "at")]
		}
		return s
	})
}

var compactObjects = []string{`{}`, `{"a":1}`, `{"q":"ä 😀","n":[1,2]}`, `{"nested":{"x":null}}`}

var stopReasons = []string{"end_turn", "tool_use", "stop_sequence", "refusal", "pause_turn", "max_tokens"}

// genEvents gives event sequences in the normal form EncodeStream
// documents, so that decoding gives them back exactly.
func genEvents(t *rapid.T) []core.Event {
	var out []core.Event
	n := rapid.IntRange(0, 6).Draw(t, "segments")
	lastOpen := false
	for i := 0; i < n; i++ {
		lastOpen = false
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			for j := rapid.IntRange(1, 3).Draw(t, "texts"); j > 0; j-- {
				out = append(out, core.Event{Kind: core.EventText, Text: rapid.StringMatching(`[a-zä😀 "\\]{1,6}`).Draw(t, "text")})
			}
		case 1:
			for j := rapid.IntRange(1, 3).Draw(t, "thinks"); j > 0; j-- {
				switch rapid.IntRange(0, 2).Draw(t, "think") {
				case 0:
					out = append(out, core.Event{Kind: core.EventThinking, Signature: rapid.StringMatching(`[A-Za-z0-9+/=]{1,12}`).Draw(t, "signature")})
				case 1:
					out = append(out, core.Event{Kind: core.EventThinking, Text: rapid.StringMatching(`[a-z ]{1,8}`).Draw(t, "thinking")})
				case 2:
					// Redacted thinking: a block of its own (G12).
					out = append(out, core.Event{Kind: core.EventThinking, Data: rapid.StringMatching(`[A-Za-z0-9+/=]{1,16}`).Draw(t, "redacted")})
				}
			}
		case 2:
			idx := (i + 1) * 1000
			out = append(out, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: idx, HasIndex: true,
				ID: fmt.Sprintf("toolu_%d", i), Name: rapid.StringMatching(`[a-z_]{1,8}`).Draw(t, "name"), Start: true}})
			if rapid.Bool().Draw(t, "deltas") {
				for j := rapid.IntRange(1, 4).Draw(t, "ndeltas"); j > 0; j-- {
					out = append(out, core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: idx, HasIndex: true, ArgsDelta: argText().Draw(t, "delta")}})
				}
				if rapid.IntRange(0, 4).Draw(t, "open") == 0 {
					lastOpen = true
					continue
				}
				out = append(out, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: idx, HasIndex: true, Done: true}})
			} else {
				args := rapid.SampledFrom(compactObjects).Draw(t, "args")
				out = append(out, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: idx, HasIndex: true, Done: true, Args: &args}})
			}
		}
	}
	switch ending := rapid.IntRange(0, 3).Draw(t, "ending"); ending {
	case 1, 2:
		stop := rapid.SampledFrom(stopReasons).Draw(t, "stop")
		if stop == "max_tokens" && !lastOpen && len(out) > 0 && out[len(out)-1].Kind == core.EventCallEnd {
			// B11: the call cut by max_tokens never ends.
			out = out[:len(out)-1]
		}
		// Every message_delta carries usage, so a finish always comes back
		// after a usage event (TestEncodeStreamUsage covers a finish
		// without one); ending 2 draws the zero usage that stands in for
		// none.
		u := &core.Usage{}
		if ending == 1 {
			u = &core.Usage{InputTokens: rapid.IntRange(0, 999).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 999).Draw(t, "out")}
		}
		out = append(out, core.Event{Kind: core.EventUsage, Usage: u})
		out = append(out, core.Event{Kind: core.EventFinish, Finish: finishOf(stop), ProviderFinish: stop})
	case 3:
		out = append(out, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "overloaded_error", Message: "busy"}})
	}
	if len(out) > 0 && rapid.Bool().Draw(t, "hasID") {
		out[0].ID, out[0].Model = "msg_x", "claude"
	}
	return out
}

func TestPropStreamRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckStreamRoundTrip(t, a, genEvents, cmpopts.EquateEmpty())
}

func genResponse(t *rapid.T) *core.Response {
	r := &core.Response{ID: "msg_" + rapid.StringMatching(`[a-z0-9]{1,6}`).Draw(t, "id"), Model: "claude", Message: core.Message{Role: core.RoleAssistant}}
	for i := rapid.IntRange(0, 5).Draw(t, "parts"); i > 0; i-- {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			r.Message.Parts = append(r.Message.Parts, core.TextPart(rapid.StringMatching(`[a-z ä]{0,8}`).Draw(t, "text")))
		case 1:
			r.Message.Parts = append(r.Message.Parts, core.Part{Kind: core.PartThinking, Text: rapid.StringMatching(`[a-z]{0,8}`).Draw(t, "th"), Signature: rapid.StringMatching(`[A-Z]{0,4}`).Draw(t, "sig")})
		case 2:
			r.Message.Parts = append(r.Message.Parts, core.Part{Kind: core.PartThinking, Data: rapid.StringMatching(`[A-Z]{1,4}`).Draw(t, "data")})
		case 3:
			r.Message.Parts = append(r.Message.Parts, core.CallPart(core.Call{ID: fmt.Sprintf("toolu_%d", i), Name: "f", Arguments: json.RawMessage(rapid.SampledFrom(compactObjects).Draw(t, "args"))}))
		}
	}
	stop := rapid.SampledFrom(stopReasons).Draw(t, "stop")
	r.Finish, r.ProviderFinish = finishOf(stop), stop
	if n := len(r.Message.Parts); stop == "max_tokens" && n > 0 && r.Message.Parts[n-1].Kind == core.PartToolCall {
		// B11: a tool_use cut by max_tokens is incomplete; keep this one
		// complete by ending on text.
		r.Message.Parts = append(r.Message.Parts, core.TextPart("cut"))
	}
	// A body always carries usage; a response without counts is written,
	// and read back, as zero counts.
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

// genRequest gives canonical requests in the form Anthropic can carry:
// system first, results in call order right after their calls, text with
// a character that is not white space (the encoder drops blank text, G11),
// ParallelToolCalls only beside a ToolChoice, ResponseFormat without name
// or strict.
func genRequest(t *rapid.T) *core.Request {
	req := &core.Request{Model: "claude", MaxTokens: rapid.IntRange(0, 4096).Draw(t, "max"), Stream: rapid.Bool().Draw(t, "stream")}
	text := func(label string) core.Part {
		return core.TextPart(rapid.StringMatching(`[a-zA-Z ä😀"]{0,5}[a-zA-Zä😀"][a-zA-Z ä😀"]{0,4}`).Draw(t, label))
	}
	if rapid.Bool().Draw(t, "system") {
		req.Messages = append(req.Messages, msg(core.RoleSystem, text("sys")))
	}
	nid := 0
	for turn := rapid.IntRange(1, 4).Draw(t, "turns"); turn > 0; turn-- {
		req.Messages = append(req.Messages, msg(core.RoleUser, text("user")))
		am := core.Message{Role: core.RoleAssistant}
		if rapid.Bool().Draw(t, "thinking") {
			am.Parts = append(am.Parts, core.Part{Kind: core.PartThinking, Text: "t", Signature: rapid.StringMatching(`[A-Z]{0,6}`).Draw(t, "sig")})
		}
		if rapid.Bool().Draw(t, "atext") {
			am.Parts = append(am.Parts, text("assistant"))
		}
		var calls []core.Call
		for c := rapid.IntRange(0, 3).Draw(t, "calls"); c > 0; c-- {
			nid++
			cl := core.Call{ID: fmt.Sprintf("toolu_%d", nid), Name: "f", Arguments: json.RawMessage(rapid.SampledFrom(compactObjects).Draw(t, "args"))}
			calls = append(calls, cl)
			am.Parts = append(am.Parts, core.CallPart(cl))
		}
		if len(am.Parts) == 0 {
			am.Parts = append(am.Parts, text("assistant"))
		}
		req.Messages = append(req.Messages, am)
		if len(calls) > 0 {
			tm := core.Message{Role: core.RoleTool}
			for _, c := range calls {
				r := core.Result{CallID: c.ID, IsError: rapid.Bool().Draw(t, "iserr")}
				for k := rapid.IntRange(0, 2).Draw(t, "rparts"); k > 0; k-- {
					r.Content = append(r.Content, text("result"))
				}
				tm.Parts = append(tm.Parts, core.ResultPart(r))
			}
			if rapid.Bool().Draw(t, "tooltext") {
				tm.Parts = append(tm.Parts, text("after"))
			}
			req.Messages = append(req.Messages, tm)
		}
	}
	for i := rapid.IntRange(0, 2).Draw(t, "tools"); i > 0; i-- {
		req.Tools = append(req.Tools, core.ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: rapid.StringMatching(`[a-z ]{0,8}`).Draw(t, "desc"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	}
	if rapid.Bool().Draw(t, "choice") {
		mode := rapid.SampledFrom([]core.ToolChoiceMode{core.ToolChoiceAuto, core.ToolChoiceNone, core.ToolChoiceRequired, core.ToolChoiceTool}).Draw(t, "mode")
		req.ToolChoice = &core.ToolChoice{Mode: mode}
		if mode == core.ToolChoiceTool {
			req.ToolChoice.Name = "tool1"
		}
		if rapid.Bool().Draw(t, "par") {
			p := rapid.Bool().Draw(t, "parv")
			req.ParallelToolCalls = &p
		}
	}
	if rapid.Bool().Draw(t, "format") {
		req.ResponseFormat = &core.ResponseFormat{Schema: json.RawMessage(`{"type":"object"}`)}
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
	streams, _ := adaptertest.ResponseBodies(t, "anthropic", adaptertest.IsSSE)
	if len(streams) < 15 {
		t.Fatalf("found %d corpus streams, want at least 15", len(streams))
	}
	adaptertest.CheckSplitStreams(t, streams, func(r io.Reader) core.EventStream { return a.DecodeStream(r) })
}
