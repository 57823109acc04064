package gemini

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func sseBody(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\r\n\r\n")
	}
	return b.String()
}

func strp(s string) *string { return &s }

func start(id, name, sig string) core.Event {
	return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: id, Name: name, Start: true, Signature: sig}}
}

func end(id, args string) core.Event {
	return core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: id, Done: true, Args: strp(args)}}
}

func finish(f core.FinishReason, raw string) core.Event {
	return core.Event{Kind: core.EventFinish, Finish: f, ProviderFinish: raw}
}

func TestDecodeStreamEvents(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []core.Event
	}{
		{
			name: "A15 D01 two whole id-less calls in one SSE chunk",
			body: sseBody(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"add","args":{"a":1}},"thoughtSignature":"s1"},{"functionCall":{"name":"add","args":{"a":1}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"thoughtsTokenCount":2},"responseId":"r1","modelVersion":"m1"}`),
			want: []core.Event{
				{Kind: core.EventCallStart, ID: "r1", Model: "m1", Chunk: &core.Chunk{ID: "gemini_call_41fdf4b45f53_0", Name: "add", Start: true, Signature: "s1"}},
				end("gemini_call_41fdf4b45f53_0", `{"a":1}`),
				start("gemini_call_41fdf4b45f53_1", "add", ""), end("gemini_call_41fdf4b45f53_1", `{"a":1}`),
				{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 5, OutputTokens: 5}},
				finish(core.FinishToolCalls, "STOP"),
			},
		},
		{
			name: "JSON array form, one call per chunk, integer finish reason, ids kept",
			body: "[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Let me\"}]}}]}\r\n,\r\n{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"x1\",\"name\":\"f\",\"args\":{}}}]}}]},\n{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"x2\",\"name\":\"g\"}}]},\"finishReason\":1}]}\n]\n",
			want: []core.Event{
				{Kind: core.EventText, Text: "Let me"},
				start("x1", "f", ""), end("x1", `{}`),
				start("x2", "g", ""), end("x2", `{}`),
				finish(core.FinishToolCalls, "STOP"),
			},
		},
		{
			name: "F05 STOP with only empty text is other",
			body: sseBody(`{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}`),
			want: []core.Event{finish(core.FinishOther, "STOP")},
		},
		{
			name: "F04 MALFORMED_FUNCTION_CALL is error",
			body: sseBody(`{"candidates":[{"content":{"parts":[{"text":"I will call"}]}}]}`, `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]}`),
			want: []core.Event{{Kind: core.EventText, Text: "I will call"}, finish(core.FinishError, "MALFORMED_FUNCTION_CALL")},
		},
		{
			name: "thinking, text with signature, error chunk",
			body: sseBody(`{"candidates":[{"content":{"parts":[{"text":"hmm","thought":true},{"text":"","thoughtSignature":"ts"}]}}]}`, `{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`),
			want: []core.Event{
				{Kind: core.EventThinking, Text: "hmm"},
				{Kind: core.EventText, Signature: "ts"},
				{Kind: core.EventError, Error: &core.ProviderError{Type: "UNAVAILABLE", Code: "503", Message: "overloaded"}},
			},
		},
		{
			name: "partialArgs assembled: strings continued, numbers, booleans, null, nested arrays",
			body: sseBody(
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true},"thoughtSignature":"sg"}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[0].name","stringValue":"ap","willContinue":true}],"willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[0].name","stringValue":"ple"},{"jsonPath":"$.items[0].n","numberValue":2.5}],"willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[1].name","stringValue":"pear"},{"jsonPath":"$.ok","boolValue":true},{"jsonPath":"$['odd key']","nullValue":"NULL_VALUE"}],"willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`,
			),
			want: []core.Event{
				start("gemini_call_78e87be972c4_0", "w", "sg"),
				end("gemini_call_78e87be972c4_0", `{"items":[{"name":"apple","n":2.5},{"name":"pear"}],"ok":true,"odd key":null}`),
				finish(core.FinishToolCalls, "STOP"),
			},
		},
		{
			name: "partialArgs values that are null are no value, but nullValue is",
			body: sseBody(
				`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"n1","name":"w","willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","numberValue":null},{"jsonPath":"$.b","stringValue":null},{"jsonPath":"$.c.d","boolValue":null},{"jsonPath":"$.e","nullValue":null}]}}]},"finishReason":"STOP"}]}`,
			),
			want: []core.Event{
				start("n1", "w", ""),
				end("n1", `{"c":{},"e":null}`),
				finish(core.FinishToolCalls, "STOP"),
			},
		},
		{
			name: "B09 partialArgs call still open at the end of the stream gets no end",
			body: sseBody(
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.q","stringValue":"par","willContinue":true}],"willContinue":true}}]}}]}`,
			),
			want: []core.Event{start("gemini_call_3d6ceecd91f7_0", "w", "")},
		},
		{
			name: "an open partialArgs call is abandoned when another call starts",
			body: sseBody(
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"v","args":{"a":1}}}]},"finishReason":"STOP"}]}`,
			),
			want: []core.Event{start("gemini_call_6b9fe2999dc3_0", "w", ""), start("gemini_call_4d48a69d9a58_1", "v", ""), end("gemini_call_4d48a69d9a58_1", `{"a":1}`), finish(core.FinishToolCalls, "STOP")},
		},
		{
			name: "a bare JSON object (unstreamed body) decodes as one chunk",
			body: `{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`,
			want: []core.Event{{Kind: core.EventText, Text: "hi"}, finish(core.FinishStop, "STOP")},
		},
		{
			name: "prompt blocked",
			body: sseBody(`{"promptFeedback":{"blockReason":"SAFETY"}}`),
			want: []core.Event{finish(core.FinishContentFilter, "SAFETY")},
		},
		{
			name: "empty body, SSE comments and unknown fields",
			body: ": keep-alive\n\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"extra\":1}]},\"groundingMetadata\":{}}],\"newField\":true}\n\n",
			want: []core.Event{{Kind: core.EventText, Text: "a"}},
		},
		{name: "empty body", body: "  \n", want: nil},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(tt.body)))
			if err != nil {
				t.Fatalf("stream error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamParityF02 checks that the same turn gives the same calls and
// finish reason streamed and unstreamed (F02, D01).
func TestStreamParityF02(t *testing.T) {
	chunk := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1}}},{"functionCall":{"name":"f","args":{"x":2}}}]},"finishReason":"STOP"}]}`
	a := New()
	resp, err := a.DecodeResponse([]byte(chunk))
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{sseBody(chunk), "[" + chunk + "]"} {
		evs, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		calls, _ := streamCalls(evs)
		if diff := cmp.Diff(summarize(resp.Calls()), summarize(calls)); diff != "" {
			t.Errorf("calls differ streamed (-unstreamed +streamed):\n%s", diff)
		}
		last := evs[len(evs)-1]
		if last.Finish != resp.Finish || resp.Finish != core.FinishToolCalls {
			t.Errorf("finish streamed %q, unstreamed %q, want tool_calls", last.Finish, resp.Finish)
		}
	}
}

// TestDecodeStreamNotAStream checks that non-blank input with no chunk of
// a GenerateContentResponse is an error wrapping core.ErrNotStream that
// names the offset of the first event or element it could not use, else
// of the first byte that is not white space, while blank input is a clean
// (empty) stream.
func TestDecodeStreamNotAStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64 // -1: no error
	}{
		{"plain text", "hello world", 0},
		{"plain text after white space", "\n\n  hello", 4},
		{"unknown SSE event", "event: foo\ndata: {}\n\n", 0},
		{"unknown event after blank lines and a comment", "  \n\n: ping\n\nevent: zz\ndata: {\"x\":1}\n\n", 12},
		{"an array of other objects", `[{"a":1},{"b":2}]`, 1},
		{"an empty array", " []", -1},
		{"empty", "", -1},
		{"blank", " \r\n\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(tt.in)))
			if tt.want < 0 {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			var oe *DecodeError
			if !errors.Is(err, core.ErrNotStream) || !errors.Is(err, core.ErrMalformed) || !errors.As(err, &oe) {
				t.Fatalf("error %v, want a *DecodeError wrapping core.ErrMalformed and core.ErrNotStream", err)
			}
			if oe.Offset != tt.want {
				t.Errorf("offset %d, want %d: %v", oe.Offset, tt.want, err)
			}
		})
	}
}

// TestDecodeStreamDataOffset checks that a syntax error in an SSE event's
// data names the bad byte's offset in the stream, wherever the data line
// stands in its event.
func TestDecodeStreamDataOffset(t *testing.T) {
	in := "event: x\ndata: {\"a\": x}\n\n"
	_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(in)))
	var oe *DecodeError
	if !errors.As(err, &oe) || oe.Offset != int64(strings.Index(in, " x}")+1) {
		t.Fatalf("error %v, want a *DecodeError at byte %d", err, strings.Index(in, " x}")+1)
	}
}

func TestDecodeStreamErrors(t *testing.T) {
	big := `{"candidates":[{"content":{"parts":[{"text":"` + strings.Repeat("x", 300) + `"}]}}]}`
	tests := []struct {
		name       string
		body       string
		opts       []Option
		wantEvents int
		wantIs     error
		wantIn     string
	}{
		{"SSE data not JSON names its offset", "data: {\"candidates\":[]}\n\ndata: {oops}\n\n", nil, 0, core.ErrMalformed, "at byte 32"},
		{"array element malformed", `[{"candidates":[]},{"candidates":[}]`, nil, 0, core.ErrMalformed, "at byte 34"},
		{"comma before the first element", `[,{"candidates":[]}]`, nil, 0, core.ErrMalformed, "at byte 1: malformed: invalid character ','"},
		{"two commas between elements", `[{"candidates":[]},,{"candidates":[]}]`, nil, 0, core.ErrMalformed, "at byte 19: malformed: invalid character ','"},
		{"array not closed: events before stand", `[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`, nil, 1, core.ErrMalformed, "before the closing ]"},
		{"array cut inside a value", `[{"candidates":[{"content":{"parts":[{"te`, nil, 0, core.ErrMalformed, "ended inside a JSON value"},
		{"data after the array", `[{"candidates":[]}] {"x":1}`, nil, 0, core.ErrMalformed, "data after the end"},
		{"element of the wrong type", `["text"]`, nil, 0, core.ErrMalformed, "at byte 7: malformed: value ending here"},
		{"SSE event too large", sseBody(big), []Option{WithMaxEventSize(100)}, 0, core.ErrTooLarge, "at byte 0"},
		{"array element too large", "[" + big + "]", []Option{WithMaxEventSize(100)}, 0, core.ErrTooLarge, "exceeds 100 bytes"},
		{"partialArgs bad jsonPath", sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}`, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"q","stringValue":"a"}],"willContinue":true}}]}}]}`), nil, 1, core.ErrMalformed, `partialArgs[0] (q)`},
		{"partialArgs index skips", sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true,"partialArgs":[{"jsonPath":"$.l[3]","numberValue":1}]}}]}}]}`), nil, 1, core.ErrMalformed, "skips elements"},
		{"partialArgs with no call open", sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"a"}]}}]}}]}`), nil, 0, core.ErrMalformed, "no call open"},
		{"partialArgs path too deep", sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true,"partialArgs":[{"jsonPath":"$` + strings.Repeat(".x", core.MaxDepth+1) + `","stringValue":"y"}]}}]}}]}`), nil, 1, core.ErrTooDeep, "partialArgs[0] ($.x.x."},
		{"partialArgs paths that build more than the limit", sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true,"partialArgs":[{"jsonPath":"$` + strings.Repeat(".x", 60) + `"}]}}]}}]}`), []Option{WithMaxArgsSize(100)}, 1, core.ErrTooLarge, "arguments exceed 100 bytes"},
		{"partialArgs too large", sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true,"partialArgs":[{"jsonPath":"$.a","stringValue":"` + strings.Repeat("y", 200) + `"}]}}]}}]}`), []Option{WithMaxArgsSize(100)}, 1, core.ErrTooLarge, "arguments exceed 100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := adaptertest.Drain(New(tt.opts...).DecodeStream(strings.NewReader(tt.body)))
			if err == nil {
				t.Fatalf("no error; events %+v", evs)
			}
			if !errors.Is(err, tt.wantIs) {
				t.Errorf("error %q does not wrap %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			if !strings.HasPrefix(err.Error(), "gemini: decode stream") {
				t.Errorf("error %q lacks the operation prefix", err)
			}
			if len(evs) != tt.wantEvents {
				t.Errorf("%d events before the error, want %d", len(evs), tt.wantEvents)
			}
			var oe *DecodeError
			if !errors.As(err, &oe) {
				t.Errorf("error %q is not a *DecodeError", err)
			}
			// Read one byte at a time, the stream fails the same way.
			_, splitErr := adaptertest.Drain(New(tt.opts...).DecodeStream(iotest.OneByteReader(strings.NewReader(tt.body))))
			if splitErr == nil || splitErr.Error() != err.Error() {
				t.Errorf("one byte at a time, error %v; whole, %v", splitErr, err)
			}
		})
	}
}

func TestEncodeStreamNormalises(t *testing.T) {
	a := New()
	var buf bytes.Buffer
	events := []core.Event{
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "c1", Name: "f", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `{"a":`}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `1}`}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 0, HasIndex: true, Done: true}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "open", Name: "g", Start: true}},
		finish(core.FinishToolCalls, ""),
	}
	if err := a.EncodeStream(&buf, events); err != nil {
		t.Fatal(err)
	}
	got, err := adaptertest.Drain(a.DecodeStream(&buf))
	if err != nil {
		t.Fatal(err)
	}
	// The call without an end is ended by the finish, as core.Collect
	// ends it, never dropped (issue 28).
	want := []core.Event{start("c1", "f", ""), end("c1", `{"a":1}`), start("open", "g", ""), end("open", `{}`), {Kind: core.EventUsage, Usage: &core.Usage{}}, finish(core.FinishToolCalls, "STOP")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, tail := range [][]core.Event{nil, {finish(core.FinishLength, "")}} {
		cut := append([]core.Event{{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "cut", Name: "g", Start: true}}}, tail...)
		if err := a.EncodeStream(io.Discard, cut); !errors.Is(err, core.ErrIncomplete) || !strings.Contains(err.Error(), `call "cut" (g) has no end`) {
			t.Errorf("EncodeStream(a call cut off, then %v) = %v, want an error naming the call", tail, err)
		}
	}
	bad := []core.Event{{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "x", Done: true, Args: strp(`[1]`)}}}
	if err := a.EncodeStream(&buf, bad); err == nil || !strings.Contains(err.Error(), "events[0]") {
		t.Errorf("non-object args: err = %v, want one naming events[0]", err)
	}
}

// TestArrayStreamMemoryBounded checks that the JSON-array decoder keeps
// only the bytes of the current element: after 20000 elements its
// buffer, never grown past its first size, and event queue are as small
// as after one.
func TestArrayStreamMemoryBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	const n = 20000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"candidates":[{"content":{"parts":[{"text":"token "}]}}]}`)
	}
	b.WriteString("]")
	st := New().newStream(strings.NewReader(b.String()))
	texts := 0
	for {
		ev, err := st.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		if ev.Kind == core.EventText {
			texts++
		}
		if c := cap(st.frames.buf); c > framesBufSize {
			t.Fatalf("buffer grew to %d bytes after %d events", c, texts)
		}
		if st.q.Len() > 4 {
			t.Fatalf("queue holds %d events", st.q.Len())
		}
	}
	if texts != n {
		t.Errorf("%d text events, want %d", texts, n)
	}
}

// TestStreamLeadingSpace: however much white space comes before the first
// chunk (less than, as much as, more than the bytes read to find the form
// or the buffer holds), and however the body is split into reads, SSE and
// JSON streams decode the same, and an error after the space names the
// same offset.
func TestStreamLeadingSpace(t *testing.T) {
	a := New()
	for _, n := range []int{0, 1, 63, 64, 65, 4095, 4096, 4097, 5000} {
		space := strings.Repeat("\n", n)
		for _, tc := range []struct {
			body, text string
			errAt      int64 // -1: no error
		}{
			{space + sseBody(textChunk("a")), "a", -1},
			{space + "[" + textChunk("b") + "]", "b", -1},
			{space + "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"c\"}]}}]}", "c", -1},
			{space + "[x]", "", int64(n + 1)},
		} {
			for _, r := range []io.Reader{strings.NewReader(tc.body), iotest.OneByteReader(strings.NewReader(tc.body))} {
				evs, err := adaptertest.Drain(a.DecodeStream(r))
				if tc.errAt < 0 {
					if err != nil || len(evs) == 0 || evs[0].Text != tc.text {
						t.Errorf("%d spaces, %.30q: events %v, error %v; want text %q", n, tc.body[n:], evs, err, tc.text)
					}
					continue
				}
				var de *DecodeError
				if !errors.As(err, &de) || de.Offset != tc.errAt {
					t.Errorf("%d spaces, %.30q: error %v, want one at byte %d", n, tc.body[n:], err, tc.errAt)
				}
			}
		}
	}
}
