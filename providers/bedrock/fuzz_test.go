package bedrock

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// FuzzDecodeStream checks that DecodeStream never panics, ends every
// failure with a *DecodeError, and that no event is larger than the frame
// that carried it allows.
func FuzzDecodeStream(f *testing.F) {
	adaptertest.SeedCorpus(f, "bedrock", true)
	good := frames(f, "contentBlockStart", `{"contentBlockIndex":-1,"start":{"toolUse":{"toolUseId":"t","name":"n"}}}`, "contentBlockStop", `{"contentBlockIndex":-1}`)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(bytes.Clone(good), prelude(1<<30, 0)...))
	f.Add([]byte{})
	f.Add(prelude(16, 0))
	// A18: a tool_use start with input whose deltas repeat it, and one
	// whose deltas contradict it.
	a18 := func(frag string) []byte {
		return chunkFrames(f,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"a":1,"b":[true]}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+quote(frag)+`}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`)
	}
	f.Add(a18(`{"a":1,"b":[true]}`))
	f.Add(a18(`{"b":[false],"a":1}`))
	// B11: a call stopped, then max_tokens, on both APIs.
	f.Add(frames(f, "contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"n"}}}`,
		"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"p\":1}"}}}`,
		"contentBlockStop", `{"contentBlockIndex":0}`, "messageStop", `{"stopReason":"max_tokens"}`))
	f.Add(chunkFrames(f,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"p":1}}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}`))
	const max = 4096
	f.Fuzz(func(t *testing.T, body []byte) {
		evs, err := adaptertest.Drain(New(WithMaxFrameSize(max)).DecodeStream(bytes.NewReader(body)))
		if err != nil {
			var fe *DecodeError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			// A byte of the body, or, for a fault found in a decoded event
			// (text that is not UTF-8), the event and field.
			if fe.Offset < 0 && fe.Path == "" || fe.Offset > int64(len(body)) {
				t.Fatalf("error %v: offset %d outside the %d-byte body and no path", err, fe.Offset, len(body))
			}
		}
		for _, e := range evs {
			if len(e.Text)+len(e.Signature) > max {
				t.Fatalf("event of %d bytes from frames of at most %d", len(e.Text), max)
			}
			if e.Chunk != nil && len(e.Chunk.ArgsDelta) > max {
				t.Fatalf("argument delta of %d bytes from frames of at most %d", len(e.Chunk.ArgsDelta), max)
			}
		}
	})
}

// FuzzDecodeResponse checks that DecodeResponse and DecodeRequest never
// panic, and that a decoded response encodes and decodes again to the same
// calls.
func FuzzDecodeResponse(f *testing.F) {
	adaptertest.SeedCorpus(f, "bedrock", false)
	f.Add([]byte(`{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"b","input":null}}]}},"stopReason":"tool_use"}`))
	f.Add([]byte(`{"message":"denied"}`))
	f.Add([]byte(`{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"b","input":"x"}}]}}}`))
	f.Add([]byte(`{"output":`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := New()
		_, _ = a.DecodeRequest(body)
		resp, err := a.DecodeResponse(body)
		if err != nil {
			return
		}
		again, err := a.EncodeResponse(resp)
		if err != nil {
			return // arguments that are not an object are refused on encode (G15)
		}
		back, err := a.DecodeResponse(again)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if len(back.Calls()) != len(resp.Calls()) {
			t.Fatalf("%d calls after a round trip, want %d", len(back.Calls()), len(resp.Calls()))
		}
	})
}
