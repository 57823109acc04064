package openaichat

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/sse"
)

// sseOf frames chunk payloads as an SSE stream ending in [DONE].
func sseOf(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// tc builds a chunk with one choice whose delta holds the given tool_calls
// JSON array.
func tc(calls string) string {
	return `{"id":"c1","model":"m","choices":[{"index":0,"delta":{"tool_calls":` + calls + `},"finish_reason":null}]}`
}

func finish(r string) string {
	return `{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"` + r + `"}]}`
}

func start(id, name string, idx int, hasIdx bool, args string) core.Event {
	return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: id, Name: name, Index: idx, HasIndex: hasIdx, ArgsDelta: args, Start: true}}
}

func delta(id string, idx int, hasIdx bool, args string) core.Event {
	return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: id, Index: idx, HasIndex: hasIdx, ArgsDelta: args}}
}

func fin(r string) core.Event {
	return core.Event{Kind: core.EventFinish, Finish: FinishReason(r), ProviderFinish: r}
}

// meta puts the response id and model on the first event, as the decoder
// does.
func meta(evs ...core.Event) []core.Event {
	if len(evs) > 0 {
		evs[0].ID, evs[0].Model = "c1", "m"
	}
	return evs
}

func TestDecodeStreamFailureModes(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []core.Event
		calls []adaptertest.ChatCall // what the test assembler makes of it, when checked
	}{
		{
			name: "A01 parallel calls all on index 0 with distinct ids",
			in: sseOf(tc(`[{"index":0,"id":"a","type":"function","function":{"name":"add","arguments":"{\"x\":1}"}}]`),
				tc(`[{"index":0,"id":"b","type":"function","function":{"name":"mul","arguments":"{\"y\":2}"}}]`), finish("tool_calls")),
			want:  meta(start("a", "add", 0, true, `{"x":1}`), start("b", "mul", 0, true, `{"y":2}`), fin("tool_calls")),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "add", Arguments: []byte(`{"x":1}`)}, {ID: "b", Name: "mul", Arguments: []byte(`{"y":2}`)}},
		},
		{
			name: "A02 index reused with a new id",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]`),
				tc(`[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"k\""}}]`), tc(`[{"index":0,"function":{"arguments":":1}"}}]`)),
			want:  meta(start("a", "f", 0, true, `{}`), start("b", "g", 0, true, `{"k"`), delta("", 0, true, `:1}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{}`)}, {ID: "b", Name: "g", Arguments: []byte(`{"k":1}`)}},
		},
		{
			name: "A03 continuation chunks with empty id",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]`),
				tc(`[{"index":0,"id":"","function":{"arguments":"{\"q\":"}}]`), tc(`[{"index":0,"id":"","function":{"name":"","arguments":"2}"}}]`)),
			want:  meta(start("a", "f", 0, true, ""), delta("", 0, true, `{"q":`), delta("", 0, true, `2}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"q":2}`)}},
		},
		{
			name: "A04 id and name repeated on every delta",
			in: sseOf(tc(`[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"q\":"}}]`),
				tc(`[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"1}"}}]`)),
			want:  meta(start("a", "f", 0, true, `{"q":`), start("a", "f", 0, true, `1}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"q":1}`)}},
		},
		{
			name: "A05 interleaved fragments of two calls",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]`), tc(`[{"index":1,"id":"b","function":{"name":"g","arguments":""}}]`),
				tc(`[{"index":0,"function":{"arguments":"{\"a\":"}}]`), tc(`[{"index":1,"function":{"arguments":"{\"b\":"}}]`),
				tc(`[{"index":0,"function":{"arguments":"1}"}}]`), tc(`[{"index":1,"function":{"arguments":"2}"}}]`)),
			want: meta(start("a", "f", 0, true, ""), start("b", "g", 1, true, ""), delta("", 0, true, `{"a":`), delta("", 1, true, `{"b":`),
				delta("", 0, true, `1}`), delta("", 1, true, `2}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"a":1}`)}, {ID: "b", Name: "g", Arguments: []byte(`{"b":2}`)}},
		},
		{
			name:  "A06 index null and id only on the first fragment",
			in:    sseOf(tc(`[{"index":null,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]`), tc(`[{"index":null,"function":{"arguments":":1}"}}]`)),
			want:  meta(start("a", "f", 0, false, `{"x"`), delta("", 0, false, `:1}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"x":1}`)}},
		},
		{
			name:  "A07 index missing entirely",
			in:    sseOf(tc(`[{"id":"a","function":{"name":"f","arguments":"{}"}}]`), tc(`[{"id":"b","function":{"name":"g","arguments":"{}"}}]`)),
			want:  meta(start("a", "f", 0, false, `{}`), start("b", "g", 0, false, `{}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{}`)}, {ID: "b", Name: "g", Arguments: []byte(`{}`)}},
		},
		{
			name:  "A08 two entries with the same index in one chunk",
			in:    sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f"}},{"index":0,"function":{"arguments":"{\"z\":"}}]`), tc(`[{"index":0,"function":{"arguments":"0}"}}]`)),
			want:  meta(start("a", "f", 0, true, ""), delta("", 0, true, `{"z":`), delta("", 0, true, `0}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"z":0}`)}},
		},
		{
			name:  "A09 name after the first arguments fragment",
			in:    sseOf(tc(`[{"index":0,"id":"a","function":{"arguments":"{\"x\":"}}]`), tc(`[{"index":0,"function":{"name":"f","arguments":"1}"}}]`)),
			want:  meta(start("a", "", 0, true, `{"x":`), start("", "f", 0, true, `1}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"x":1}`)}},
		},
		{
			name:  "A10 names of different calls are separate chunks",
			in:    sseOf(tc(`[{"index":0,"id":"a","function":{"name":"web_fetch","arguments":"{}"}},{"index":1,"id":"b","function":{"name":"web_search","arguments":"{}"}}]`)),
			want:  meta(start("a", "web_fetch", 0, true, `{}`), start("b", "web_search", 1, true, `{}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "web_fetch", Arguments: []byte(`{}`)}, {ID: "b", Name: "web_search", Arguments: []byte(`{}`)}},
		},
		{
			name: "A12 huge index passed on as sent",
			in:   sseOf(tc(`[{"index":1000000000,"id":"a","function":{"name":"f","arguments":"{}"}}]`)),
			want: meta(start("a", "f", 1000000000, true, `{}`)),
		},
		{
			name: "A13 only choice 0 is decoded",
			in: sseOf(`{"id":"c1","model":"m","choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"zero"}}]}`,
				`{"id":"c1","choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"h","arguments":"{}"}}]}}]}`),
			want: meta(core.Event{Kind: core.EventText, Text: "zero"}),
		},
		{
			name: "B01 cumulative resend is passed on as sent",
			in:   sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"q\":"}}]`), tc(`[{"index":0,"function":{"arguments":"{\"q\":1}"}}]`)),
			want: meta(start("a", "f", 0, true, `{"q":`), delta("", 0, true, `{"q":1}`)),
		},
		{
			name: "B02 deltas then a final full copy becomes a replacement",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]`), tc(`[{"index":0,"function":{"arguments":"{\"t\":\"x\","}}]`),
				tc(`[{"index":0,"function":{"arguments":"\"p\":2}"}}]`), tc(`[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"t\": \"x\", \"p\": 2}"}}]`), finish("tool_calls")),
			want: meta(start("a", "f", 0, true, ""), delta("", 0, true, `{"t":"x",`), delta("", 0, true, `"p":2}`),
				core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "a", Name: "f", HasIndex: true, Args: ptr(`{"t": "x", "p": 2}`), Start: true}}, fin("tool_calls")),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"t": "x", "p": 2}`)}},
		},
		{
			name: "B02 a copy that differs stays a delta",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"q\":1}"}}]`),
				tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"q\":2}"}}]`)),
			want: meta(start("a", "f", 0, true, `{"q":1}`), start("a", "f", 0, true, `{"q":2}`)),
		},
		{
			name: "A04 a nested object fragment with id and name repeated stays a delta",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"loc\":"}}]`),
				tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"city\":\"x\"}"}}]`), tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"}"}}]`)),
			want:  meta(start("a", "f", 0, true, `{"loc":`), start("a", "f", 0, true, `{"city":"x"}`), start("a", "f", 0, true, `}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"loc":{"city":"x"}}`)}},
		},
		{
			name: "B03 trailing empty tool delta with the finish",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]`),
				`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]},"finish_reason":"tool_calls"}]}`),
			want:  meta(start("a", "f", 0, true, `{}`), delta("", 0, true, ""), fin("tool_calls")),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{}`)}},
		},
		{
			name: "B04 concatenated objects in one call are passed on as sent",
			in:   sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"q\":\"a\"}{\"q\":\"b\"}"}}]`)),
			want: meta(start("a", "f", 0, true, `{"q":"a"}{"q":"b"}`)),
		},
		{
			name: "B13 usage-only chunk, filter chunk and a choice without delta",
			in: sseOf(`{"id":"","choices":[],"prompt_filter_results":[{"prompt_index":0}]}`,
				`{"id":"c1","model":"m","choices":[{"index":0,"finish_reason":null,"content_filter_results":{}}]}`,
				`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}`, finish("stop"),
				`{"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`),
			want: meta(core.Event{Kind: core.EventText, Text: "hi"}, fin("stop"), core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}}),
		},
		{
			name:  "C01 arguments empty string first",
			in:    sseOf(tc(`[{"index":0,"id":"a","function":{"name":"now","arguments":""}}]`), finish("tool_calls")),
			want:  meta(start("a", "now", 0, true, ""), fin("tool_calls")),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "now", Arguments: []byte(`{}`)}},
		},
		{
			name: "C03 empty-argument call followed by a normal call",
			in: sseOf(tc(`[{"index":0,"id":"a","function":{"name":"now","arguments":""}}]`),
				tc(`[{"index":1,"id":"b","function":{"name":"f","arguments":"{\"k\":"}}]`), tc(`[{"index":1,"function":{"arguments":"1}"}}]`)),
			want:  meta(start("a", "now", 0, true, ""), start("b", "f", 1, true, `{"k":`), delta("", 1, true, "1}")),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "now", Arguments: []byte(`{}`)}, {ID: "b", Name: "f", Arguments: []byte(`{"k":1}`)}},
		},
		{
			name:  "C04 arguments as a JSON object",
			in:    sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":{"city": "Paris"}}}]`)),
			want:  meta(start("a", "f", 0, true, `{"city":"Paris"}`)),
			calls: []adaptertest.ChatCall{{ID: "a", Name: "f", Arguments: []byte(`{"city":"Paris"}`)}},
		},
		{
			name: "C06 arguments null",
			in:   sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":null}}]`)),
			want: meta(start("a", "f", 0, true, "")),
		},
		{
			name: "F01 calls with finish stop keep calls and finish",
			in:   sseOf(tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]`), finish("stop")),
			want: meta(start("a", "f", 0, true, `{}`), fin("stop")),
		},
		{
			name: "F03 tool_calls finish without calls",
			in:   sseOf(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"no call"}}]}`, finish("tool_calls")),
			want: meta(core.Event{Kind: core.EventText, Text: "no call"}, fin("tool_calls")),
		},
		{
			name: "G14 reasoning_content and reasoning deltas are thinking",
			in:   sseOf(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`, `{"choices":[{"index":0,"delta":{"reasoning":" ok","content":"yes"}}]}`),
			want: meta(core.Event{Kind: core.EventThinking, Text: "hmm"}, core.Event{Kind: core.EventThinking, Text: " ok"}, core.Event{Kind: core.EventText, Text: "yes"}),
		},
		{
			name: "error object mid-stream",
			in:   sseOf(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"error":{"message":"overloaded","type":"server_error","code":529}}`),
			want: meta(core.Event{Kind: core.EventText, Text: "a"}, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "server_error", Code: "529", Message: "overloaded"}}),
		},
		{
			name: "padded data, unknown fields, comments, unknown event types, empty data, no final blank line",
			in:   ": keepalive\n\ndata:    {\"id\":\"c1\",\"model\":\"m\",\"obfuscation\":\"xyz\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"logprobs\":null}]}   \n\nevent: ping\ndata: {}\n\ndata:\n\ndata: [DONE]",
			want: meta(core.Event{Kind: core.EventText, Text: "a"}),
		},
		{
			name: "nothing after [DONE] is read",
			in:   sseOf(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`) + "data: {not json\n\n",
			want: meta(core.Event{Kind: core.EventText, Text: "a"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := drain(New().DecodeStream(strings.NewReader(tt.in)))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			want := tt.want
			if !hasFinish(want) {
				// Every input ends with [DONE]; without a finish_reason
				// before it the decoder adds a finish without reason.
				want = append(want, core.Event{Kind: core.EventFinish, Finish: core.FinishOther})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if tt.calls != nil {
				if diff := cmp.Diff(tt.calls, adaptertest.AssembleChat(got).Calls); diff != "" {
					t.Errorf("assembled calls (-want +got):\n%s", diff)
				}
				// The real Buffer agrees on id, name and arguments.
				resp, err := core.Collect(core.SliceStream(got))
				if err != nil {
					t.Fatalf("collect: %v", err)
				}
				if diff := cmp.Diff(callKeys(t, tt.calls), callKeys(t, adaptertest.ChatCalls(resp.Calls()))); diff != "" {
					t.Errorf("core.Collect calls (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func hasFinish(evs []core.Event) bool {
	for _, ev := range evs {
		if ev.Kind == core.EventFinish {
			return true
		}
	}
	return false
}

// TestDoneEndsCalls: [DONE] without a finish_reason completes the open
// calls (the recorded Novita stream does this); a stream cut before [DONE]
// leaves them incomplete (B09-B11), and core.Collect says so.
func TestDoneEndsCalls(t *testing.T) {
	body := "data: " + tc(`[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"q\":1}"}}]`) + "\n\n"
	for _, tt := range []struct {
		name     string
		in       string
		complete bool
	}{{"with [DONE]", body + "data: [DONE]\n\n", true}, {"cut before [DONE]", body, false}} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := core.Collect(New().DecodeStream(strings.NewReader(tt.in)))
			if tt.complete {
				if err != nil || len(resp.Calls()) != 1 || len(resp.Incomplete) != 0 {
					t.Fatalf("calls %v, incomplete %v, err %v; want one complete call", resp.Calls(), resp.Incomplete, err)
				}
				if resp.Finish != core.FinishOther || resp.ProviderFinish != "" {
					t.Errorf("finish %q/%q, want other with no provider reason", resp.Finish, resp.ProviderFinish)
				}
				return
			}
			if err == nil || len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 {
				t.Fatalf("calls %v, incomplete %v, err %v; want the call incomplete and an error", resp.Calls(), resp.Incomplete, err)
			}
		})
	}
}

func TestFinishReason(t *testing.T) {
	for raw, want := range map[string]core.FinishReason{
		"stop": core.FinishStop, "tool_calls": core.FinishToolCalls, "function_call": core.FinishToolCalls,
		"length": core.FinishLength, "content_filter": core.FinishContentFilter, "error": core.FinishError,
		"model_length": core.FinishLength, "eos": core.FinishOther, "": "",
	} {
		if got := FinishReason(raw); got != want {
			t.Errorf("FinishReason(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestDecodeStreamErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		opts    []Option
		nEvents int
		wantErr error
		wantOff int64
		at      string // when set, the fault is the last byte of its first occurrence
	}{
		{"malformed JSON names the faulty byte", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[\n\n", nil, 1, core.ErrMalformed, 64, ""},
		{"wrong type", "data: {\"choices\":[{\"index\":\"zero\"}]}\n\n", nil, 0, core.ErrMalformed, -1, `"zero"`},
		{"index too large for int", "data: " + tc(`[{"index":1e30,"id":"a"}]`) + "\n\n", nil, 0, core.ErrMalformed, -1, "1e30"},
		{"event too large", "data: {\"choices\":[]}\n\ndata: " + strings.Repeat(" ", 100) + "{}\n\n", []Option{MaxEventSize(64)}, 0, sse.ErrEventTooLarge, 22, ""},
		{"bad escape in arguments", "data: " + tc(`[{"index":0,"function":{"arguments":"\u00"}}]`) + "\n\n", nil, 0, core.ErrMalformed, -1, `\u00"`},
		{"fault on the second data line of an event", "data: {\"choices\":\ndata: [}\n\n", nil, 0, core.ErrMalformed, -1, "[}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.at != "" {
				tt.wantOff = int64(strings.Index(tt.in, tt.at) + len(tt.at) - 1)
			}
			st := New(tt.opts...).DecodeStream(strings.NewReader(tt.in))
			evs, err := drain(st)
			if len(evs) != tt.nEvents {
				t.Errorf("got %d events before the error, want %d", len(evs), tt.nEvents)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			var ce *DecodeError
			if !errors.As(err, &ce) || ce.Offset != tt.wantOff {
				t.Fatalf("error = %v, want a *DecodeError at byte %d", err, tt.wantOff)
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("error not sticky: %v then %v", err, err2)
			}
		})
	}
}
