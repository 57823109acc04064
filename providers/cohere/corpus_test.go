package cohere

import (
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusResponses decodes every recorded response, streamed or not, and
// checks its calls, plan, text, finish and usage against a golden file.
func TestCorpusResponses(t *testing.T) {
	adaptertest.CheckCorpusSummaries(t, "cohere", New(), nil)
}

// unmodelled lists the request fields conform does not model, dropped from
// both sides before comparing a re-encoded request with the recording.
var unmodelled = []string{"temperature", "p", "k", "seed", "frequency_penalty", "presence_penalty", "stop_sequences", "documents", "citation_options", "safety_mode", "logprobs", "thinking"}

// TestCorpusRequests decodes every recorded request, encodes it again and
// compares the two as parsed JSON.
func TestCorpusRequests(t *testing.T) {
	var n int
	for _, rec := range adaptertest.Recordings(t, "cohere") {
		for i, ex := range rec.Exchanges {
			if ex.Request == nil {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s/%d", rec.Name, i), func(t *testing.T) {
				a := New()
				req, err := a.DecodeRequest(ex.Request)
				if err != nil {
					t.Fatal(err)
				}
				out, err := a.EncodeRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				want, got := adaptertest.ParseDropping(t, ex.Request, unmodelled), adaptertest.ParseDropping(t, out, unmodelled)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("re-encoded request differs (-want +got):\n%s", diff)
				}
			})
		}
	}
	if n == 0 {
		t.Error("no recorded requests in the corpus")
	}
}

// TestCorpusCollect drains every recorded stream through core.Collect, the
// core Buffer's accumulation, and checks it gives the calls of the golden
// files with nothing incomplete and no error.
func TestCorpusCollect(t *testing.T) {
	adaptertest.CheckCorpusCollectByIndex(t, "cohere", func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}
