package bedrock

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// Converse stream frames for TestStreamB11.
func cvStart(idx, id, name string) []string {
	return []string{"contentBlockStart", `{"contentBlockIndex":` + idx + `,"start":{"toolUse":{"toolUseId":"` + id + `","name":"` + name + `"}}}`}
}

func cvArgs(idx, input string) []string {
	return []string{"contentBlockDelta", `{"contentBlockIndex":` + idx + `,"delta":{"toolUse":{"input":` + quote(input) + `}}}`}
}

func cvText(idx, text string) []string {
	return []string{"contentBlockDelta", `{"contentBlockIndex":` + idx + `,"delta":{"text":` + quote(text) + `}}`}
}

func cvStop(idx string) []string {
	return []string{"contentBlockStop", `{"contentBlockIndex":` + idx + `}`}
}

func cvMessageStop(reason string) []string {
	return []string{"messageStop", `{"stopReason":"` + reason + `"}`}
}

func cvFrames(t testing.TB, parts ...[]string) []byte {
	t.Helper()
	var pairs []string
	for _, p := range parts {
		pairs = append(pairs, p...)
	}
	return frames(t, pairs...)
}

// TestStreamB11 states that a client tool call cut by the token limit is
// incomplete in a stream exactly as in a whole body (B11): the whole body
// through DecodeResponse and the same message streamed through DecodeStream
// and core.Collect give the same calls to run, the same incomplete calls
// (input so far in Original) and the same finish. A call counts as cut when
// it is the block written last before a max_tokens or
// model_context_window_exceeded stop; a call followed by any content, or a
// message that stops for another reason, stands.
func TestStreamB11(t *testing.T) {
	write := core.Call{ID: "t1", Name: "write", Original: `{"path":"a.md"}`}
	done := core.Call{ID: "t0", Name: "f", Arguments: []byte(`{"x":1}`)}
	tests := []struct {
		name       string
		whole      string
		stream     []byte
		calls      []core.Call
		incomplete []core.Call
		wantErr    error // of the stream's Collect
	}{
		{
			name:  "Converse: max_tokens cuts the only call, whose input parses",
			whole: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"write","input":{"path":"a.md"}}}]}},"stopReason":"max_tokens"}`,
			stream: cvFrames(t, []string{"messageStart", `{"role":"assistant"}`},
				cvStart("0", "t1", "write"), cvArgs("0", `{"path":"a.md"}`), cvStop("0"), cvMessageStop("max_tokens"),
				[]string{"metadata", `{"usage":{"inputTokens":3,"outputTokens":9,"totalTokens":12}}`}),
			incomplete: []core.Call{write},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:  "InvokeModel: max_tokens cuts the only call, whose input parses",
			whole: `{"id":"m","type":"message","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t1","name":"write","input":{"path":"a.md"}}],"stop_reason":"max_tokens"}`,
			stream: chunkFrames(t,
				`{"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":3}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"write","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a.md\"}"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}`,
				`{"type":"message_stop"}`),
			incomplete: []core.Call{write},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:  "Converse: model_context_window_exceeded cuts the last call, an earlier one stands",
			whole: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t0","name":"f","input":{"x":1}}},{"text":"and"},{"toolUse":{"toolUseId":"t1","name":"write","input":{"path":"a.md"}}}]}},"stopReason":"model_context_window_exceeded"}`,
			stream: cvFrames(t, cvStart("0", "t0", "f"), cvArgs("0", `{"x":1}`), cvStop("0"),
				cvText("1", "and"), cvStop("1"),
				cvStart("2", "t1", "write"), cvArgs("2", `{"path":`), cvArgs("2", `"a.md"}`), cvStop("2"),
				cvMessageStop("model_context_window_exceeded")),
			calls:      []core.Call{done},
			incomplete: []core.Call{write},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:  "Converse: two calls stopped in a row, the limit cuts the second",
			whole: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t0","name":"f","input":{"x":1}}},{"toolUse":{"toolUseId":"t1","name":"write","input":{"path":"a.md"}}}]}},"stopReason":"max_tokens"}`,
			stream: cvFrames(t, cvStart("0", "t0", "f"), cvStart("1", "t1", "write"),
				cvArgs("0", `{"x":1}`), cvArgs("1", `{"path":"a.md"}`), cvStop("0"), cvStop("1"),
				cvMessageStop("max_tokens")),
			calls:      []core.Call{done},
			incomplete: []core.Call{write},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:  "Converse: an earlier text block's stop after the call is no content, the call is still cut",
			whole: `{"output":{"message":{"role":"assistant","content":[{"text":"Hi"},{"toolUse":{"toolUseId":"t1","name":"write","input":{"path":"a.md"}}}]}},"stopReason":"max_tokens"}`,
			stream: cvFrames(t, cvText("0", "Hi"), cvStart("1", "t1", "write"), cvArgs("1", `{"path":"a.md"}`), cvStop("1"),
				cvStop("0"), cvMessageStop("max_tokens")),
			incomplete: []core.Call{write},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:       "Converse: a call without input cut by max_tokens is incomplete with input {}",
			whole:      `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"now","input":{}}}]}},"stopReason":"max_tokens"}`,
			stream:     cvFrames(t, cvStart("0", "t1", "now"), cvStop("0"), cvMessageStop("max_tokens")),
			incomplete: []core.Call{{ID: "t1", Name: "now", Original: `{}`}},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:  "InvokeModel: a start input without deltas cut by max_tokens is incomplete with that input",
			whole: `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"write","input":{"path":"a.md"}}],"stop_reason":"max_tokens"}`,
			stream: chunkFrames(t,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"write","input":{"path":"a.md"}}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}`,
				`{"type":"message_stop"}`),
			incomplete: []core.Call{write},
			wantErr:    core.ErrIncomplete,
		},
		{
			name:  "Converse: text after the call, the call was finished",
			whole: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t0","name":"f","input":{"x":1}}},{"text":"Now I"}]}},"stopReason":"max_tokens"}`,
			stream: cvFrames(t, cvStart("0", "t0", "f"), cvArgs("0", `{"x":1}`), cvStop("0"),
				cvText("1", "Now I"), cvMessageStop("max_tokens")),
			calls: []core.Call{done},
		},
		{
			name:  "InvokeModel: a provider-run block written last leaves the client call complete",
			whole: `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t0","name":"f","input":{"x":1}},{"type":"server_tool_use","id":"s","name":"web_search","input":{"q":"x"}}],"stop_reason":"max_tokens"}`,
			stream: chunkFrames(t,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"f","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"x\":1}"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"s","name":"web_search","input":{}}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\":\"x\"}"}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}`,
				`{"type":"message_stop"}`),
			calls: []core.Call{done},
		},
		{
			name:  "Converse: tool_use stop, the last call stands",
			whole: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t0","name":"f","input":{"x":1}}}]}},"stopReason":"tool_use"}`,
			stream: cvFrames(t, cvStart("0", "t0", "f"), cvArgs("0", `{"x":1}`), cvStop("0"), cvMessageStop("tool_use"),
				[]string{"metadata", `{"usage":{"inputTokens":3,"outputTokens":9,"totalTokens":12}}`}),
			calls: []core.Call{done},
		},
		{
			name:  "InvokeModel: end_turn, the last call stands",
			whole: `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t0","name":"f","input":{"x":1}}],"stop_reason":"end_turn"}`,
			stream: chunkFrames(t,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"f","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"x\":1}"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`,
				`{"type":"message_stop"}`),
			calls: []core.Call{done},
		},
		{
			name:    "Converse: no stop reason at all, the call stands as in a body without stopReason",
			whole:   `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t0","name":"f","input":{"x":1}}}]}}}`,
			stream:  cvFrames(t, cvStart("0", "t0", "f"), cvArgs("0", `{"x":1}`), cvStop("0")),
			calls:   []core.Call{done},
			wantErr: core.ErrTruncated,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, err := New().DecodeResponse([]byte(tt.whole))
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := core.Collect(New().DecodeStream(bytes.NewReader(tt.stream)))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("stream: error %v, want %v", err, tt.wantErr)
			}
			for _, r := range []struct {
				how  string
				resp *core.Response
			}{{"whole", whole}, {"stream", streamed}} {
				if diff := cmp.Diff(tt.calls, r.resp.Calls()); diff != "" {
					t.Errorf("%s: calls (-want +got):\n%s", r.how, diff)
				}
				if diff := cmp.Diff(tt.incomplete, r.resp.Incomplete); diff != "" {
					t.Errorf("%s: incomplete (-want +got):\n%s", r.how, diff)
				}
			}
			if whole.Finish != streamed.Finish || whole.ProviderFinish != streamed.ProviderFinish {
				t.Errorf("finish: whole %q (%q), stream %q (%q)", whole.Finish, whole.ProviderFinish, streamed.Finish, streamed.ProviderFinish)
			}
		})
	}
}
