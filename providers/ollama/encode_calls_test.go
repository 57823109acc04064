package ollama

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestEncodeStreamDropsNoCall: a call whose events have no end is ended by
// a finish, as core.Collect ends it, and written; a call that nothing ends
// is an error naming it, never a stream without it (issue 28).
func TestEncodeStreamDropsNoCall(t *testing.T) {
	a := New()
	open := core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c1", Name: "f", Start: true}}
	delta := core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: "c1", ArgsDelta: `{"a":1}`}}
	var buf bytes.Buffer
	if err := a.EncodeStream(&buf, []core.Event{open, delta, {Kind: core.EventFinish, Finish: core.FinishToolCalls}}); err != nil {
		t.Fatal(err)
	}
	resp, err := core.Collect(a.DecodeStream(&buf))
	if calls := resp.Calls(); err != nil || len(calls) != 1 || calls[0].Name != "f" || string(calls[0].Arguments) != `{"a":1}` {
		t.Errorf("decoded %+v, %v; want the call f {\"a\":1}", calls, err)
	}
	for _, tail := range [][]core.Event{nil, {{Kind: core.EventFinish, Finish: core.FinishLength}}} {
		evs := append([]core.Event{open, delta}, tail...)
		if err := a.EncodeStream(io.Discard, evs); !errors.Is(err, core.ErrIncomplete) || !strings.Contains(err.Error(), `call "c1" (f) has no end`) {
			t.Errorf("EncodeStream(a call cut off, then %v) = %v, want an error naming the call", tail, err)
		}
	}
}
