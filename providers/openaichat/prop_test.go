package openaichat

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

var (
	textGen = rapid.StringOfN(rapid.RuneFrom([]rune{'a', 'b', ' ', '\n', '"', '\\', 'é', '{', '😀'}), 1, 12, -1)
	idGen   = rapid.SampledFrom([]string{"call_1", "call_2", "gSIMJiOkT", "toolu_01A", "fc_" + strings.Repeat("9", 50)})
	nameGen = rapid.SampledFrom([]string{"add", "multiply", "get_weather", "web.search"})
	argsGen = rapid.SampledFrom([]string{`{}`, `{"a":1}`, `{"city":"Paris","units":["c"]}`, `{"q":"é \" \\n"}`, `{"n":null,"b":true}`})
	finGen  = rapid.SampledFrom([]string{"stop", "tool_calls", "length", "content_filter", "function_call", "error", "other", "eos"})
)

// genEvent draws one event in the normal form EncodeStream keeps: a call
// event is a start exactly when it has an id or a name, and nothing the wire
// cannot carry is set.
func genEvent(t *rapid.T) core.Event {
	switch rapid.IntRange(0, 6).Draw(t, "kind") {
	case 0:
		return core.Event{Kind: core.EventText, Text: textGen.Draw(t, "text")}
	case 1:
		return core.Event{Kind: core.EventThinking, Text: textGen.Draw(t, "thinking")}
	case 2, 3:
		// No delta is a whole object: a repeated whole object would read
		// back as a consolidated copy (B02), tested on its own.
		ch := core.Chunk{ArgsDelta: rapid.SampledFrom([]string{"", `{"a":`, `1}`, `{"x":`, `"y"}`, `"\u00e9`}).Draw(t, "args")}
		if rapid.Bool().Draw(t, "hasIndex") {
			ch.HasIndex, ch.Index = true, rapid.IntRange(-1, 3).Draw(t, "index")
		}
		if rapid.Bool().Draw(t, "hasID") {
			ch.ID = idGen.Draw(t, "id")
		}
		if rapid.Bool().Draw(t, "hasName") {
			ch.Name = nameGen.Draw(t, "name")
		}
		kind := core.EventCallDelta
		if ch.ID != "" || ch.Name != "" {
			kind, ch.Start = core.EventCallStart, true
		}
		return core.Event{Kind: kind, Chunk: &ch}
	case 4:
		return core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}}
	case 5:
		pf := finGen.Draw(t, "finish")
		return core.Event{Kind: core.EventFinish, Finish: FinishReason(pf), ProviderFinish: pf}
	}
	return core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: rapid.SampledFrom([]string{"", "server_error"}).Draw(t, "etype"), Code: rapid.SampledFrom([]string{"", "429"}).Draw(t, "code"), Message: textGen.Draw(t, "msg")}}
}

// TestEventsRoundTrip: canonical events → EncodeStream → DecodeStream gives
// the same events, read in random pieces.
func TestEventsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		evs := rapid.SliceOfN(rapid.Custom(genEvent), 0, 12).Draw(t, "events")
		if len(evs) > 0 && rapid.Bool().Draw(t, "meta") {
			evs[0].ID, evs[0].Model = "chatcmpl-1", "gpt-x"
		}
		a := New()
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, evs); err != nil {
			t.Fatalf("encode: %v", err)
		}
		got, err := drain(a.DecodeStream(adaptertest.DrawSplitReader(t, buf.Bytes())))
		if err != nil {
			t.Fatalf("decode %q: %v", buf.String(), err)
		}
		if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip through\n%s\n(-want +got):\n%s", buf.String(), diff)
		}
	})
}

func genCall(t *rapid.T) core.Call {
	return core.Call{ID: idGen.Draw(t, "id"), Name: nameGen.Draw(t, "name"), Arguments: json.RawMessage(argsGen.Draw(t, "args"))}
}

func textParts(t *rapid.T, label string, min int) []core.Part {
	var ps []core.Part
	for i, n := 0, rapid.IntRange(min, 2).Draw(t, label); i < n; i++ {
		ps = append(ps, core.TextPart(textGen.Draw(t, label)))
	}
	return ps
}

func genAssistant(t *rapid.T) core.Message {
	m := core.Message{Role: core.RoleAssistant}
	if rapid.Bool().Draw(t, "thinking") {
		m.Parts = append(m.Parts, core.Part{Kind: core.PartThinking, Text: textGen.Draw(t, "thought")})
	}
	m.Parts = append(m.Parts, textParts(t, "atext", 0)...)
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "ncalls"); i < n; i++ {
		m.Parts = append(m.Parts, core.CallPart(genCall(t)))
	}
	if len(m.Parts) == 0 {
		m.Parts = []core.Part{core.TextPart("x")}
	}
	return m
}

// TestResponseRoundTrip: a canonical response → EncodeResponse →
// DecodeResponse gives the same message, finish and usage.
func TestResponseRoundTrip(t *testing.T) {
	adaptertest.CheckResponseRoundTrip(t, New(), genResponse)
}

// genResponse draws a response in the form DecodeResponse gives.
func genResponse(t *rapid.T) *core.Response {
	pf := finGen.Draw(t, "finish")
	// A body always carries usage; a response without counts is written,
	// and read back, as zero counts.
	resp := &core.Response{ID: "r", Model: "m", Message: genAssistant(t), Finish: FinishReason(pf), ProviderFinish: pf, Usage: &core.Usage{}}
	if rapid.Bool().Draw(t, "usage") {
		resp.Usage = &core.Usage{InputTokens: 3, OutputTokens: 9}
	}
	return resp
}

// TestRequestRoundTrip: a canonical request → EncodeRequest → DecodeRequest
// gives it back, with max_tokens and with max_completion_tokens.
func TestRequestRoundTrip(t *testing.T) {
	t.Run("max_tokens", func(t *testing.T) { adaptertest.CheckRequestRoundTrip(t, New(), genRequest) })
	t.Run("max_completion_tokens", func(t *testing.T) {
		adaptertest.CheckRequestRoundTrip(t, New(MaxCompletionTokens()), genRequest)
	})
}

// genRequest draws a request in the form DecodeRequest gives.
func genRequest(t *rapid.T) *core.Request {
	req := &core.Request{Model: rapid.SampledFrom([]string{"", "gpt-4o"}).Draw(t, "model")}
	if rapid.Bool().Draw(t, "system") {
		req.Messages = append(req.Messages, core.Message{Role: core.RoleSystem, Parts: textParts(t, "sys", 1)})
	}
	for i, n := 0, rapid.IntRange(1, 4).Draw(t, "turns"); i < n; i++ {
		req.Messages = append(req.Messages, core.Message{Role: core.RoleUser, Parts: textParts(t, "user", 1)})
		am := genAssistant(t)
		req.Messages = append(req.Messages, am)
		for _, c := range am.Calls() {
			r := core.Result{CallID: c.ID, Content: textParts(t, "result", 1)}
			req.Messages = append(req.Messages, core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(r)}})
		}
	}
	for i, n := 0, rapid.IntRange(0, 2).Draw(t, "ntools"); i < n; i++ {
		// Tool specs must have valid names (E01: "web.search" is refused).
		spec := core.ToolSpec{Name: rapid.SampledFrom([]string{"add", "multiply", "get_weather", "web_search"}).Draw(t, "tool"), Description: rapid.SampledFrom([]string{"", "adds"}).Draw(t, "desc"),
			InputSchema: json.RawMessage(`{"properties":{"a":{"type":"integer"}},"type":"object"}`)}
		if rapid.Bool().Draw(t, "strict") {
			spec.Strict = true
			s, err := StrictSchema(spec.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			spec.InputSchema = s
		}
		req.Tools = append(req.Tools, spec)
	}
	switch rapid.IntRange(0, 4).Draw(t, "choice") {
	case 1:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
	case 2:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
	case 3:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
	case 4:
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "add"}
	}
	if rapid.Bool().Draw(t, "setParallel") {
		p := rapid.Bool().Draw(t, "parallel")
		req.ParallelToolCalls = &p
	}
	if rapid.Bool().Draw(t, "format") {
		req.ResponseFormat = &core.ResponseFormat{Name: "out", Schema: json.RawMessage(`{"type":"object"}`), Strict: rapid.Bool().Draw(t, "fstrict")}
	}
	req.MaxTokens = rapid.IntRange(0, 4096).Draw(t, "max")
	req.Stream = rapid.Bool().Draw(t, "stream")
	return req
}

// TestCorpusStreamSplits: a recorded stream read in arbitrary pieces gives
// the same events as read whole.
func TestCorpusStreamSplits(t *testing.T) {
	var bodies [][]byte
	for _, rs := range corpusStreams(t) {
		bodies = append(bodies, rs.body)
	}
	adaptertest.CheckSplitStreams(t, bodies, func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}

// TestStreamResponseParity: the same reply sent as a response and as a
// stream gives the same text, calls, finish and usage (D03, F02).
func TestStreamResponseParity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pf := finGen.Draw(t, "finish")
		if pf == "length" || pf == "content_filter" || pf == "error" {
			pf = "tool_calls" // a truncated stream leaves its calls incomplete
		}
		msg := genAssistant(t)
		resp := &core.Response{ID: "r", Model: "m", Message: msg, Finish: FinishReason(pf), ProviderFinish: pf, Usage: &core.Usage{InputTokens: 1, OutputTokens: 2}}
		var evs []core.Event
		ids := map[string]bool{}
		for i, p := range msg.Parts {
			switch p.Kind {
			case core.PartThinking:
				evs = append(evs, core.Event{Kind: core.EventThinking, Text: p.Text})
			case core.PartText:
				evs = append(evs, core.Event{Kind: core.EventText, Text: p.Text})
			case core.PartToolCall:
				if ids[p.Call.ID] {
					t.Skip("two calls sharing an id are another case (D06)")
				}
				ids[p.Call.ID] = true
				evs = append(evs, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: p.Call.ID, Name: p.Call.Name, Index: i, HasIndex: true, ArgsDelta: string(p.Call.Arguments), Start: true}})
			}
		}
		evs = append(evs, core.Event{Kind: core.EventFinish, Finish: resp.Finish, ProviderFinish: pf}, core.Event{Kind: core.EventUsage, Usage: resp.Usage})
		a := New()
		body, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatal(err)
		}
		fromBody, err := a.DecodeResponse(body)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, evs); err != nil {
			t.Fatal(err)
		}
		fromStream, err := core.Collect(a.DecodeStream(&buf))
		if err != nil {
			t.Fatalf("collect: %v", err)
		}
		type view struct {
			Text, Finish, ProviderFinish string
			Calls                        []core.Call
			Usage                        *core.Usage
		}
		v := func(r *core.Response) view {
			return view{r.Text(), string(r.Finish), r.ProviderFinish, r.Calls(), r.Usage}
		}
		if diff := cmp.Diff(v(fromBody), v(fromStream), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("(-response +stream):\n%s", diff)
		}
	})
}
