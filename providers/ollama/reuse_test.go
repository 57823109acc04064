package ollama

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// callsStream is a stream of n lines of one whole call each, with ids and
// indexes, and the done line, as the benchmarks' ollama-4x2KB is shaped:
// more calls than the keep's first call chunks, and arguments in and past
// the decoder's buffers.
func callsStream(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"model":"qwen3","created_at":"2025-10-01T10:00:00.1Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_%d","function":{"index":%d,"name":"tool_%d","arguments":{"k":"%s\n","n":%d}}}]},"done":false}`+"\n",
			i, i, i, strings.Repeat("v", 300*i), i)
	}
	b.WriteString(doneLine + "\n")
	return []byte(b.String())
}

// reuseBodies are streams whose events' storage a decoder that reuses it
// too early would give Collect wrong: three calls in one line, spaced
// (compacted into the line's buffer) and compact (views of the line),
// then a line of two more; a double-encoded string (not vouched for)
// between two objects; text, thinking and a call in one line.
var reuseBodies = []string{
	`{"model":"m","message":{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":{"x": 1, "y": [1, 2]}}},{"id":"b","function":{"name":"g","arguments":{"z":"zz"}}},{"id":"c","function":{"name":"h","arguments":{ "w" : true }}}]},"done":false}` + "\n" +
		`{"model":"m","message":{"role":"assistant","tool_calls":[{"id":"d","function":{"name":"f","arguments":{"q":2}}},{"id":"e","function":{"name":"g","arguments":{"q": 3}}}]},"done":true,"done_reason":"stop"}` + "\n",
	`{"model":"m","message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}},{"function":{"name":"g","arguments":"{\"s\":1}"}},{"function":{"name":"h","arguments":{"b": 2}}}]},"done":true,"done_reason":"stop"}` + "\n",
	`{"model":"m","message":{"role":"assistant","thinking":"hm","content":"I call f.","tool_calls":[{"function":{"name":"f","arguments":{"t":"\u00e9"}}}]},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}`,
}

// collectBodies are the streams TestCollectReused and TestCollectVouched
// collect.
func collectBodies(t testing.TB) [][]byte {
	bodies := append(streamBodies(t), callsStream(4), callsStream(40))
	for _, b := range reuseBodies {
		bodies = append(bodies, []byte(b))
	}
	return bodies
}

// TestCollectReused: core.Collect gives the same Response and error
// whether or not the stream may reuse its events' storage
// (ReuseEventText), over every fixture stream, the benchmarks' shape and
// the streams above, read whole and in pieces.
func TestCollectReused(t *testing.T) {
	adaptertest.CheckCollectReused(t, collectBodies(t), New().DecodeStream)
}

// TestCollectVouched: every vouch (VouchArgs) is for one JSON value in
// UTF-8 and for the checked string only; every call sent as an object is
// vouched for, a double-encoded string is not.
func TestCollectVouched(t *testing.T) {
	a := New()
	if n := adaptertest.CheckCollectVouched(t, collectBodies(t), a.DecodeStream); n < 50 {
		t.Errorf("%d arguments vouched for, want at least the 50 objects of the calls streams and reuseBodies", n)
	}
	for i, want := range []int{5, 2, 1} {
		n, _ := adaptertest.CheckVouches(t, a.DecodeStream(bytes.NewReader([]byte(reuseBodies[i]))), 100)
		if n != want {
			t.Errorf("reuseBodies[%d]: %d arguments vouched for, want %d", i, n, want)
		}
	}
}

// TestReusedDecoder: DecodeStream hands a stream's decoder to the next
// stream once it has returned io.EOF. Streams decoded one after the other
// in random read sizes, each drained before the next starts, keep the
// events their own decoder gives, checked only after all were decoded, so
// that a decoder that left anything an event points into behind, or any
// state, fails; and Next after io.EOF stays io.EOF.
func TestReusedDecoder(t *testing.T) {
	streams := append(streamBodies(t), callsStream(5))
	for _, b := range reuseBodies {
		streams = append(streams, []byte(b))
	}
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, true)
	}
	adaptertest.CheckReusedDecoder(t, streams, want, wantErr, a.DecodeStream)
}

// TestCollectConcurrent: streams collected from several goroutines at
// once, their pooled decoders and Collect's pooled Buffers passing from
// one to another, each give what they give collected alone.
func TestCollectConcurrent(t *testing.T) {
	adaptertest.CheckCollectConcurrent(t, collectBodies(t), New().DecodeStream)
}
