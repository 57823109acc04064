package mistral

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// recording is one corpus file's response body. The mistral corpus holds
// only vercel-ai fixtures: .json bodies and .chunks.txt (one SSE data
// payload per line), read from their imported cassettes.
type recording struct {
	name   string
	body   []byte
	stream bool
}

// loadCorpus returns the three mistral recordings, named as their golden
// files are.
func loadCorpus(t testing.TB) []recording {
	t.Helper()
	var out []recording
	for _, rec := range adaptertest.Recordings(t, "mistral") {
		if len(rec.Exchanges) != 1 {
			t.Fatalf("%s: %d exchanges, want 1", rec.Name, len(rec.Exchanges))
		}
		ex := rec.Exchanges[0]
		var name string
		switch {
		case strings.HasSuffix(rec.Name, ".chunks.txt"):
			name = strings.TrimSuffix(rec.Name, ".txt")
		case strings.HasSuffix(rec.Name, ".json"):
			name = strings.TrimSuffix(rec.Name, ".json")
		default:
			t.Fatalf("unknown corpus file %s", rec.Name)
		}
		if ex.IsStream() != strings.HasSuffix(rec.Name, ".chunks.txt") {
			t.Fatalf("%s: Content-Type %q does not fit its name", rec.Name, ex.ContentType)
		}
		out = append(out, recording{name: name, body: ex.Response, stream: ex.IsStream()})
	}
	if len(out) != 3 {
		t.Fatalf("found %d mistral recordings, want 3", len(out))
	}
	return out
}

// golden is what a mistral golden file holds: the Chat Completions summary
// shared with openai-chat, with every event of a stream described in full
// (its Events field hides the summary's counts of events).
type golden struct {
	adaptertest.ChatSummary
	Events []string `json:"events,omitempty"`
}

func checkGolden(t *testing.T, name string, got golden) {
	t.Helper()
	adaptertest.CheckGolden(t, filepath.Join("testdata", "golden", name+".json"), got)
}
