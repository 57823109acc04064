package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenDirs maps each protocol to the golden files its provider package
// writes from its own corpus tests (outside this module): for every
// recorded interaction, the calls the adapter decodes.
var goldenDirs = map[string]string{
	OpenAIChat:      "../providers/openaichat/testdata/golden",
	Anthropic:       "../providers/anthropic/testdata/golden",
	OpenAIResponses: "../providers/openairesponses/testdata/golden",
	Gemini:          "../providers/gemini/testdata/golden",
	Cohere:          "../providers/cohere/testdata/golden",
	Bedrock:         "../providers/bedrock/testdata/golden",
	Mistral:         "../providers/mistral/testdata/golden",
	// GeminiInteractions is decoded by package gemini, which keeps its
	// golden files in a folder of their own.
	GeminiInteractions: "../providers/gemini/testdata/golden/interactions",
}

// goldenCall is a call as the provider golden files write it: arguments
// as a JSON value (openai-chat, gemini, cohere, bedrock, mistral) or as
// JSON text (anthropic, openai-responses).
type goldenCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Args      *string         `json:"args"`
}

// sourceName returns the corpus file a cassette was imported from: the
// cassette's base name without the ".yaml" the importer adds to non-YAML
// recordings (".chunks.txt", ".sse", ".httprr", ".json").
func sourceName(cassette string) string {
	base := path.Base(cassette)
	trimmed := strings.TrimSuffix(base, ".yaml")
	for _, ext := range []string{".chunks.txt", ".sse", ".httprr", ".json"} {
		if strings.HasSuffix(trimmed, ext) {
			return trimmed
		}
	}
	return base
}

// goldenPaths returns the names a provider package may have given the
// golden file of a recording: the source name plus ".json" (anthropic,
// openai-responses, cohere, bedrock), or the source name without its last
// extension plus ".json" (openai-chat, gemini, mistral).
func goldenPaths(dir, source string) []string {
	stripped := source
	for _, ext := range []string{".yaml", ".txt", ".sse", ".httprr"} {
		if s, ok := strings.CutSuffix(source, ext); ok {
			stripped = s
			break
		}
	}
	return []string{filepath.Join(dir, source+".json"), filepath.Join(dir, stripped+".json")}
}

// goldenCalls returns the calls the provider golden file records for body
// (named "<protocol>/<cassette>#<interaction>"), as Calls with compact
// argument text, and the golden file's path.
func goldenCalls(protocol string, body Body) ([]Call, string, error) {
	cassette, idx, ok := strings.Cut(body.Name, "#")
	if !ok {
		return nil, "", fmt.Errorf("body %s: no interaction index", body.Name)
	}
	i, err := strconv.Atoi(idx)
	if err != nil {
		return nil, "", fmt.Errorf("body %s: %w", body.Name, err)
	}
	var data []byte
	var file string
	for _, p := range goldenPaths(goldenDirs[protocol], sourceName(cassette)) {
		data, err = os.ReadFile(p)
		if err == nil {
			file = p
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
	}
	if data == nil {
		return nil, "", fmt.Errorf("body %s: no golden file among %v", body.Name, goldenPaths(goldenDirs[protocol], sourceName(cassette)))
	}
	// A golden file is one summary per interaction, or one summary for a
	// single-interaction recording.
	var entries []struct {
		Calls []goldenCall `json:"calls"`
	}
	if strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		data = append(append([]byte("["), data...), ']')
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, file, fmt.Errorf("golden %s: %w", file, err)
	}
	if i >= len(entries) {
		return nil, file, fmt.Errorf("golden %s: %d summaries, body %s is interaction %d", file, len(entries), body.Name, i)
	}
	var calls []Call
	for _, c := range entries[i].Calls {
		args := string(c.Arguments)
		if c.Args != nil {
			args = *c.Args
		}
		calls = append(calls, Call{ID: c.ID, Name: c.Name, Args: args})
	}
	return calls, file, nil
}

// TestConformMatchesGoldens checks, before anything is timed, that the
// conform subject rebuilds from every recorded streamed body of every
// protocol (the corpus-all benchmarks) the calls that the protocol's own
// package decodes from it outside this module, as its golden files record
// them; arguments are compared as JSON values, since the golden files hold
// them as values. A body on which conform ends with an error must have no
// calls in its golden file.
func TestConformMatchesGoldens(t *testing.T) {
	total := 0
	for _, p := range Protocols {
		calls := 0
		bodies, err := CorpusStreams(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(bodies) == 0 {
			t.Errorf("%s: no recorded streams", p)
		}
		run := Subjects(p)[0]
		for _, body := range bodies {
			want, file, err := goldenCalls(p, body)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			total++
			calls += len(want)
			got, err := run.Run(nil, body.Data)
			if err != nil {
				if len(want) > 0 {
					t.Errorf("%s: conform: %v; %s has %d calls", body.Name, err, file, len(want))
				}
				continue
			}
			if diff := cmp.Diff(normalise(want, true), normalise(got, true)); diff != "" {
				t.Errorf("%s: calls differ from %s (-golden +conform):\n%s", body.Name, file, diff)
			}
		}
		// A golden layout this test misreads would show as no calls at all.
		if calls == 0 {
			t.Errorf("%s: the golden files of %d recorded streams hold no calls", p, len(bodies))
		}
		t.Logf("%s: %d recorded streams, %d calls", p, len(bodies), calls)
	}
	t.Logf("%d recorded streams checked against the provider golden files", total)
}

// TestGoldenPaths checks the golden file names tried for each kind of
// recording.
func TestGoldenPaths(t *testing.T) {
	for _, tc := range []struct {
		cassette string
		want     []string
	}{
		{"gemini/a--tool_streaming.yaml", []string{"d/a--tool_streaming.yaml.json", "d/a--tool_streaming.json"}},
		{"mistral/v.chunks.txt.yaml", []string{"d/v.chunks.txt.json", "d/v.chunks.json"}},
		{"openai-chat/f.sse.yaml", []string{"d/f.sse.json", "d/f.json"}},
		{"bedrock/l.httprr.yaml", []string{"d/l.httprr.json", "d/l.json"}},
	} {
		if diff := cmp.Diff(tc.want, goldenPaths("d", sourceName(tc.cassette))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.cassette, diff)
		}
	}
}
