package openairesponses

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
	adaptertest.CheckCorpusCollect(t, "openai-responses", func(r io.Reader) core.EventStream { return a.DecodeStream(r) })
}

// TestCollectB11 checks that a call cut by max_output_tokens never becomes
// a call the client could run.
func TestCollectB11(t *testing.T) {
	stream := sseOf(created, added("0", "fc_a", "call_a"), argDelta("0", "fc_a", `"{\"q\":"`),
		`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`)
	resp, _ := core.Collect(New().DecodeStream(bytes.NewReader([]byte(stream))))
	if len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 || resp.Finish != core.FinishLength {
		t.Errorf("calls %+v incomplete %+v finish %q; want no call, one incomplete, length", resp.Calls(), resp.Incomplete, resp.Finish)
	}
}
