package mistral

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/sse"
	"pgregory.net/rapid"
)

// TestCorpus: the three recordings decode without error and give the calls
// in the golden files (one weather call gSIMJiOkT whole in one delta, one
// webSearchTool call streamed OpenAI-style).
func TestCorpus(t *testing.T) {
	calls := 0
	for _, rec := range loadCorpus(t) {
		t.Run(rec.name, func(t *testing.T) {
			a := New()
			var s golden
			if rec.stream {
				evs, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(rec.body)))
				if err != nil {
					t.Fatalf("decode stream: %v", err)
				}
				s = golden{adaptertest.AssembleChat(evs), adaptertest.EventLog(evs)}
				// The real Buffer gives the same call.
				resp, err := core.Collect(core.SliceStream(evs))
				if err != nil {
					t.Fatalf("collect: %v", err)
				}
				if got := resp.Calls(); len(got) != 1 || len(s.Calls) != 1 || got[0].ID != s.Calls[0].ID || got[0].Name != s.Calls[0].Name || !cmp.Equal(got[0].Arguments, s.Calls[0].Arguments, adaptertest.EquateJSON()) {
					t.Errorf("core.Collect calls %v, want %v", got, s.Calls)
				}
			} else {
				resp, err := a.DecodeResponse(rec.body)
				if err != nil {
					t.Fatalf("decode response: %v", err)
				}
				s = golden{ChatSummary: adaptertest.SummarizeChatResponse(resp)}
			}
			if len(s.Calls) != 1 || len(s.Incomplete) != 0 {
				t.Errorf("got %d calls and %d incomplete, want 1 and 0", len(s.Calls), len(s.Incomplete))
			}
			calls += len(s.Calls)
			checkGolden(t, rec.name, s)
		})
	}
	if calls != 3 {
		t.Errorf("got %d calls in the corpus, want 3", calls)
	}
}

func sseOf(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String() + "data: [DONE]\n\n"
}

func TestStreamShapes(t *testing.T) {
	start := func(id, name string, idx int, has bool, args string) core.Event {
		return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: id, Name: name, Index: idx, HasIndex: has, ArgsDelta: args, Start: true}}
	}
	deltaEv := func(idx int, args string) core.Event {
		return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: idx, HasIndex: true, ArgsDelta: args}}
	}
	fin := core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_calls"}
	tests := []struct {
		name string
		in   string
		want []core.Event
	}{
		{"A14 whole calls in one delta without index",
			sseOf(`{"id":"r","model":"mistral-small","choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"id":"aaaaaaaa1","function":{"name":"f","arguments":"{\"a\": 1}"}},{"id":"bbbbbbbb2","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`),
			[]core.Event{start("aaaaaaaa1", "f", 0, false, `{"a": 1}`), start("bbbbbbbb2", "g", 0, false, `{}`), fin}},
		{"A14 incremental OpenAI-style deltas",
			sseOf(`{"id":"r","model":"mistral-small","choices":[{"index":0,"delta":{"tool_calls":[{"id":"aaaaaaaa1","type":"function","index":0,"function":{"name":"f","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":": 1}"}}]},"finish_reason":"tool_calls"}]}`),
			[]core.Event{start("aaaaaaaa1", "f", 0, true, ""), deltaEv(0, `{"a"`), deltaEv(0, `: 1}`), fin}},
		{"finish model_length is length",
			sseOf(`{"id":"r","model":"mistral-small","choices":[{"index":0,"delta":{"content":"ab"},"finish_reason":"model_length"}]}`),
			[]core.Event{{Kind: core.EventText, Text: "ab"}, {Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "model_length"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want[0].ID, tt.want[0].Model = "r", "mistral-small"
			got, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(tt.in)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestThinking: Magistral's thinking chunks are read as thinking, in
// responses and streams, and written back in the same form.
func TestThinking(t *testing.T) {
	a := New()
	resp, err := a.DecodeResponse([]byte(`{"id":"r","model":"magistral-medium-2509","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me "},{"type":"text","text":"think."}]},{"type":"text","text":"42"}]},"finish_reason":"stop"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Part{{Kind: core.PartThinking, Text: "Let me think."}, core.TextPart("42")}
	if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	evs, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(sseOf(
		`{"id":"r","model":"magistral","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`))))
	if err != nil {
		t.Fatal(err)
	}
	wantEv := []core.Event{{Kind: core.EventThinking, Text: "hm", ID: "r", Model: "magistral"}, {Kind: core.EventText, Text: "ok"}, {Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "stop"}}
	if diff := cmp.Diff(wantEv, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	body, err := a.EncodeRequest(&core.Request{Messages: []core.Message{{Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartThinking, Text: "t"}, core.TextPart("a")}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantBody := `{"messages":[{"role":"assistant","content":[{"thinking":[{"text":"t","type":"text"}],"type":"thinking"},{"text":"a","type":"text"}]}]}`
	if diff := cmp.Diff(wantBody, string(body)); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{"gSIMJiOkT": true, "123456789": true, "gSIMJiOk": false, "gSIMJiOkTx": false, "gSIMJ-OkT": false, "chatcmpl-tool-9f149c74c42f265b": false, "": false, "gSIMJiOk\u00e9": false} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestIDMapping (D05): foreign ids are sent as valid 9-character ids, valid
// ids are left alone, and replacements map back in responses, streams and
// follow-up requests.
func TestIDMapping(t *testing.T) {
	a := New()
	foreign := []string{"call_ehIWdjL1abZk1h8FWGLQ0Hie", "toolu_01A09q90qw90lq917835lq9", "chatcmpl-tool-9f149c74c42f265b", "fc_" + strings.Repeat("z", 60)}
	req := &core.Request{Model: "mistral-small-latest", ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceRequired}}
	var parts []core.Part
	for _, id := range append(foreign, "gSIMJiOkT") {
		parts = append(parts, core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)}))
	}
	req.Messages = append(req.Messages, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}, core.Message{Role: core.RoleAssistant, Parts: parts})
	for _, p := range parts {
		req.Messages = append(req.Messages, core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: p.Call.ID, Content: []core.Part{core.TextPart("ok")}})}})
	}
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		ToolChoice string `json:"tool_choice"`
		Messages   []struct {
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	if w.ToolChoice != "any" {
		t.Errorf("tool_choice = %q, want any", w.ToolChoice)
	}
	sent := map[string]string{}
	for i, tc := range w.Messages[1].ToolCalls {
		if !ValidID(tc.ID) {
			t.Errorf("call %d sent with invalid id %q", i, tc.ID)
		}
		if got := w.Messages[2+i].ToolCallID; got != tc.ID {
			t.Errorf("result %d sent with id %q, call with %q", i, got, tc.ID)
		}
		sent[parts[i].Call.ID] = tc.ID
	}
	if sent["gSIMJiOkT"] != "gSIMJiOkT" {
		t.Errorf("valid id changed to %q", sent["gSIMJiOkT"])
	}
	if a.IDMap.Len() != len(foreign) {
		t.Errorf("IDMap holds %d pairs, want %d", a.IDMap.Len(), len(foreign))
	}
	back, err := a.DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(req, back); diff != "" {
		t.Errorf("request round trip (-want +got):\n%s", diff)
	}
	// The same foreign id always gets the same replacement, in a new adapter too.
	if again, _ := New().EncodeRequest(req); !bytes.Equal(again, body) {
		t.Errorf("a second adapter encoded differently:\n%s\n%s", body, again)
	}
	id0 := sent[foreign[0]]
	resp, err := a.DecodeResponse([]byte(`{"id":"r","model":"m","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"` + id0 + `","function":{"name":"f","arguments":"{}"}},{"id":"gSIMJiOkT","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{resp.Calls()[0].ID, resp.Calls()[1].ID}; got[0] != foreign[0] || got[1] != "gSIMJiOkT" {
		t.Errorf("response ids %q, want %q and gSIMJiOkT", got, foreign[0])
	}
	evs, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(sseOf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"` + id0 + `","function":{"name":"f","arguments":"{}"}}]}}]}`))))
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Chunk.ID != foreign[0] {
		t.Errorf("stream id %q, want %q", evs[0].Chunk.ID, foreign[0])
	}
}

func TestErrorsAndFailureModes(t *testing.T) {
	a := New()
	resp, err := a.DecodeResponse([]byte(`{"object":"error","message":"Invalid tool call id","type":"invalid_request_error","param":null,"code":"3230"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &core.ProviderError{Type: "invalid_request_error", Code: "3230", Message: "Invalid tool call id"}
	if diff := cmp.Diff(want, resp.Error); diff != "" {
		t.Errorf("provider error (-want +got):\n%s", diff)
	}
	_, err = a.DecodeRequest([]byte(`{"messages":[{"role":"tool","name":"f","content":"x"}]}`))
	if !errors.Is(err, core.ErrResultWithoutID) {
		t.Errorf("tool message without id: %v, want core.ErrResultWithoutID (G06)", err)
	}
	if err := CheckHistory([]core.Message{{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "chatcmpl-tool-long-id", Name: "f", Arguments: json.RawMessage(`{}`)})}}}); err == nil || !strings.Contains(err.Error(), "G03") {
		t.Errorf("CheckHistory = %v, want a G03 problem and no id-format problem", err)
	}
	_, err = adaptertest.Drain(New(MaxEventSize(32)).DecodeStream(strings.NewReader("data: " + strings.Repeat("x", 64) + "\n\n")))
	var ce *DecodeError
	if !errors.Is(err, sse.ErrEventTooLarge) || !errors.As(err, &ce) || ce.Offset != 0 {
		t.Errorf("large event: %v, want ErrEventTooLarge at byte 0", err)
	}
}

var (
	textGen = rapid.StringOfN(rapid.RuneFrom([]rune{'a', ' ', '\n', '"', 'é'}), 1, 8, -1)
	idGen   = rapid.SampledFrom([]string{"gSIMJiOkT", "abcDEF123", "call_ehIWdjL1abZk1h8FWGLQ0Hie", "toolu_x", "chatcmpl-tool-9f149c74c42f265b"})
)

func genCall(t *rapid.T) core.Call {
	return core.Call{ID: idGen.Draw(t, "id"), Name: rapid.SampledFrom([]string{"weather", "webSearchTool"}).Draw(t, "name"),
		Arguments: json.RawMessage(rapid.SampledFrom([]string{`{}`, `{"location":"San Francisco"}`, `{"q": ["a", 1]}`}).Draw(t, "args"))}
}

// TestRoundTrips: events, responses and requests survive encode then
// decode, with foreign ids mapped out and back.
func TestRoundTrips(t *testing.T) {
	t.Run("events", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			var evs []core.Event
			for i, n := 0, rapid.IntRange(0, 8).Draw(t, "n"); i < n; i++ {
				switch rapid.IntRange(0, 4).Draw(t, "kind") {
				case 0:
					evs = append(evs, core.Event{Kind: core.EventText, Text: textGen.Draw(t, "text")})
				case 4:
					evs = append(evs, core.Event{Kind: core.EventThinking, Text: textGen.Draw(t, "thinking")})
				case 1:
					c := genCall(t)
					// One id per call: a repeated id with the same whole
					// arguments would read back as a consolidated copy (B02).
					c.ID += strconv.Itoa(i)
					evs = append(evs, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: c.ID, Name: c.Name, ArgsDelta: string(c.Arguments), Start: true}})
				case 2:
					evs = append(evs, core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 124, OutputTokens: 22}})
				case 3:
					pf := rapid.SampledFrom([]string{"stop", "tool_calls", "length", "model_length", "error"}).Draw(t, "finish")
					evs = append(evs, core.Event{Kind: core.EventFinish, Finish: FinishReasonOf(pf), ProviderFinish: pf})
				}
			}
			a := New()
			var buf bytes.Buffer
			if err := a.EncodeStream(&buf, evs); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(buf.Bytes(), []byte("chatcmpl-tool")) || bytes.Contains(buf.Bytes(), []byte("call_eh")) {
				t.Fatalf("foreign id on the wire:\n%s", buf.String())
			}
			got, err := adaptertest.Drain(a.DecodeStream(adaptertest.DrawSplitReader(t, buf.Bytes())))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	})
	t.Run("responses", func(t *testing.T) { adaptertest.CheckResponseRoundTrip(t, New(), genResponse) })
	t.Run("requests", func(t *testing.T) { adaptertest.CheckRequestRoundTrip(t, New(), genRequest) })
}

// genResponse draws a response in the form DecodeResponse gives.
func genResponse(t *rapid.T) *core.Response {
	m := core.Message{Role: core.RoleAssistant}
	if rapid.Bool().Draw(t, "thinking") {
		m.Parts = append(m.Parts, core.Part{Kind: core.PartThinking, Text: textGen.Draw(t, "th")})
	}
	if rapid.Bool().Draw(t, "text") {
		m.Parts = append(m.Parts, core.TextPart(textGen.Draw(t, "t")))
	}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "calls"); i < n; i++ {
		m.Parts = append(m.Parts, core.CallPart(genCall(t)))
	}
	if len(m.Parts) == 0 {
		m.Parts = []core.Part{core.TextPart("x")}
	}
	// A body always carries usage: no counts read back as zero counts.
	return &core.Response{ID: "r", Model: "mistral-small-latest", Message: m, Finish: core.FinishToolCalls, ProviderFinish: "tool_calls", Usage: &core.Usage{}}
}

// genRequest draws a request in the form DecodeRequest gives, with
// foreign call ids the adapter maps out and back.
func genRequest(t *rapid.T) *core.Request {
	req := &core.Request{Model: "mistral-large-latest", MaxTokens: rapid.IntRange(0, 100).Draw(t, "max"), Stream: rapid.Bool().Draw(t, "stream")}
	req.Messages = append(req.Messages, core.Message{Role: core.RoleSystem, Parts: []core.Part{core.TextPart("sys")}}, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(textGen.Draw(t, "u"))}})
	am := core.Message{Role: core.RoleAssistant}
	if rapid.Bool().Draw(t, "thinking") {
		am.Parts = append(am.Parts, core.Part{Kind: core.PartThinking, Text: textGen.Draw(t, "th")})
	}
	for i, n := 0, rapid.IntRange(1, 3).Draw(t, "calls"); i < n; i++ {
		am.Parts = append(am.Parts, core.CallPart(genCall(t)))
	}
	req.Messages = append(req.Messages, am)
	for _, c := range am.Calls() {
		req.Messages = append(req.Messages, core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: c.ID, Name: c.Name, Content: []core.Part{core.TextPart("r")}})}})
	}
	req.Tools = []core.ToolSpec{{Name: "weather", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	req.ToolChoice = &core.ToolChoice{Mode: rapid.SampledFrom([]core.ToolChoiceMode{core.ToolChoiceAuto, core.ToolChoiceNone, core.ToolChoiceRequired}).Draw(t, "mode")}
	return req
}

// FinishReasonOf is the mapping the decoder applies, restated for the test.
func FinishReasonOf(raw string) core.FinishReason {
	switch raw {
	case "stop":
		return core.FinishStop
	case "tool_calls":
		return core.FinishToolCalls
	case "length", "model_length":
		return core.FinishLength
	case "error":
		return core.FinishError
	}
	return core.FinishOther
}

// TestCorpusSplits: each recorded stream read in random pieces gives the
// events it gives read whole.
func TestCorpusSplits(t *testing.T) {
	var streams [][]byte
	for _, rec := range loadCorpus(t) {
		if rec.stream {
			streams = append(streams, rec.body)
		}
	}
	adaptertest.CheckSplitStreams(t, streams, func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}

func FuzzDecodeStream(f *testing.F) {
	for _, rec := range loadCorpus(f) {
		if rec.stream {
			f.Add(rec.body)
		}
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"x\",\"function\":{\"arguments\":{}}}]}}]}\n\n"))
	f.Add([]byte("data: {\"object\":\"error\",\"message\":\"m\"}\n\ndata: {"))
	f.Fuzz(func(t *testing.T, body []byte) {
		whole, err1 := adaptertest.Drain(New(MaxEventSize(1 << 12)).DecodeStream(bytes.NewReader(body)))
		split, err2 := adaptertest.Drain(New(MaxEventSize(1 << 12)).DecodeStream(adaptertest.SmallReads(body)))
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("(-whole +split):\n%s", diff)
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		// An error names a byte of the body, or, for a fault found in a
		// decoded event (text that is not UTF-8), the event and field.
		var ce *DecodeError
		if err1 != nil && (!errors.As(err1, &ce) || ce.Offset < 0 && ce.Path == "") {
			t.Fatalf("error %v names no offset and no path", err1)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	for _, rec := range loadCorpus(f) {
		if !rec.stream {
			f.Add(rec.body)
		}
	}
	f.Add([]byte(`{"object":"error","message":{"detail":"x"},"code":null}`))
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"id":"abc","function":{"arguments":"{"}}]}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := New()
		resp, err := a.DecodeResponse(body)
		if err != nil {
			var ce *DecodeError
			if !errors.As(err, &ce) || (ce.Offset < 0 && ce.Path == "") {
				t.Fatalf("error %v names no place", err)
			}
			return
		}
		for _, c := range resp.Calls() {
			if !json.Valid(c.Arguments) {
				t.Fatalf("call %q has invalid arguments %q", c.ID, c.Arguments)
			}
		}
		if _, err := a.EncodeResponse(resp); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}
