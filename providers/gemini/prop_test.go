package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

var (
	genID   = rapid.StringMatching(`[a-z0-9]{8}`)
	genName = rapid.StringMatching(`[a-z][a-z_]{0,9}`)
	genSig  = rapid.OneOf(rapid.Just(""), rapid.StringMatching(`[A-Za-z0-9+/]{4,16}=?`))
	genText = rapid.StringN(1, 40, -1)
)

func genArgs(t *rapid.T, label string) string {
	n := rapid.IntRange(0, 3).Draw(t, label+"_n")
	m := map[string]any{}
	for i := 0; i < n; i++ {
		k := rapid.StringMatching(`[a-z]{1,6}`).Draw(t, label+"_k")
		switch rapid.IntRange(0, 3).Draw(t, label+"_kind") {
		case 0:
			m[k] = rapid.String().Draw(t, label+"_s")
		case 1:
			m[k] = rapid.IntRange(-1000, 1000).Draw(t, label+"_i")
		case 2:
			m[k] = rapid.Bool().Draw(t, label+"_b")
		default:
			m[k] = []any{rapid.String().Draw(t, label+"_a"), map[string]any{"x": nil}}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var finishRaws = []string{"STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "OTHER"}

// genEvents draws a canonical event sequence in the normal form the
// decoder produces.
func genEvents(t *rapid.T) []core.Event {
	var evs []core.Event
	hasCalls, hasContent := false, false
	n := rapid.IntRange(0, 6).Draw(t, "n")
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			evs = append(evs, core.Event{Kind: core.EventText, Text: genText.Draw(t, "text"), Signature: genSig.Draw(t, "tsig")})
			hasContent = true
		case 1:
			evs = append(evs, core.Event{Kind: core.EventThinking, Text: genText.Draw(t, "think"), Signature: genSig.Draw(t, "ksig")})
			hasContent = true
		case 2:
			evs = append(evs, core.Event{Kind: core.EventText, Signature: rapid.StringMatching(`[A-Za-z0-9]{4,8}`).Draw(t, "esig")})
		default:
			id := genID.Draw(t, "id")
			args := genArgs(t, "args")
			evs = append(evs,
				core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: id, Name: genName.Draw(t, "name"), Start: true, Signature: genSig.Draw(t, "csig")}},
				core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: id, Done: true, Args: &args}})
			hasCalls, hasContent = true, true
		}
	}
	if rapid.Bool().Draw(t, "error") {
		evs = append(evs, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "UNAVAILABLE", Code: "503", Message: genText.Draw(t, "emsg")}})
	}
	// Every chunk carries usageMetadata: a stream without counts is
	// written, and read back, with zero counts.
	u := &core.Usage{}
	if rapid.Bool().Draw(t, "usage") {
		u = &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}
	}
	evs = append(evs, core.Event{Kind: core.EventUsage, Usage: u})
	if rapid.Bool().Draw(t, "finish") {
		raw := rapid.SampledFrom(finishRaws).Draw(t, "raw")
		evs = append(evs, core.Event{Kind: core.EventFinish, Finish: NormalizeFinish(raw, hasCalls, hasContent), ProviderFinish: raw})
	}
	if len(evs) > 0 && rapid.Bool().Draw(t, "meta") {
		evs[0].ID = genID.Draw(t, "rid")
		evs[0].Model = rapid.SampledFrom([]string{"gemini-2.5-flash", "gemini-3-pro-preview"}).Draw(t, "model")
	}
	return evs
}

func TestPropStreamRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		evs := genEvents(t)
		var opts []Option
		if rapid.Bool().Draw(t, "array") {
			opts = append(opts, WithJSONArrayStream())
		}
		a := New(opts...)
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, evs); err != nil {
			t.Fatalf("EncodeStream: %v", err)
		}
		got, err := adaptertest.Drain(a.DecodeStream(&buf))
		if err != nil {
			t.Fatalf("DecodeStream: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
	})
}

func genResponse(t *rapid.T) *core.Response {
	resp := &core.Response{Message: core.Message{Role: core.RoleAssistant}}
	hasCalls, hasContent := false, false
	n := rapid.IntRange(0, 5).Draw(t, "n")
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			resp.Message.Parts = append(resp.Message.Parts, core.Part{Kind: core.PartText, Text: genText.Draw(t, "text"), Signature: genSig.Draw(t, "tsig")})
		case 1:
			resp.Message.Parts = append(resp.Message.Parts, core.Part{Kind: core.PartThinking, Text: genText.Draw(t, "think"), Signature: genSig.Draw(t, "ksig")})
		default:
			resp.Message.Parts = append(resp.Message.Parts, core.CallPart(core.Call{
				ID: genID.Draw(t, "id"), Name: genName.Draw(t, "name"),
				Arguments: json.RawMessage(genArgs(t, "args")), Signature: genSig.Draw(t, "csig"),
			}))
			hasCalls = true
		}
		hasContent = true
	}
	raw := rapid.SampledFrom(finishRaws).Draw(t, "raw")
	resp.Finish, resp.ProviderFinish = NormalizeFinish(raw, hasCalls, hasContent), raw
	// A body always carries usageMetadata: no counts read back as zero.
	resp.Usage = &core.Usage{}
	if rapid.Bool().Draw(t, "usage") {
		resp.Usage = &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}
	}
	if rapid.Bool().Draw(t, "meta") {
		resp.ID, resp.Model = genID.Draw(t, "rid"), "gemini-2.5-flash"
	}
	return resp
}

func TestPropResponseRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckResponseRoundTrip(t, a, genResponse, cmpopts.EquateEmpty())
}

func genRequest(t *rapid.T) *core.Request {
	req := &core.Request{}
	if rapid.Bool().Draw(t, "system") {
		m := core.Message{Role: core.RoleSystem}
		for i := rapid.IntRange(1, 2).Draw(t, "sysn"); i > 0; i-- {
			m.Parts = append(m.Parts, core.TextPart(genText.Draw(t, "sys")))
		}
		req.Messages = append(req.Messages, m)
	}
	var toolNames []string
	for i := rapid.IntRange(0, 3).Draw(t, "ntools"); i > 0; i-- {
		name := genName.Draw(t, "tool")
		schema, _, err := SanitizeSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"query"}},"required":["q"]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Tools = append(req.Tools, core.ToolSpec{Name: name, Description: rapid.StringMatching(`[a-z ]{0,12}`).Draw(t, "desc"), InputSchema: schema})
		toolNames = append(toolNames, name)
	}
	for turn := rapid.IntRange(1, 3).Draw(t, "turns"); turn > 0; turn-- {
		req.Messages = append(req.Messages, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(genText.Draw(t, "user"))}})
		asst := core.Message{Role: core.RoleAssistant}
		if rapid.Bool().Draw(t, "thinks") {
			asst.Parts = append(asst.Parts, core.Part{Kind: core.PartThinking, Text: genText.Draw(t, "think"), Signature: genSig.Draw(t, "ksig")})
		}
		if rapid.Bool().Draw(t, "says") {
			asst.Parts = append(asst.Parts, core.Part{Kind: core.PartText, Text: genText.Draw(t, "text")})
		}
		var calls []core.Call
		for i := rapid.IntRange(0, 3).Draw(t, "ncalls"); i > 0; i-- {
			c := core.Call{ID: genID.Draw(t, "id"), Name: genName.Draw(t, "name"), Arguments: json.RawMessage(genArgs(t, "args")), Signature: genSig.Draw(t, "csig")}
			calls = append(calls, c)
			asst.Parts = append(asst.Parts, core.CallPart(c))
		}
		req.Messages = append(req.Messages, asst)
		if len(calls) > 0 {
			tool := core.Message{Role: core.RoleTool}
			for _, c := range calls {
				tool.Parts = append(tool.Parts, core.ResultPart(core.Result{
					CallID: c.ID, Name: c.Name, IsError: rapid.Bool().Draw(t, "iserr"),
					Content: []core.Part{core.TextPart(rapid.StringMatching(`[a-zA-Z0-9 .]{0,20}`).Draw(t, "result"))},
				}))
			}
			req.Messages = append(req.Messages, tool)
		}
	}
	switch rapid.IntRange(0, 4).Draw(t, "choice") {
	case 1:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
	case 2:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
	case 3:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
	case 4:
		if len(toolNames) > 0 {
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: rapid.SampledFrom(toolNames).Draw(t, "forced")}
		}
	}
	if rapid.Bool().Draw(t, "format") {
		req.ResponseFormat = &core.ResponseFormat{Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)}
	}
	req.MaxTokens = rapid.IntRange(0, 8192).Draw(t, "max")
	if rapid.Bool().Draw(t, "model") {
		req.Model = "gemini-2.5-flash"
	}
	return req
}

// TestPropRequestRoundTrip checks decode ∘ encode = identity on requests in
// the form Gemini can carry (one leading system message, one tool message
// per model turn with calls, results in call order, Stream and
// ParallelToolCalls unset, response formats without a name).
func TestPropRequestRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckRequestRoundTrip(t, a, genRequest, cmpopts.EquateEmpty())
}

// TestPropSplitCorpusStreams checks that every recorded stream gives the
// same events whatever the sizes of the reads that deliver it.
func TestPropSplitCorpusStreams(t *testing.T) {
	a := New()
	var streams [][]byte
	for _, b := range corpusBodies(t) {
		if isStream(b) {
			streams = append(streams, b)
		}
	}
	if len(streams) < 20 {
		t.Fatalf("only %d corpus streams", len(streams))
	}
	adaptertest.CheckSplitStreams(t, streams, func(r io.Reader) core.EventStream { return a.DecodeStream(r) })
}
