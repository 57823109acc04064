package bedrock

import (
	"bytes"
	"io"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusResponses decodes every recorded response, streamed or not, and
// checks its calls, text, finish and usage against a golden file. The
// golden files of this protocol keep no response id.
func TestCorpusResponses(t *testing.T) {
	adaptertest.CheckCorpusSummaries(t, "bedrock", New(), func(s *adaptertest.IndexSummary) { s.ID = "" })
}

// unmodelledInvoke lists the request fields conform does not model, dropped
// from both sides before comparing a re-encoded request with the recording.
var unmodelledInvoke = []string{"temperature", "top_p", "top_k", "stop_sequences", "metadata", "stream", "thinking"}

// TestCorpusRequests decodes every recorded request, encodes it again with
// the API it was recorded for, and compares the two as parsed JSON.
func TestCorpusRequests(t *testing.T) {
	pick := func(body []byte) core.Adapter {
		if bytes.Contains(body, []byte(`"anthropic_version"`)) {
			return New(WithAPI(InvokeAnthropic))
		}
		return New()
	}
	norm := func(t *testing.T, body []byte) map[string]any {
		return adaptertest.ParseDropping(t, body, unmodelledInvoke)
	}
	if n := adaptertest.CheckCorpusRequestsWith(t, "bedrock", pick, norm); n == 0 {
		t.Error("no recorded requests in the corpus")
	}
}

// TestCorpusCollect drains every recorded stream through core.Collect, the
// core Buffer's accumulation, and checks it gives the calls of the golden
// files with nothing incomplete and no error.
func TestCorpusCollect(t *testing.T) {
	adaptertest.CheckCorpusCollectByIndex(t, "bedrock", func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}
