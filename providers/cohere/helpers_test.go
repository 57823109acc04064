package cohere

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"gopkg.in/yaml.v3"
)

// exchange is one recorded request/response pair; Request is nil for
// response-only fixtures.
type exchange struct {
	Request  []byte
	Response []byte
	Stream   bool
	Status   int
}

const corpusDir = "../../testdata/corpus/cohere"

func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no corpus files in %s", corpusDir)
	}
	return out
}

// loadExchanges extracts bodies from the recording formats the cohere
// corpus uses: VCR.py YAML (gzip bodies as !!binary) and vercel-ai .json and
// .chunks.txt (one SSE data payload per line, wrapped here as
// "data: <line>\n\n").
func loadExchanges(t testing.TB, path string) []exchange {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case strings.HasSuffix(path, ".yaml"):
		var doc struct {
			Interactions []struct {
				Request struct {
					Body string `yaml:"body"`
				} `yaml:"request"`
				Response struct {
					Body struct {
						String string `yaml:"string"`
					} `yaml:"body"`
					Headers map[string][]string `yaml:"headers"`
					Status  struct {
						Code int `yaml:"code"`
					} `yaml:"status"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []exchange
		for i, in := range doc.Interactions {
			body := []byte(in.Response.Body.String)
			if enc := in.Response.Headers["content-encoding"]; len(enc) > 0 && enc[0] == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("%s interaction %d: %v", path, i, err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("%s interaction %d: %v", path, i, err)
				}
			}
			var req struct {
				Stream bool `json:"stream"`
			}
			if err := json.Unmarshal([]byte(in.Request.Body), &req); err != nil {
				t.Fatalf("%s interaction %d: request body: %v", path, i, err)
			}
			out = append(out, exchange{Request: []byte(in.Request.Body), Response: body, Stream: req.Stream, Status: in.Response.Status.Code})
		}
		return out
	case strings.HasSuffix(path, ".chunks.txt"):
		var buf bytes.Buffer
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			fmt.Fprintf(&buf, "data: %s\n\n", line)
		}
		return []exchange{{Response: buf.Bytes(), Stream: true, Status: 200}}
	case strings.HasSuffix(path, ".json"):
		return []exchange{{Response: data, Status: 200}}
	}
	t.Fatalf("%s: unknown recording format", path)
	return nil
}

func drain(s core.EventStream) ([]core.Event, error) {
	var evs []core.Event
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, e)
		if len(evs) > 1_000_000 {
			return evs, errors.New("runaway stream")
		}
	}
}

// summary is the part of a decoded response the golden files pin down.
type summary struct {
	ID             string              `json:"id,omitempty"`
	Text           string              `json:"text,omitempty"`
	Thinking       string              `json:"thinking,omitempty"`
	Plan           string              `json:"plan,omitempty"`
	Calls          []core.Call         `json:"calls"`
	Finish         string              `json:"finish_reason,omitempty"`
	ProviderFinish string              `json:"provider_finish_reason,omitempty"`
	Usage          *core.Usage         `json:"usage,omitempty"`
	Error          *core.ProviderError `json:"error,omitempty"`
}

func summarize(r *core.Response) summary {
	s := summary{ID: r.ID, Text: r.Text(), Calls: r.Calls(), Finish: string(r.Finish), ProviderFinish: r.ProviderFinish, Usage: r.Usage, Error: r.Error}
	for _, p := range r.Message.Parts {
		switch p.Kind {
		case core.PartThinking:
			s.Thinking += p.Text
		case core.PartPlan:
			s.Plan += p.Text
		}
	}
	if s.Calls == nil {
		s.Calls = []core.Call{}
	}
	return s
}

// assemble is a small test-side accumulator keyed by index (Cohere always
// sends one); it fails on anything it does not expect.
func assemble(evs []core.Event) (summary, error) {
	s := summary{Calls: []core.Call{}}
	type open struct {
		pos  int
		args strings.Builder
		done bool
	}
	opens := map[int]*open{}
	for i, e := range evs {
		if e.ID != "" {
			s.ID = e.ID
		}
		switch e.Kind {
		case core.EventText:
			s.Text += e.Text
		case core.EventThinking:
			s.Thinking += e.Text
		case core.EventPlan:
			s.Plan += e.Text
		case core.EventCallStart:
			c := e.Chunk
			o := &open{pos: len(s.Calls)}
			opens[c.Index] = o
			s.Calls = append(s.Calls, core.Call{ID: c.ID, Name: c.Name})
			o.args.WriteString(c.ArgsDelta)
		case core.EventCallDelta, core.EventCallEnd:
			o, ok := opens[e.Chunk.Index]
			if !ok || o.done {
				return s, fmt.Errorf("event %d: %s for index %d with no open call", i, e.Kind, e.Chunk.Index)
			}
			o.args.WriteString(e.Chunk.ArgsDelta)
			if e.Chunk.Args != nil {
				o.args.Reset()
				o.args.WriteString(*e.Chunk.Args)
			}
			if e.Kind == core.EventCallEnd {
				o.done = true
				s.Calls[o.pos].Arguments = json.RawMessage(o.args.String())
			}
		case core.EventUsage:
			s.Usage = e.Usage
		case core.EventFinish:
			s.Finish, s.ProviderFinish = string(e.Finish), e.ProviderFinish
		case core.EventError:
			s.Error = e.Error
		}
	}
	for idx, o := range opens {
		if !o.done {
			return s, fmt.Errorf("call at index %d never ended", idx)
		}
	}
	return s, nil
}

func compact(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("arguments %q are not JSON: %v", raw, err)
	}
	return buf.String()
}
