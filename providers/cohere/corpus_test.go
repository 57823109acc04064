package cohere

import (
	"io"
	"testing"

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
	norm := func(t *testing.T, body []byte) map[string]any { return adaptertest.ParseDropping(t, body, unmodelled) }
	if n := adaptertest.CheckCorpusRequests(t, "cohere", New(), norm); n == 0 {
		t.Error("no recorded requests in the corpus")
	}
}

// TestCorpusCollect drains every recorded stream through core.Collect, the
// core Buffer's accumulation, and checks it gives the calls of the golden
// files with nothing incomplete and no error.
func TestCorpusCollect(t *testing.T) {
	adaptertest.CheckCorpusCollectByIndex(t, "cohere", func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}
