package cassettes

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v4"
)

// TestCorpusGoVCRBodiesExact checks, reading each source file directly rather
// than through the importer, that every body of every go-vcr source
// (Bedrock's binary event-stream bodies included) reaches the cassette byte
// for byte.
func TestCorpusGoVCRBodiesExact(t *testing.T) {
	n := 0
	for _, f := range corpusFiles(t) {
		if !strings.HasPrefix(f.name, "fantasy__") {
			continue
		}
		var src struct {
			Interactions []struct {
				Request  struct{ Body string }
				Response struct{ Body string }
			}
		}
		if err := yaml.Unmarshal(mustRead(t, f.source()), &src); err != nil {
			t.Fatalf("%s: %v", f.source(), err)
		}
		c, err := Load(filepath.ToSlash(f.cassette()))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Interactions) != len(src.Interactions) {
			t.Errorf("%s: %d interactions, source has %d", f.cassette(), len(c.Interactions), len(src.Interactions))
			continue
		}
		for k, i := range c.Interactions {
			if i.Request.Body != src.Interactions[k].Request.Body {
				t.Errorf("%s: interaction %d: request body differs from the source", f.cassette(), k)
			}
			if i.Response.Body != src.Interactions[k].Response.Body {
				t.Errorf("%s: interaction %d: response body differs from the source", f.cassette(), k)
			}
			n++
		}
	}
	if n < 200 {
		t.Errorf("checked %d go-vcr interactions, want at least 200", n)
	}
}

// TestCorpusBedrockChunkFrames decodes the event-stream body made from each
// Bedrock chunk fixture and checks it gives back the fixture's lines.
func TestCorpusBedrockChunkFrames(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(corpusDir, "bedrock", "*.chunks.txt"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no bedrock chunk fixtures: %v", err)
	}
	for _, src := range names {
		var want []map[string]json.RawMessage
		for _, line := range strings.Split(strings.TrimSpace(string(mustRead(t, src))), "\n") {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			want = append(want, m)
		}
		c, err := Load("bedrock/" + CassetteName(filepath.Base(src)))
		if err != nil {
			t.Fatal(err)
		}
		body := c.Interactions[0].Response.Body
		dec := eventstream.NewDecoder()
		r := strings.NewReader(body)
		var got []map[string]json.RawMessage
		for r.Len() > 0 {
			msg, err := dec.Decode(r, nil)
			if err != nil {
				t.Fatalf("%s: frame %d: %v", src, len(got), err)
			}
			typ := msg.Headers.Get(":event-type")
			if mt := msg.Headers.Get(":message-type"); mt == nil || mt.String() != "event" {
				t.Errorf("%s: frame %d: message type %v, want event", src, len(got), mt)
			}
			if typ == nil {
				t.Fatalf("%s: frame %d has no :event-type", src, len(got))
			}
			got = append(got, map[string]json.RawMessage{typ.String(): msg.Payload})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", src, diff)
		}
	}
}

// TestCorpusChunksAsSSE checks every non-Bedrock chunk fixture became one
// SSE event per line, with the line as data.
func TestCorpusChunksAsSSE(t *testing.T) {
	n := 0
	for _, f := range corpusFiles(t) {
		if !strings.HasSuffix(f.name, ".chunks.txt") || f.protocol == "bedrock" {
			continue
		}
		c, err := Load(filepath.ToSlash(f.cassette()))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, line := range strings.Split(string(mustRead(t, f.source())), "\n") {
			if strings.TrimSpace(line) != "" {
				want = append(want, strings.TrimSuffix(line, "\r"))
			}
		}
		var got []string
		for _, ev := range strings.Split(strings.TrimSuffix(c.Interactions[0].Response.Body, "\n\n"), "\n\n") {
			got = append(got, strings.TrimPrefix(ev, "data: "))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", f.cassette(), diff)
		}
		if h := c.Interactions[0].Request.Headers.Get(ResponseOnlyHeader); h != "true" {
			t.Errorf("%s: %s = %q, want true", f.cassette(), ResponseOnlyHeader, h)
		}
		n++
	}
	if n < 30 {
		t.Errorf("checked %d chunk fixtures, want at least 30", n)
	}
}

// TestCorpusExchangeCounts checks each recording has as many interactions
// with an LLM endpoint as the corpus PROVENANCE.md counts exchanges, and
// that no imported response is still gzip-compressed.
func TestCorpusExchangeCounts(t *testing.T) {
	counts := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(mustRead(t, filepath.Join(corpusDir, "PROVENANCE.md")))))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 7 {
			continue
		}
		if m := regexp.MustCompile(`host [^;]+; model [^;]+; (\d+) exchanges?;`).FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			counts[strings.Trim(strings.TrimSpace(cells[1]), "`")] = n
		}
	}
	checked := 0
	for _, f := range corpusFiles(t) {
		c, err := Load(filepath.ToSlash(f.cassette()))
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range c.Interactions {
			if i.Response.Headers.Get("Content-Encoding") != "" || strings.HasPrefix(i.Response.Body, "\x1f\x8b") {
				t.Errorf("%s: interaction %d: response still compressed", f.cassette(), k)
			}
		}
		want, ok := counts[f.protocol+"/"+f.name]
		if !ok {
			continue
		}
		checked++
		llm := 0 // the corpus counts exchanges with an LLM endpoint only
		for _, i := range c.Interactions {
			if GuessProtocol(i.Request.URL) != "" {
				llm++
			}
		}
		if llm != want {
			t.Errorf("%s: %d interactions with an LLM endpoint, corpus PROVENANCE.md counts %d exchanges", f.cassette(), llm, want)
		}
	}
	if checked < 100 {
		t.Errorf("checked %d exchange counts, want at least 100", checked)
	}
}

// TestCorpusHasNoSecrets scans every committed cassette for credentials the
// sources held or might hold.
func TestCorpusHasNoSecrets(t *testing.T) {
	bad := regexp.MustCompile(`(?i)\n\s+(authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie|proxy-authorization|x-auth-token|openai-organization|openai-project|anthropic-organization-id|x-amz-security-token):|test-api-key|[?&](key|api_key|api-key|access_token|token|sig|x-amz-credential|x-amz-signature|x-amz-security-token)=` +
		`|` + tokenBoundary + `(` + keyShapes + `)`)
	names, err := filepath.Glob("*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if m := bad.Find(mustRead(t, name)); m != nil {
			t.Errorf("%s holds %q", name, m)
		}
	}
}

func TestGlobAndLoad(t *testing.T) {
	wantCounts := map[string]int{"anthropic": 28, "bedrock": 9, "cohere": 12, "gemini": 27, "mistral": 3, "openai-chat": 78, "openai-responses": 38, "other": 4}
	total := 0
	for p, want := range wantCounts {
		names, err := Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != want {
			t.Errorf("Glob(%q) gave %d cassettes, want %d", p, len(names), want)
		}
		for _, name := range names {
			c, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Interactions) == 0 || c.Matcher == nil {
				t.Errorf("Load(%q): %d interactions, matcher set %v", name, len(c.Interactions), c.Matcher != nil)
			}
			total++
		}
	}
	if total != 199 {
		t.Errorf("loaded %d cassettes, want 199", total)
	}
	for _, p := range []string{"nope", "", "*", "../x"} {
		if _, err := Glob(p); err == nil || !strings.Contains(err.Error(), "known: anthropic, bedrock") {
			t.Errorf("Glob(%q) error = %v, want one listing the known folders", p, err)
		}
	}
	// A path on disk loads too; a missing one is an error naming it.
	if _, err := Load(filepath.Join(".", "anthropic", "..", "anthropic", CassetteName("fantasy__TestAnthropicCommon--claude-sonnet-4--tool.yaml"))); err != nil {
		t.Error(err)
	}
	if _, err := Load("nope/missing.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("---\nversion: 1\ninteractions: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), bad) {
		t.Errorf("Load of a version 1 cassette: %v, want ErrMalformed naming the file", err)
	}
}

// TestCorpusVCRPyBodiesExact checks, reading each source file directly and
// with compress/gzip, that every VCR.py body reaches the cassette whole and
// decompressed.
func TestCorpusVCRPyBodiesExact(t *testing.T) {
	n, gz := 0, 0
	for _, f := range corpusFiles(t) {
		if !strings.HasSuffix(f.name, ".yaml") || strings.HasPrefix(f.name, "fantasy__") {
			continue
		}
		var src struct {
			Interactions []struct {
				Request  struct{ Body string }
				Response struct{ Body struct{ String string } }
			}
		}
		if err := yaml.Unmarshal(mustRead(t, f.source()), &src); err != nil {
			t.Fatalf("%s: %v", f.source(), err)
		}
		c, err := Load(filepath.ToSlash(f.cassette()))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Interactions) != len(src.Interactions) {
			t.Fatalf("%s: %d interactions, source has %d", f.cassette(), len(c.Interactions), len(src.Interactions))
		}
		for k, i := range c.Interactions {
			want := src.Interactions[k].Response.Body.String
			if strings.HasPrefix(want, "\x1f\x8b") {
				zr, err := gzip.NewReader(strings.NewReader(want))
				if err != nil {
					t.Fatal(err)
				}
				plain, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				want = string(plain)
				gz++
			}
			if i.Response.Body != want {
				t.Errorf("%s: interaction %d: response body differs from the source", f.cassette(), k)
			}
			if i.Request.Body != src.Interactions[k].Request.Body {
				t.Errorf("%s: interaction %d: request body differs from the source", f.cassette(), k)
			}
			n++
		}
	}
	if n < 40 || gz < 20 {
		t.Errorf("checked %d VCR.py interactions, %d gzip; want at least 40 and 20", n, gz)
	}
}
