package anthropic

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// knownBadStreams are hand-made faults added to the recorded seeds.
var knownBadStreams = []string{
	"data: {\"type\":\"content_block_delta\",\"index\":0}\n\n",
	"data: {\"type\":\"message_start\",\"message\":{}}\n\ndata: {\"type\":\"content_block_start\",\"index\":-1,\"content_block\":{\"type\":\"tool_use\",\"input\":{\"a\":1}}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\ud83d\"}}\n\n",
	"event: error\ndata: {\"type\":\"error\"}\n\n",
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":null}\n\n",
	"data: {\"type\":\"content_block_start\",\"index\":1e99}\n\n",
	"data: \xff\xfe\n\n",
	// A18: a populated start input that the deltas contradict.
	"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{\"a\":1}}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":2}\"}}\n\n" +
		"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
}

func FuzzDecodeStream(f *testing.F) {
	streams, _ := adaptertest.ResponseBodies(f, "anthropic", adaptertest.IsSSE)
	for _, s := range streams {
		f.Add(s)
	}
	for _, s := range knownBadStreams {
		f.Add([]byte(s))
	}
	a := New(WithMaxEventSize(1<<16), WithMaxBlocks(64))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(data)))
		if len(events) > len(data)+1 {
			t.Fatalf("%d events from %d bytes", len(events), len(data))
		}
		// Every call delta and end routes to a call the stream started,
		// and no call ends twice.
		started, ended := map[int]bool{}, map[int]bool{}
		for _, e := range events {
			if e.Kind == "" {
				t.Fatal("event without kind")
			}
			switch e.Kind {
			case "call_start":
				started[e.Chunk.Index], ended[e.Chunk.Index] = true, false
			case "call_delta", "call_end":
				if !e.Chunk.HasIndex || !started[e.Chunk.Index] || ended[e.Chunk.Index] {
					t.Fatalf("%s for index %d that is not an open call", e.Kind, e.Chunk.Index)
				}
				if e.Kind == "call_end" {
					ended[e.Chunk.Index] = true
				}
			}
		}
		_ = err
	})
}

func FuzzDecodeResponse(f *testing.F) {
	_, bodies := adaptertest.ResponseBodies(f, "anthropic", adaptertest.IsSSE)
	for _, b := range bodies {
		f.Add(b)
	}
	for _, s := range []string{`{"type":"error"}`, `{"content":[{"type":"tool_use","input":"x"}]}`, `{"content":[{"type":"tool_use","input":{"a":`, `[]`, `null`} {
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
		if _, err := a.EncodeResponse(resp); err != nil {
			// Only arguments that are not objects may be refused.
			return
		}
	})
}

func FuzzDecodeRequest(f *testing.F) {
	for _, b := range adaptertest.RequestBodies(f, "anthropic") {
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
