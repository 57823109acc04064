package gemini

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

	"gopkg.in/yaml.v3"
)

// corpusDir holds the recordings of the gemini protocol.
const corpusDir = "../../testdata/corpus/gemini"

// exchange is one recorded request/response pair; Req is nil for
// response-only fixtures.
type exchange struct {
	Req  []byte
	Resp []byte
}

// corpusFiles lists the corpus files, sorted.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("corpus is empty")
	}
	return names
}

// loadExchanges extracts the bodies of one corpus file. It understands the
// formats the gemini folder uses: go-vcr v2 YAML, VCR.py YAML (gzip
// !!binary bodies), httprr traces, vercel/ai .json and .chunks.txt.
func loadExchanges(path string) ([]exchange, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasSuffix(path, ".chunks.txt"):
		var b bytes.Buffer
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			b.WriteString("data: " + line + "\n\n")
		}
		return []exchange{{Resp: b.Bytes()}}, nil
	case strings.HasSuffix(path, ".json"):
		return []exchange{{Resp: data}}, nil
	case strings.HasSuffix(path, ".httprr"):
		return parseHTTPRR(data)
	case strings.HasSuffix(path, ".yaml"):
		return parseCassette(data)
	}
	return nil, fmt.Errorf("unknown corpus format: %s", path)
}

func parseCassette(data []byte) ([]exchange, error) {
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
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var out []exchange
	for _, it := range doc.Interactions {
		var ex exchange
		if s, ok := it.Request.Body.(string); ok && s != "" {
			ex.Req = []byte(s)
		}
		switch b := it.Response.Body.(type) {
		case string: // go-vcr
			ex.Resp = []byte(b)
		case map[string]any: // VCR.py: body.string, maybe gzip !!binary
			s, _ := b["string"].(string)
			ex.Resp = []byte(s)
		}
		if len(ex.Resp) > 2 && ex.Resp[0] == 0x1f && ex.Resp[1] == 0x8b {
			zr, err := gzip.NewReader(bytes.NewReader(ex.Resp))
			if err != nil {
				return nil, err
			}
			ex.Resp, err = io.ReadAll(zr)
			if err != nil {
				return nil, err
			}
		}
		out = append(out, ex)
	}
	return out, nil
}

func parseHTTPRR(data []byte) ([]exchange, error) {
	const header = "httprr trace v1\n"
	if !bytes.HasPrefix(data, []byte(header)) {
		return nil, fmt.Errorf("not an httprr trace")
	}
	rest := data[len(header):]
	var out []exchange
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("httprr: missing length line")
		}
		var reqLen, respLen int
		if _, err := fmt.Sscanf(string(rest[:nl]), "%d %d", &reqLen, &respLen); err != nil {
			return nil, fmt.Errorf("httprr: length line %q: %v", rest[:nl], err)
		}
		rest = rest[nl+1:]
		if len(rest) < reqLen+respLen {
			return nil, fmt.Errorf("httprr: short record")
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rest[:reqLen])))
		if err != nil {
			return nil, err
		}
		reqBody, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rest[reqLen:reqLen+respLen])), req)
		if err != nil {
			return nil, err
		}
		respBody, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		out = append(out, exchange{Req: reqBody, Resp: respBody})
		rest = rest[reqLen+respLen:]
	}
	return out, nil
}

// isStream reports whether a response body is streamed (SSE or a JSON
// array) rather than one JSON object.
func isStream(body []byte) bool {
	t := bytes.TrimSpace(body)
	return len(t) > 0 && t[0] != '{'
}

// corpusBodies returns every response body of the corpus, for fuzz seeds
// and the splitting property, named "<file>#<n>".
func corpusBodies(t testing.TB) (names []string, bodies [][]byte) {
	for _, f := range corpusFiles(t) {
		exs, err := loadExchanges(filepath.Join(corpusDir, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, ex := range exs {
			names = append(names, f+"#"+strconv.Itoa(i))
			bodies = append(bodies, ex.Resp)
		}
	}
	return names, bodies
}
