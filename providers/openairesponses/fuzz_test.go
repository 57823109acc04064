package openairesponses

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// knownBadStreams are hand-made faults added to the recorded seeds.
var knownBadStreams = []string{
	"data: {\"type\":\"response.output_item.added\"}\n\n",
	"data: {\"type\":\"response.function_call_arguments.done\",\"item_id\":\"x\",\"arguments\":{\"a\":1}}\n\n",
	"data: {\"type\":\"response.completed\"}\n\n",
	"data: {\"type\":\"error\",\"code\":42}\n\n",
	"data: {\"type\":\"response.output_item.added\",\"output_index\":-1,\"item\":{\"type\":\"function_call\",\"id\":\"\",\"call_id\":\"\"}}\n\ndata: {\"type\":\"response.output_item.added\",\"output_index\":-1,\"item\":{\"type\":\"function_call\",\"id\":\"\",\"call_id\":\"\"}}\n\n",
	"data: {\"type\":\"response.output_text.delta\",\"delta\":\"\\ud83d\"}\n\n",
	"data: [DONE]\n\n",
}

func FuzzDecodeStream(f *testing.F) {
	streams, _ := adaptertest.ResponseBodies(f, "openai-responses", adaptertest.IsSSE)
	for _, s := range streams {
		f.Add(s)
	}
	for _, s := range knownBadStreams {
		f.Add([]byte(s))
	}
	a := New(WithMaxEventSize(1<<16), WithMaxItems(64))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, _ := adaptertest.Drain(a.DecodeStream(bytes.NewReader(data)))
		if len(events) > len(data)+1 {
			t.Fatalf("%d events from %d bytes", len(events), len(data))
		}
		// Every call starts once per call_id and carries its routing.
		ids := map[string]bool{}
		for _, e := range events {
			if e.Kind == "" {
				t.Fatal("event without kind")
			}
			if e.Kind == core.EventCallStart {
				if ids[e.Chunk.ID] {
					t.Fatalf("call_id %q started twice (D06 not reported)", e.Chunk.ID)
				}
				ids[e.Chunk.ID] = true
			}
			if (e.Kind == core.EventCallDelta || e.Kind == core.EventCallEnd) && e.Chunk == nil {
				t.Fatal("call event without chunk")
			}
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	_, bodies := adaptertest.ResponseBodies(f, "openai-responses", adaptertest.IsSSE)
	for _, b := range bodies {
		f.Add(b)
	}
	for _, s := range []string{`{"error":{}}`, `{"output":[{"type":"function_call","arguments":"{\"a\":"}]}`, `{"output":[{"type":"function_call","arguments":7}]}`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := a.DecodeResponse(data)
		if err != nil {
			return
		}
		for _, c := range resp.Calls() {
			if !json.Valid(c.Arguments) {
				t.Fatalf("call %q reported complete with invalid arguments %q", c.ID, c.Arguments)
			}
		}
	})
}

func FuzzDecodeRequest(f *testing.F) {
	for _, b := range adaptertest.RequestBodies(f, "openai-responses") {
		f.Add(b)
	}
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := a.DecodeRequest(data)
		if err != nil {
			return
		}
		_, _ = a.EncodeRequest(req)
	})
}
