package cohere

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// sseBody wraps payloads as SSE events; with named set, each gets an
// "event:" line holding its JSON type, as api.cohere.com sends.
func sseBody(named bool, payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		if named {
			if i := strings.Index(p, `"type":"`); i >= 0 {
				typ := p[i+8:]
				fmt.Fprintf(&b, "event: %s\n", typ[:strings.IndexByte(typ, '"')])
			}
		}
		fmt.Fprintf(&b, "data: %s\n\n", p)
	}
	return []byte(b.String())
}

func ptr[T any](v T) *T { return &v }

func start(idx int, id, name, args string) core.Event {
	return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: idx, HasIndex: true, ID: id, Name: name, ArgsDelta: args, Start: true}}
}

func delta(idx int, s string) core.Event {
	return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: idx, HasIndex: true, ArgsDelta: s}}
}

func end(idx int, args *string) core.Event {
	return core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: idx, HasIndex: true, Done: true, Args: args}}
}

const (
	msgStart = `{"id":"r1","type":"message-start","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}`
	planI    = `{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I will"}}}`
)

func callStart(idx int, id, name, args string) string {
	return fmt.Sprintf(`{"type":"tool-call-start","index":%d,"delta":{"message":{"tool_calls":{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}}}}`, idx, id, name, args)
}

func callDelta(idx int, args string) string {
	return fmt.Sprintf(`{"type":"tool-call-delta","index":%d,"delta":{"message":{"tool_calls":{"function":{"arguments":%q}}}}}`, idx, args)
}

func callEnd(idx int) string { return fmt.Sprintf(`{"type":"tool-call-end","index":%d}`, idx) }

func TestDecodeStreamFailureModes(t *testing.T) {
	finish := core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "TOOL_CALL"}
	msgEnd := `{"type":"message-end","delta":{"finish_reason":"TOOL_CALL"}}`
	tests := []struct {
		name     string
		payloads []string
		want     []core.Event
	}{
		{
			name:     "G16 tool plan is a plan event, calls follow with first arguments on the start",
			payloads: []string{msgStart, planI, callStart(0, "c1", "f", `"{\"a\":"`), callDelta(0, "1}"), callEnd(0), msgEnd},
			want: []core.Event{
				{Kind: core.EventPlan, Text: "I will", ID: "r1"},
				start(0, "c1", "f", `{"a":`), delta(0, "1}"), end(0, nil), finish,
			},
		},
		{
			name:     "C02 start and end only is a call without arguments",
			payloads: []string{msgStart, callStart(0, "c1", "now", `""`), callEnd(0), msgEnd},
			want:     []core.Event{func() core.Event { e := start(0, "c1", "now", ""); e.ID = "r1"; return e }(), end(0, ptr("{}")), finish},
		},
		{
			name:     "C06 arguments null on the start",
			payloads: []string{callStart(0, "c1", "now", `"null"`), callEnd(0)},
			want:     []core.Event{start(0, "c1", "now", ""), end(0, ptr("{}"))},
		},
		{
			name:     "C06 arguments null as the first delta",
			payloads: []string{callStart(0, "c1", "now", `""`), callDelta(0, "null"), callEnd(0)},
			want:     []core.Event{start(0, "c1", "now", ""), end(0, ptr("{}"))},
		},
		{
			name:     "null inside arguments is kept",
			payloads: []string{callStart(0, "c1", "f", `""`), callDelta(0, `{"a":`), callDelta(0, "null"), callDelta(0, "}"), callEnd(0)},
			want:     []core.Event{start(0, "c1", "f", ""), delta(0, `{"a":`), delta(0, "null"), delta(0, "}"), end(0, nil)},
		},
		{
			name: "two calls, text, thinking, citations ignored, usage from tokens, DONE",
			payloads: []string{
				`{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}}`,
				`{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hm"}}}}`,
				`{"type":"content-start","index":1,"delta":{"message":{"content":{"type":"text","text":""}}}}`,
				`{"type":"content-delta","index":1,"delta":{"message":{"content":{"text":"Hi"}}},"extra":1}`,
				`{"type":"citation-start","index":0,"delta":{"message":{"citations":{"start":0,"end":2}}}}`,
				`{"type":"content-end","index":1}`,
				callStart(0, "c1", "f", `""`), callDelta(0, "{}"), callEnd(0),
				callStart(1, "c2", "g", `""`), callDelta(1, `{"b":2}`), callEnd(1),
				`{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":1,"output_tokens":2},"tokens":{"input_tokens":10,"output_tokens":20}}}}`,
				`[DONE]`,
			},
			want: []core.Event{
				{Kind: core.EventThinking, Text: "hm"}, {Kind: core.EventText, Text: "Hi"},
				start(0, "c1", "f", ""), delta(0, "{}"), end(0, nil),
				start(1, "c2", "g", ""), delta(1, `{"b":2}`), end(1, nil),
				{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 10, OutputTokens: 20}},
				{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "COMPLETE"},
			},
		},
		{
			name:     "stream error in message-end",
			payloads: []string{`{"type":"message-end","delta":{"error":"overloaded","finish_reason":"ERROR"}}`},
			want: []core.Event{
				{Kind: core.EventError, Error: &core.ProviderError{Message: "overloaded"}},
				{Kind: core.EventFinish, Finish: core.FinishError, ProviderFinish: "ERROR"},
			},
		},
		{
			name:     "unknown event type ignored",
			payloads: []string{`{"type":"debug","delta":{"x":1}}`, `{"type":"content-delta","delta":{"message":{"content":{"text":"x"}}}}`},
			want:     []core.Event{{Kind: core.EventText, Text: "x"}},
		},
	}
	for _, tt := range tests {
		for _, named := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/event-lines=%v", tt.name, named), func(t *testing.T) {
				got, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(sseBody(named, tt.payloads...))))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestDecodeStreamErrors(t *testing.T) {
	first := "data: " + planI + "\n\n"
	tests := []struct {
		name    string
		body    string
		opts    []Option
		offset  int64
		wantErr error
		text    string
		events  int
	}{
		{"malformed JSON names the event offset and the byte in its data", first + `data: {"type":"tool-call-delta","index":0,` + "\n\n", nil, int64(len(first)), nil, "data at byte", 1},
		{"index of the wrong type", first + `data: {"type":"tool-call-end","index":"0"}` + "\n\n", nil, int64(len(first)), nil, "index", 1},
		{"event over the size limit", first + "data: " + strings.Repeat("x", 200) + "\n\n", []Option{WithMaxEventSize(100)}, 0, core.ErrTooLarge, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := adaptertest.Drain(New(tt.opts...).DecodeStream(strings.NewReader(tt.body)))
			var se *DecodeError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && se.Offset != tt.offset {
				t.Errorf("offset %d, want %d (%v)", se.Offset, tt.offset, err)
			}
			if tt.wantErr != nil && se.Offset < int64(len(first)) {
				t.Errorf("offset %d is before the oversized event at %d (%v)", se.Offset, len(first), err)
			}
			if !strings.Contains(err.Error(), tt.text) || !strings.Contains(err.Error(), "byte") {
				t.Errorf("message %q does not name the place (%q)", err, tt.text)
			}
			if len(evs) != tt.events {
				t.Errorf("%d events before the error, want %d", len(evs), tt.events)
			}
		})
	}
}

// TestCollectFailureModes runs failure-mode streams through core.Collect
// and checks the calls a client would run.
func TestCollectFailureModes(t *testing.T) {
	tests := []struct {
		name     string
		payloads []string
		want     []core.Call
	}{
		{"C02 start and end only", []string{callStart(0, "c1", "now", `""`), callEnd(0)}, []core.Call{{ID: "c1", Name: "now", Arguments: json.RawMessage(`{}`)}}},
		{"C06 null arguments", []string{callStart(0, "c1", "now", `"null"`), callEnd(0)}, []core.Call{{ID: "c1", Name: "now", Arguments: json.RawMessage(`{}`)}}},
		{"G16 plan then two calls", []string{planI, callStart(0, "c1", "f", `"{\"a\""`), callDelta(0, ":1}"), callEnd(0), callStart(1, "c2", "g", `""`), callDelta(1, "{}"), callEnd(1)},
			[]core.Call{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}, {ID: "c2", Name: "g", Arguments: json.RawMessage(`{}`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payloads := append(tt.payloads, `{"type":"message-end","delta":{"finish_reason":"TOOL_CALL"}}`)
			resp, err := core.Collect(New().DecodeStream(bytes.NewReader(sseBody(true, payloads...))))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, resp.Calls()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if resp.Text() != "" {
				t.Errorf("text %q, want none: a tool plan is not answer text", resp.Text())
			}
		})
	}
}

func TestDecodeStreamTooManyCalls(t *testing.T) {
	var payloads []string
	for i := 0; i <= maxOpenCalls; i++ {
		payloads = append(payloads, callStart(i, fmt.Sprint("c", i), "f", `""`))
	}
	evs, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(sseBody(false, payloads...))))
	var se *DecodeError
	if !errors.Is(err, core.ErrTooManyCalls) || !errors.As(err, &se) {
		t.Fatalf("error %v, want a *DecodeError wrapping core.ErrTooManyCalls", err)
	}
	if len(evs) != maxOpenCalls {
		t.Errorf("%d events before the limit, want %d", len(evs), maxOpenCalls)
	}
	if want := int64(len(sseBody(false, payloads[:maxOpenCalls]...))); se.Offset != want {
		t.Errorf("offset %d, want %d, the start of the event over the limit", se.Offset, want)
	}
}

func TestDecodeStreamWithoutFinalBlankLine(t *testing.T) {
	body := "event: tool-plan-delta\ndata: " + planI + "\n\ndata: " + `{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}`
	got, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Event{{Kind: core.EventPlan, Text: "I will"}, {Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "COMPLETE"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestDecodeStreamNotAStream checks that input with no v2 chat event is a
// *DecodeError wrapping core.ErrNotStream that names the offset of the
// first event the decoder could not use, or byte 0, while blank input and
// streams with an event of the protocol are not refused.
func TestDecodeStreamNotAStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64 // -1: no ErrNotStream
	}{
		{"plain text", "hello world", 0},
		{"an empty object", "data: {}\n\n", 0},
		{"unknown event", "event: foo\ndata: {\"type\":\"foo\"}\n\n", 0},
		{"unknown event after blank lines and a comment", "  \n\n: ping\n\nevent: zz\ndata: {\"x\":1}\n\n", 12},
		{"empty data, then an unknown event", "data:\n\nevent: zz\ndata: {}\n\n", 0},
		{"a v1 stream", "data: {\"is_finished\":false,\"event_type\":\"stream-start\"}\n\n", 0},
		{"an OpenAI chat stream", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n", 0},
		{"a comment only", ": keep-alive\n\n", 0},
		{"empty", "", -1},
		{"blank", " \r\n\n\t", -1},
		{"only done", "data: [DONE]\n\n", 0},
		{"message-start then done", "data: " + msgStart + "\n\ndata: [DONE]\n\n", -1},
		{"message-start only", "data: " + msgStart + "\n\n", -1},
		{"unknown event then a known one", "event: zz\ndata: {}\n\ndata: " + planI + "\n\n", -1},
		{"type from the event name", "event: content-end\ndata: {\"index\":0}\n\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(tt.in)))
			if tt.want < 0 {
				if errors.Is(err, core.ErrNotStream) {
					t.Fatalf("error %v, want none of ErrNotStream", err)
				}
				return
			}
			var se *DecodeError
			if !errors.Is(err, core.ErrNotStream) || !errors.As(err, &se) {
				t.Fatalf("error %v, want a *DecodeError wrapping core.ErrNotStream", err)
			}
			if se.Offset != tt.want {
				t.Errorf("offset %d, want %d: %v", se.Offset, tt.want, err)
			}
			want := fmt.Sprintf("cohere: decode stream: at byte %d: no cohere event in %d bytes: %v", tt.want, len(tt.in), core.ErrNotStream)
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeStreamNotAStreamSplits checks that the verdict does not depend
// on how the input is read: white space in one read and text in a later
// one is still text.
func TestDecodeStreamNotAStreamSplits(t *testing.T) {
	for _, in := range []string{"  \n\nhello", "\n\n\n", "event: zz\ndata: {}\n\n", "\n\ndata: " + msgStart + "\n\n", "\u00a0\n", "\n\u2028"} {
		_, whole := adaptertest.Drain(New().DecodeStream(strings.NewReader(in)))
		for cut := 1; cut < len(in); cut++ {
			_, split := adaptertest.Drain(New().DecodeStream(adaptertest.SplitReader([]byte(in), cut)))
			if fmt.Sprint(whole) != fmt.Sprint(split) {
				t.Errorf("%q cut at %d: %v, whole %v", in, cut, split, whole)
			}
		}
	}
}

// TestTextDeltaUTF8 checks that a character split between two content
// deltas comes out whole (B05) and that a byte that is not UTF-8 is refused
// with core.ErrInvalidUTF8, not replaced by U+FFFD.
func TestTextDeltaUTF8(t *testing.T) {
	stream := func(deltas ...string) string {
		var b strings.Builder
		for _, d := range deltas {
			fmt.Fprintf(&b, "event: content-delta\ndata: {\"type\":\"content-delta\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"text\":\"%s\"}}}}\n\n", d)
		}
		b.WriteString("event: message-end\ndata: {\"type\":\"message-end\",\"delta\":{\"finish_reason\":\"COMPLETE\"}}\n\n")
		return b.String()
	}
	resp, err := core.Collect(New().DecodeStream(strings.NewReader(stream("Z\xc3", "\xa4ri"))))
	if err != nil || resp.Text() != "Zäri" {
		t.Errorf("split character: text %q, error %v; want \"Zäri\"", resp.Text(), err)
	}
	_, err = core.Collect(New().DecodeStream(strings.NewReader(stream("a\xffb"))))
	if !errors.Is(err, core.ErrInvalidUTF8) {
		t.Errorf("invalid byte: error %v, want one wrapping core.ErrInvalidUTF8", err)
	}
}

// TestOpenCalls checks the open-call table, an array that spills into a
// map, against a map: any sequence of opens, updates and closes over a
// few indexes gives the same lookups and count.
func TestOpenCalls(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var o openCalls
		model := map[int]int{}
		for i, n := 0, rapid.IntRange(0, 60).Draw(t, "ops"); i < n; i++ {
			index := rapid.IntRange(0, 9).Draw(t, "index")
			if rapid.Bool().Draw(t, "close") {
				o.remove(index)
				delete(model, index)
			} else {
				v := rapid.IntRange(0, 100).Draw(t, "n")
				o.set(index, v)
				model[index] = v
			}
			for k := range 10 {
				got, gotOpen := o.get(k)
				want, wantOpen := model[k]
				if got != want || gotOpen != wantOpen {
					t.Fatalf("call %d: %d, open %v; want %d, open %v", k, got, gotOpen, want, wantOpen)
				}
			}
			if o.len() != len(model) {
				t.Fatalf("%d open calls, want %d", o.len(), len(model))
			}
		}
	})
}
