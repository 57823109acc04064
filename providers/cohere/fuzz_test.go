package cohere

import (
	"bytes"
	"errors"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// FuzzDecodeStream checks that DecodeStream never panics, ends every
// failure with a *DecodeError inside the body, never yields a delta larger
// than the event size limit allows, ends blank input cleanly, and says
// core.ErrNotStream only for a body it yielded no event from.
func FuzzDecodeStream(f *testing.F) {
	adaptertest.SeedCorpus(f, "cohere", true)
	f.Add(sseBody(false, callStart(-1, "c", "f", `"null"`), callEnd(-1)))
	f.Add(sseBody(true, callStart(0, "c", "f", `""`), callDelta(0, `{"a":`)))
	f.Add([]byte("data: {\"type\":\"tool-call-delta\",\"index\":1e99}\n\n"))
	f.Add([]byte("event: message-end\ndata: {\"type\":\"message-end\",\"delta\":{\"usage\":{\"tokens\":{\"input_tokens\":1e400}}}}\n\n"))
	f.Add([]byte{})
	f.Add([]byte("hello world"))
	f.Add([]byte(" \r\n\t\n"))
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("  \n\n: ping\n\nevent: zz\ndata: {\"x\":1}\n\n"))
	const max = 2048
	f.Fuzz(func(t *testing.T, body []byte) {
		evs, err := adaptertest.Drain(New(WithMaxEventSize(max)).DecodeStream(bytes.NewReader(body)))
		if len(bytes.Trim(body, " \t\r\n")) == 0 && err != nil {
			t.Fatalf("blank body: error %v", err)
		}
		if errors.Is(err, core.ErrNotStream) && len(evs) > 0 {
			t.Fatalf("%d events, then %v", len(evs), err)
		}
		if err != nil {
			var se *DecodeError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			// A byte of the body, or, for a fault found in a decoded event
			// (text that is not UTF-8), the event and field.
			if se.Offset < 0 && se.Path == "" || se.Offset > int64(len(body)) {
				t.Fatalf("error %v: offset %d outside the %d-byte body and no path", err, se.Offset, len(body))
			}
		}
		for _, e := range evs {
			if len(e.Text) > max || (e.Chunk != nil && len(e.Chunk.ArgsDelta) > max) {
				t.Fatalf("event larger than the %d-byte event limit", max)
			}
		}
	})
}

// FuzzDecodeResponse checks that DecodeResponse and DecodeRequest never
// panic, and that a decoded response encodes and decodes again to the same
// calls.
func FuzzDecodeResponse(f *testing.F) {
	adaptertest.SeedCorpus(f, "cohere", false)
	f.Add([]byte(`{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}`))
	f.Add([]byte(`{"message":"boom"}`))
	f.Add([]byte(`{"message":{"content":"x"}}`))
	f.Add([]byte(`{"messages":[{"role":"tool","content":[{"type":"document","document":{"data":"s"}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := New()
		_, _ = a.DecodeRequest(body)
		resp, err := a.DecodeResponse(body)
		if err != nil {
			return
		}
		again, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatalf("re-encoding a decoded response: %v", err)
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
