package gemini

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusThroughCollect feeds every recorded stream through core.Collect
// and checks that the core Buffer assembles exactly the calls (ids, names,
// arguments, signatures) and the finish reason this package's own view of
// the events gives, with nothing incomplete.
func TestCorpusThroughCollect(t *testing.T) {
	a := New()
	streams := 0
	for _, rec := range adaptertest.Recordings(t, "gemini") {
		f := rec.Name
		for i, ex := range rec.Exchanges {
			if !isStream(ex.Response) {
				continue
			}
			streams++
			evs, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(ex.Response)))
			if err != nil {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			want, _ := streamCalls(evs)
			resp, err := core.Collect(a.DecodeStream(bytes.NewReader(ex.Response)))
			if err != nil {
				t.Errorf("%s #%d: Collect: %v", f, i, err)
				continue
			}
			if diff := cmp.Diff(summarize(want), summarize(resp.Calls())); diff != "" {
				t.Errorf("%s #%d: calls (-adapter +Collect):\n%s", f, i, diff)
			}
			if len(resp.Incomplete) > 0 {
				t.Errorf("%s #%d: incomplete calls %+v", f, i, resp.Incomplete)
			}
			if last := evs[len(evs)-1]; last.Kind == core.EventFinish && resp.Finish != last.Finish {
				t.Errorf("%s #%d: Collect finish %q, stream %q", f, i, resp.Finish, last.Finish)
			}
		}
	}
	if streams < 20 {
		t.Fatalf("only %d streams", streams)
	}
}

// TestCollectTruncatedPartialArgs checks that a Vertex partialArgs call cut
// by the end of the stream is never reported complete (B09).
func TestCollectTruncatedPartialArgs(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.q","stringValue":"par","willContinue":true}],"willContinue":true}}]}}]}`,
	)
	resp, err := core.Collect(New().DecodeStream(strings.NewReader(body)))
	if err == nil {
		t.Error("Collect reported no problem for a cut call")
	}
	if len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 || resp.Incomplete[0].Name != "w" {
		t.Errorf("calls %+v, incomplete %+v; want no call and w incomplete", resp.Calls(), resp.Incomplete)
	}
}
