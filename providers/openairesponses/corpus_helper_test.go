package openairesponses

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"gopkg.in/yaml.v3"
)

// exchange is one request/response pair from a corpus file. Req is nil for
// response-only fixtures.
type exchange struct {
	Req, Resp []byte
}

// corpusDir is this protocol's recorded traffic.
const corpusDir = "../../testdata/corpus/openai-responses"

// corpusFiles lists the corpus files, sorted.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("empty corpus")
	}
	return names
}

// loadExchanges extracts the bodies of one corpus file: go-vcr v2 and VCR.py
// YAML (gzip bodies stored as !!binary), .json response bodies, .sse raw
// streams and .chunks.txt (one SSE data payload per line).
func loadExchanges(t testing.TB, name string) []exchange {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case strings.HasSuffix(name, ".chunks.txt"):
		var b bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			b.WriteString("data: ")
			b.Write(sc.Bytes())
			b.WriteString("\n\n")
		}
		return []exchange{{Resp: b.Bytes()}}
	case strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".sse"):
		return []exchange{{Resp: raw}}
	case strings.HasSuffix(name, ".yaml"):
		var doc struct {
			Interactions []struct {
				Request struct {
					Body any `yaml:"body"`
				} `yaml:"request"`
				Response struct {
					Body any `yaml:"body"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out []exchange
		for _, in := range doc.Interactions {
			out = append(out, exchange{Req: yamlBody(t, in.Request.Body), Resp: yamlBody(t, in.Response.Body)})
		}
		return out
	}
	t.Fatalf("%s: unknown corpus format", name)
	return nil
}

func yamlBody(t testing.TB, v any) []byte {
	var b []byte
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case map[string]any:
		return yamlBody(t, x["string"])
	default:
		t.Fatalf("unexpected body type %T", v)
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		b, err = io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// isStream reports whether a response body is an SSE stream.
func isStream(body []byte) bool {
	b := bytes.TrimSpace(body)
	return bytes.HasPrefix(b, []byte("event:")) || bytes.HasPrefix(b, []byte("data:"))
}

// callSum is a call as a test sees it.
type callSum struct {
	ID     string `json:"id"`
	ItemID string `json:"item_id,omitempty"`
	Name   string `json:"name"`
	Args   string `json:"args"`
}

// summary is what a response says, the same for streams and bodies.
type summary struct {
	ID             string               `json:"id,omitempty"`
	Model          string               `json:"model,omitempty"`
	Text           string               `json:"text,omitempty"`
	Thinking       string               `json:"thinking,omitempty"`
	Signatures     []string             `json:"signatures,omitempty"`
	Calls          []callSum            `json:"calls,omitempty"`
	Incomplete     []callSum            `json:"incomplete,omitempty"`
	Finish         core.FinishReason    `json:"finish,omitempty"`
	ProviderFinish string               `json:"provider_finish,omitempty"`
	Usage          *core.Usage          `json:"usage,omitempty"`
	Errors         []core.ProviderError `json:"errors,omitempty"`
	DecodeError    string               `json:"decode_error,omitempty"`
}

// summarizeResponse summarises a decoded body.
func summarizeResponse(r *core.Response) summary {
	s := summary{ID: r.ID, Model: r.Model, Finish: r.Finish, ProviderFinish: r.ProviderFinish, Usage: r.Usage}
	for _, p := range r.Message.Parts {
		switch p.Kind {
		case core.PartText:
			s.Text += p.Text
		case core.PartThinking:
			s.Thinking += p.Text
			if p.Signature != "" {
				s.Signatures = append(s.Signatures, p.Signature)
			}
		case core.PartToolCall:
			s.Calls = append(s.Calls, callSum{ID: p.Call.ID, ItemID: p.Call.ItemID, Name: p.Call.Name, Args: string(p.Call.Arguments)})
		}
	}
	for _, c := range r.Incomplete {
		s.Incomplete = append(s.Incomplete, callSum{ID: c.ID, ItemID: c.ItemID, Name: c.Name, Args: c.Original})
	}
	if r.Error != nil {
		s.Errors = append(s.Errors, *r.Error)
	}
	return s
}

// summarizeEvents assembles events the simple way: a call is found by id,
// else item id, else index. It stands in for core.Collect in these tests.
func summarizeEvents(events []core.Event) summary {
	var s summary
	type acc struct {
		sum  callSum
		idx  int
		done bool
	}
	var calls []*acc
	find := func(c *core.Chunk) *acc {
		for i := len(calls) - 1; i >= 0; i-- {
			a := calls[i]
			switch {
			case c.ID != "":
				if a.sum.ID == c.ID {
					return a
				}
			case c.ItemID != "":
				if a.sum.ItemID == c.ItemID {
					return a
				}
			case c.HasIndex:
				if a.idx == c.Index {
					return a
				}
			}
		}
		return nil
	}
	for _, e := range events {
		if e.ID != "" {
			s.ID = e.ID
		}
		if e.Model != "" {
			s.Model = e.Model
		}
		switch e.Kind {
		case core.EventText:
			s.Text += e.Text
		case core.EventThinking:
			s.Thinking += e.Text
			if e.Signature != "" {
				s.Signatures = append(s.Signatures, e.Signature)
			}
		case core.EventCallStart:
			a := &acc{sum: callSum{ID: e.Chunk.ID, ItemID: e.Chunk.ItemID, Name: e.Chunk.Name, Args: e.Chunk.ArgsDelta}, idx: e.Chunk.Index}
			calls = append(calls, a)
		case core.EventCallDelta, core.EventCallEnd:
			a := find(e.Chunk)
			if a == nil {
				s.DecodeError = "chunk for unknown call"
				continue
			}
			a.sum.Args += e.Chunk.ArgsDelta
			if e.Chunk.Args != nil {
				a.sum.Args = *e.Chunk.Args
			}
			if e.Kind == core.EventCallEnd {
				a.done = true
			}
		case core.EventUsage:
			s.Usage = e.Usage
		case core.EventFinish:
			s.Finish, s.ProviderFinish = e.Finish, e.ProviderFinish
		case core.EventError:
			s.Errors = append(s.Errors, *e.Error)
		}
	}
	for _, a := range calls {
		if a.done && json.Valid([]byte(a.sum.Args)) {
			s.Calls = append(s.Calls, a.sum)
		} else {
			s.Incomplete = append(s.Incomplete, a.sum)
		}
	}
	return s
}

// drain reads a stream to its end.
func drain(st core.EventStream) ([]core.Event, error) {
	var out []core.Event
	for {
		e, err := st.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
		if len(out) > 1<<20 {
			panic("runaway stream")
		}
	}
}
