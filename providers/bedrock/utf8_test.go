package bedrock

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestInvokeStreamRefusesInvalidUTF8: bytes that are not UTF-8 inside the
// base64 chunk of an InvokeModel stream are refused, as every other stream
// dialect and every whole body refuses them (RFC 8259 §8.1), in argument
// deltas and in text (issue 28: they became U+FFFD, the call complete).
func TestInvokeStreamRefusesInvalidUTF8(t *testing.T) {
	const (
		tool  = `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`
		input = `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"p\":1}"}}`
	)
	for name, tt := range map[string]struct{ start, delta string }{
		"input": {tool, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"p\":\"a` + "\xff" + `b\"}"}}`},
		"text":  {`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a` + "\xff" + `b"}}`},
		"name":  {`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f` + "\xff" + `","input":{}}}`, input},
	} {
		t.Run(name, func(t *testing.T) {
			start, delta := tt.start, tt.delta
			body := chunkFrames(t,
				`{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":7,"output_tokens":1}}}`,
				start, delta,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`,
				`{"type":"message_stop"}`)
			resp, err := core.Collect(New().DecodeStream(bytes.NewReader(body)))
			if !errors.Is(err, core.ErrInvalidUTF8) {
				t.Errorf("Collect error = %v, want one wrapping ErrInvalidUTF8", err)
			}
			if len(resp.Calls()) != 0 {
				t.Errorf("calls %+v, want none complete", resp.Calls())
			}
		})
	}
}

// TestInvokeStreamSplitCharacter: a character split between two input
// deltas of an InvokeModel stream comes out whole (B05), as in every
// other stream dialect.
func TestInvokeStreamSplitCharacter(t *testing.T) {
	body := chunkFrames(t,
		`{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":7,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"p\":\"`+"\xc3"+`"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"`+"\xa9"+`\"}"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`,
		`{"type":"message_stop"}`)
	resp, err := core.Collect(New().DecodeStream(bytes.NewReader(body)))
	if calls := resp.Calls(); err != nil || len(calls) != 1 || string(calls[0].Arguments) != `{"p":"é"}` {
		t.Fatalf("Collect = %+v, %v; want one call with {\"p\":\"é\"}", calls, err)
	}
}
