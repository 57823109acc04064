package anthropic

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusCollect runs every recorded stream through core.Collect, the
// reference Buffer, and checks it finds the same calls as the golden
// summaries, with no error and nothing incomplete.
func TestCorpusCollect(t *testing.T) {
	a := New()
	n := 0
	for _, rec := range adaptertest.Recordings(t, "anthropic") {
		name := rec.Name
		for i, ex := range rec.Exchanges {
			if !adaptertest.IsSSE(ex.Response) {
				continue
			}
			n++
			events, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(ex.Response)))
			if err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			want := adaptertest.SummarizeEvents(events)
			resp, err := core.Collect(a.DecodeStream(bytes.NewReader(ex.Response)))
			var pe *core.ProviderError
			switch {
			case len(want.Errors) > 0 && !errors.As(err, &pe):
				t.Errorf("%s #%d: collect: error %v, want the provider error", name, i, err)
			case len(want.Errors) == 0 && err != nil:
				t.Errorf("%s #%d: collect: %v", name, i, err)
				continue
			}
			var got []adaptertest.CallSum
			for _, c := range resp.Calls() {
				got = append(got, adaptertest.CallSum{ID: c.ID, ItemID: c.ItemID, Name: c.Name, Args: string(c.Arguments)})
			}
			if diff := cmp.Diff(want.Calls, got); diff != "" {
				t.Errorf("%s #%d: calls (-want +got):\n%s", name, i, diff)
			}
			if len(resp.Incomplete) > 0 {
				t.Errorf("%s #%d: incomplete calls %+v", name, i, resp.Incomplete)
			}
			if len(want.Errors) == 0 && (resp.Text() != want.Text || resp.Finish != want.Finish) {
				t.Errorf("%s #%d: text/finish differ from the golden summary", name, i)
			}
		}
	}
	if n == 0 {
		t.Fatal("no streams")
	}
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
