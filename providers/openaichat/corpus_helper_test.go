package openaichat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// exchange is one recorded HTTP exchange: a request body (nil when the
// recording has none) and a response body.
type exchange struct {
	Request  []byte
	Response []byte
	Stream   bool
}

const corpusDir = "../../testdata/corpus/openai-chat"

// corpusFiles lists the protocol's corpus files.
func corpusFiles(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatalf("no corpus files in %s", dir)
	}
	return out
}

// recordedStream is one recorded streamed response and where it came
// from: the corpus file and the exchange's place in it ("x.yaml #1").
type recordedStream struct {
	name string
	body []byte
}

// corpusStreams returns every recorded stream of the corpus, in file
// order. It fails the test if a file does not load.
func corpusStreams(t testing.TB) []recordedStream {
	t.Helper()
	var out []recordedStream
	for _, path := range corpusFiles(t, corpusDir) {
		exs, err := loadExchanges(path)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		for i, ex := range exs {
			if ex.Stream {
				out = append(out, recordedStream{name: filepath.Base(path) + " #" + strconv.Itoa(i), body: ex.Response})
			}
		}
	}
	return out
}

// loadExchanges extracts the bodies of a corpus file in any of the formats
// the openai-chat corpus uses.
func loadExchanges(path string) ([]exchange, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	switch {
	case strings.HasSuffix(name, ".chunks.txt"):
		var b bytes.Buffer
		for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			b.WriteString("data: " + line + "\n\n")
		}
		return []exchange{{Response: b.Bytes(), Stream: true}}, nil
	case strings.HasSuffix(name, ".sse"):
		return []exchange{{Response: data, Stream: true}}, nil
	case strings.HasSuffix(name, ".json"):
		return []exchange{{Response: data}}, nil
	case strings.HasSuffix(name, ".httprr"):
		return loadHTTPRR(data)
	case strings.HasSuffix(name, ".yaml"):
		return loadYAML(data)
	}
	return nil, fmt.Errorf("unknown corpus format: %s", name)
}

func loadYAML(data []byte) ([]exchange, error) {
	var doc struct {
		Interactions []struct {
			Request struct {
				Body any    `yaml:"body"`
				URL  string `yaml:"url"`
				URI  string `yaml:"uri"`
			} `yaml:"request"`
			Response struct {
				Body    any                 `yaml:"body"`
				Headers map[string][]string `yaml:"headers"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var out []exchange
	for i, it := range doc.Interactions {
		if !isChatURL(it.Request.URL + it.Request.URI) {
			continue
		}
		var ex exchange
		if s, ok := it.Request.Body.(string); ok && s != "" {
			ex.Request = []byte(s)
		}
		var resp string
		switch b := it.Response.Body.(type) {
		case string: // go-vcr v2
			resp = b
		case map[string]any: // VCR.py: body.string, maybe !!binary
			s, _ := b["string"].(string)
			resp = s
		}
		body := []byte(resp)
		for k, vs := range it.Response.Headers {
			if strings.EqualFold(k, "content-encoding") && len(vs) > 0 && vs[0] == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					return nil, fmt.Errorf("interaction %d: gunzip: %w", i, err)
				}
				body, err = io.ReadAll(zr)
				if err != nil {
					return nil, fmt.Errorf("interaction %d: gunzip: %w", i, err)
				}
			}
		}
		ex.Response = body
		ex.Stream = isSSE(body)
		out = append(out, ex)
	}
	return out, nil
}

// loadHTTPRR reads an httprr trace: a header line, then per exchange a
// "<reqlen> <resplen>" line followed by the raw request and response.
func loadHTTPRR(data []byte) ([]exchange, error) {
	const header = "httprr trace v1\n"
	if !bytes.HasPrefix(data, []byte(header)) {
		return nil, fmt.Errorf("httprr: missing header")
	}
	rest := data[len(header):]
	var out []exchange
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("httprr: bad length line")
		}
		f := strings.Fields(string(rest[:nl]))
		if len(f) != 2 {
			return nil, fmt.Errorf("httprr: bad length line %q", rest[:nl])
		}
		rl, err1 := strconv.Atoi(f[0])
		pl, err2 := strconv.Atoi(f[1])
		rest = rest[nl+1:]
		if err1 != nil || err2 != nil || rl+pl > len(rest) {
			return nil, fmt.Errorf("httprr: bad lengths %q", f)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rest[:rl])))
		if err != nil {
			return nil, fmt.Errorf("httprr: request: %w", err)
		}
		reqBody, _ := io.ReadAll(req.Body)
		if !isChatURL(req.URL.String()) {
			rest = rest[rl+pl:]
			continue
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rest[rl:rl+pl])), nil)
		if err != nil {
			return nil, fmt.Errorf("httprr: response: %w", err)
		}
		respBody, _ := io.ReadAll(resp.Body)
		rest = rest[rl+pl:]
		out = append(out, exchange{Request: reqBody, Response: respBody, Stream: isSSE(respBody)})
	}
	return out, nil
}

func isSSE(body []byte) bool {
	t := bytes.TrimSpace(body)
	return bytes.HasPrefix(t, []byte("data:")) || bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte(":"))
}

// isChatURL reports whether an exchange went to a chat completions
// endpoint; recordings also hold calls to tools (a search API).
func isChatURL(u string) bool { return u == "" || strings.Contains(u, "/chat/completions") }
