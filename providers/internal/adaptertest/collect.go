package adaptertest

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// CheckCorpusCollect runs every recorded SSE stream of a protocol through
// core.Collect, the reference Buffer, and checks that it finds the same
// calls as SummarizeEvents (the golden summaries' reading) with nothing
// incomplete, the same text and finish, and the provider's error where the
// stream has one. It fails if the protocol has no streams.
func CheckCorpusCollect(t *testing.T, protocol string, decode func(io.Reader) core.EventStream) {
	t.Helper()
	n := 0
	for _, rec := range Recordings(t, protocol) {
		for i, ex := range rec.Exchanges {
			if !IsSSE(ex.Response) {
				continue
			}
			n++
			events, err := Drain(decode(bytes.NewReader(ex.Response)))
			if err != nil {
				t.Fatalf("%s #%d: %v", rec.Name, i, err)
			}
			want := SummarizeEvents(events)
			resp, err := core.Collect(decode(bytes.NewReader(ex.Response)))
			var pe *core.ProviderError
			switch {
			case len(want.Errors) > 0 && !errors.As(err, &pe):
				t.Errorf("%s #%d: collect: error %v, want the provider error", rec.Name, i, err)
			case len(want.Errors) == 0 && err != nil:
				t.Errorf("%s #%d: collect: %v", rec.Name, i, err)
				continue
			}
			var got []CallSum
			for _, c := range resp.Calls() {
				got = append(got, CallSum{ID: c.ID, ItemID: c.ItemID, Name: c.Name, Args: string(c.Arguments)})
			}
			if diff := cmp.Diff(want.Calls, got); diff != "" {
				t.Errorf("%s #%d: calls (-want +got):\n%s", rec.Name, i, diff)
			}
			if len(resp.Incomplete) > 0 {
				t.Errorf("%s #%d: incomplete calls %+v", rec.Name, i, resp.Incomplete)
			}
			if len(want.Errors) == 0 && (resp.Text() != want.Text || resp.Finish != want.Finish) {
				t.Errorf("%s #%d: text/finish differ from the golden summary", rec.Name, i)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no %s streams", protocol)
	}
}
