package anthropic

import (
	"bytes"
	"io"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusCollect runs every recorded stream through core.Collect, the
// reference Buffer, and checks it finds the same calls as the golden
// summaries, with no error and nothing incomplete.
func TestCorpusCollect(t *testing.T) {
	a := New()
	adaptertest.CheckCorpusCollect(t, "anthropic", func(r io.Reader) core.EventStream { return a.DecodeStream(r) })
}

// TestCollectB11 checks that a tool_use cut by max_tokens never becomes a
// call the client could run.
func TestCollectB11(t *testing.T) {
	stream := sseOf(msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `"{\"a\":"`), blockStop(0), msgDelta("max_tokens"), msgStop)
	resp, _ := core.Collect(New().DecodeStream(bytes.NewReader([]byte(stream))))
	if len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 || resp.Finish != core.FinishLength {
		t.Errorf("calls %+v incomplete %+v finish %q; want no call, one incomplete, length", resp.Calls(), resp.Incomplete, resp.Finish)
	}
}
