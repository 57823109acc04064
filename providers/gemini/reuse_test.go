package gemini

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

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
	wantErr := make([]string, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, true)
	}
	rapid.Check(t, func(t *rapid.T) {
		var got [][]core.Event
		var order []int
		for range 3 * len(streams) {
			i := rapid.IntRange(0, len(streams)-1).Draw(t, "stream")
			st := a.DecodeStream(adaptertest.DrawSplitReader(t, streams[i]))
			evs, err := adaptertest.Drain(st)
			errText := ""
			if err != nil {
				errText = err.Error()
			} else if ev, err := st.Next(); err != io.EOF {
				t.Fatalf("stream %d: Next after io.EOF gives %+v, %v", i, ev, err)
			}
			if errText != wantErr[i] {
				t.Fatalf("stream %d: error %q, want %q", i, errText, wantErr[i])
			}
			got, order = append(got, evs), append(order, i)
		}
		for j, i := range order {
			if diff := cmp.Diff(want[i], got[j]); diff != "" {
				t.Fatalf("stream %d, decoded %dth: events after all were decoded (-own decoder +reused):\n%s", i, j, diff)
			}
		}
	})
}
