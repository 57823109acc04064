package gemini

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// callsStream is an SSE stream of n whole calls, one chunk each, with
// usage, model and response id in every chunk: more calls than the
// stream's first call chunks, and strings in and past the arena's first
// block.
func callsStream(n int) []byte {
	var b strings.Builder
	for i := range n {
		finish := ""
		if i == n-1 {
			finish = `,"finishReason":"STOP"`
		}
		fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[{"functionCall":{"id":"call_%d","name":"tool_%d","args":{"k":"%s\n","n":%d}}}],"role":"model"}%s,"index":0}],"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d},"modelVersion":"gemini-x","responseId":"resp_%d"}`+"\r\n\r\n",
			i, i, strings.Repeat("v", 40*i), i, finish, 10+i, 5*i, n)
	}
	return []byte(b.String())
}

// TestReusedDecoder: DecodeStream hands a stream's decoder to the next
// stream once it has returned io.EOF. Streams decoded one after the other
// in random read sizes, each drained before the next starts, keep the
// events their own decoder gives, checked only after all were decoded, so
// that a decoder that left anything an event points into behind, or any
// state, fails; and Next after io.EOF stays io.EOF.
func TestReusedDecoder(t *testing.T) {
	var streams [][]byte
	for _, body := range corpusBodies(t) {
		if isStream(body) {
			streams = append(streams, body)
		}
	}
	streams = append(streams, typicalStream(20), callsStream(5), []byte(`[{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}]}]`))
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, true)
	}
	adaptertest.CheckReusedDecoder(t, streams, want, wantErr, a.DecodeStream)
}
