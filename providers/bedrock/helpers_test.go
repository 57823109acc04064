package bedrock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
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

// loadExchanges extracts bodies from the recording formats the bedrock
// corpus uses: go-vcr v2 YAML, httprr, and vercel-ai .json and .chunks.txt
// (one decoded {"<eventType>": {...}} payload per line, re-framed here).
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
					URL  string `yaml:"url"`
				} `yaml:"request"`
				Response struct {
					Body string `yaml:"body"`
					Code int    `yaml:"code"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []exchange
		for _, in := range doc.Interactions {
			out = append(out, exchange{
				Request:  []byte(in.Request.Body),
				Response: []byte(in.Response.Body),
				Stream:   strings.Contains(in.Request.URL, "stream"),
				Status:   in.Response.Code,
			})
		}
		return out
	case strings.HasSuffix(path, ".httprr"):
		return parseHTTPRR(t, path, data)
	case strings.HasSuffix(path, ".chunks.txt"):
		var buf bytes.Buffer
		enc := eventstream.NewEncoder()
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &m); err != nil || len(m) != 1 {
				t.Fatalf("%s line %d: want one {\"<eventType>\": {...}} object: %v", path, i+1, err)
			}
			for et, payload := range m {
				if err := writeFrame(enc, &buf, eventHeaders(et), payload); err != nil {
					t.Fatal(err)
				}
			}
		}
		return []exchange{{Response: buf.Bytes(), Stream: true, Status: 200}}
	case strings.HasSuffix(path, ".json"):
		return []exchange{{Response: data, Status: 200}}
	}
	t.Fatalf("%s: unknown recording format", path)
	return nil
}

func parseHTTPRR(t testing.TB, path string, data []byte) []exchange {
	t.Helper()
	const header = "httprr trace v1\n"
	if !bytes.HasPrefix(data, []byte(header)) {
		t.Fatalf("%s: not an httprr trace", path)
	}
	rest := data[len(header):]
	var out []exchange
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			t.Fatalf("%s: bad length line", path)
		}
		var reqLen, respLen int
		if _, err := fmt.Sscanf(string(rest[:nl]), "%d %d", &reqLen, &respLen); err != nil {
			t.Fatalf("%s: bad length line %q: %v", path, rest[:nl], err)
		}
		rest = rest[nl+1:]
		rawReq, rawResp := rest[:reqLen], rest[reqLen:reqLen+respLen]
		rest = rest[reqLen+respLen:]
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rawReq)))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		reqBody, _ := io.ReadAll(req.Body)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rawResp)), req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		respBody, _ := io.ReadAll(resp.Body)
		out = append(out, exchange{Request: reqBody, Response: respBody, Stream: strings.Contains(req.URL.Path, "stream"), Status: resp.StatusCode})
	}
	return out
}

// drain reads a stream to its end.
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
	Text           string              `json:"text,omitempty"`
	Thinking       string              `json:"thinking,omitempty"`
	Calls          []core.Call         `json:"calls"`
	Finish         string              `json:"finish_reason,omitempty"`
	ProviderFinish string              `json:"provider_finish_reason,omitempty"`
	Usage          *core.Usage         `json:"usage,omitempty"`
	Error          *core.ProviderError `json:"error,omitempty"`
}

func summarize(r *core.Response) summary {
	s := summary{Text: r.Text(), Calls: r.Calls(), Finish: string(r.Finish), ProviderFinish: r.ProviderFinish, Usage: r.Usage, Error: r.Error}
	for _, p := range r.Message.Parts {
		if p.Kind == core.PartThinking {
			s.Thinking += p.Text
		}
	}
	if s.Calls == nil {
		s.Calls = []core.Call{}
	}
	return s
}

// assemble is a deliberately small test-side accumulator: the adapter
// always sends an index, so calls are keyed by it, started by a start
// chunk, finished by an end chunk. It stands in for core.Collect until the
// core Buffer lands, and it fails loudly on anything it does not expect.
func assemble(evs []core.Event) (summary, error) {
	s := summary{Calls: []core.Call{}}
	type open struct {
		pos  int
		args strings.Builder
		done bool
	}
	opens := map[int]*open{}
	for i, e := range evs {
		switch e.Kind {
		case core.EventText:
			s.Text += e.Text
		case core.EventThinking:
			s.Thinking += e.Text
		case core.EventCallStart:
			c := e.Chunk
			opens[c.Index] = &open{pos: len(s.Calls)}
			s.Calls = append(s.Calls, core.Call{ID: c.ID, Name: c.Name})
			if c.Args != nil {
				opens[c.Index].args.WriteString(*c.Args)
			}
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

// compact re-encodes JSON without insignificant whitespace, for comparing
// arguments as JSON.
func compact(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("arguments %q are not JSON: %v", raw, err)
	}
	return buf.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }
