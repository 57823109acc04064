package cassettes

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzTargets are the ways FuzzImport feeds its bytes: through detection
// under each kind of file name, and to each parser directly.
var fuzzTargets = []struct {
	name string
	opts []Option
}{
	{"in.yaml", nil},
	{"in.httprr", nil},
	{"in.chunks.txt", nil},
	{"in.json", nil},
	{"in.sse", nil},
	{"in", nil},
	{"in", []Option{WithFormat(FormatGoVCR)}},
	{"in", []Option{WithFormat(FormatVCRPy)}},
	{"in", []Option{WithFormat(FormatHTTPRR)}},
	{"in", []Option{WithFormat(FormatChunks), WithProtocol("bedrock")}},
	{"in", []Option{WithFormat(FormatChunks), WithProtocol("openai-chat")}},
	{"in", []Option{WithFormat(FormatJSON), WithProtocol("gemini")}},
	{"in", []Option{WithFormat(FormatSSE)}},
}

// FuzzImport feeds arbitrary bytes to every format detector and parser.
// Import must never panic; when it fails the error is an *ImportError
// naming the file; when it succeeds the cassette survives Marshal and Parse
// with the same bodies.
func FuzzImport(f *testing.F) {
	// Seeds: the small recordings of the corpus (every format has some;
	// the large ones only slow the fuzzer down), each fed to its own
	// parser, and known-bad inputs.
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*"))
	for _, p := range files {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 6000 && !strings.HasSuffix(p, ".sse") {
			continue
		}
		for n, t := range fuzzTargets {
			if strings.HasSuffix(p, strings.TrimPrefix(t.name, "in")) && t.name != "in" {
				f.Add(data, uint8(n))
			}
		}
	}
	for _, bad := range []string{
		"",
		httprrMagic,
		httprrMagic + "99999999999999999999 1\n",
		httprrMagic + "-1 5\n",
		httprrMagic + "3 3\nabcdef",
		httprrMagic + "40 20\nGET https://a/ HTTP/1.1\r\nHost: a\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
		httprrMagic + "48 60\nGET https://a/ HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZ\r\nx\r\n0\r\n\r\n",
		"interactions: [",
		"interactions:\n- request: &a\n    uri: *a\n",
		"version: 2\ninteractions:\n- request:\n    url: https://a/\n    body: !!binary AAAA\n  response: {code: 200}\n",
		"interactions:\n- request: {uri: 'https://a/', method: GET, parsed_body: {a: &x [*x]}}\n  response: {status: {code: 200}}\n",
		"interactions:\n- request: {uri: 'https://a/', method: GET}\n  response: {status: {code: 200}, headers: {content-encoding: gzip}, body: {string: !!binary H4sIAAAAAAAA/w==}}\n",
		"{\"a\":\n",
		"{\"messageStart\":{}}\n[1]\n",
		"data: {\"object\":\"chat.completion.chunk\"}\n\n",
		"\xff\xfe\x00",
	} {
		for n := range fuzzTargets {
			f.Add([]byte(bad), uint8(n))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, target uint8) {
		tg := fuzzTargets[int(target)%len(fuzzTargets)]
		res, err := Import(tg.name, data, tg.opts...)
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) || ie.File != tg.name {
				t.Fatalf("error %q is not an *ImportError naming %s", err, tg.name)
			}
			if ie.Offset > int64(len(data)) {
				t.Fatalf("error %q names offset %d past the %d bytes", err, ie.Offset, len(data))
			}
			return
		}
		out, err := Marshal(res.Cassette)
		if err != nil {
			t.Fatalf("Marshal after a successful import: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse of Marshal output: %v\n%s", err, out)
		}
		if len(back.Interactions) != len(res.Cassette.Interactions) {
			t.Fatalf("%d interactions after Marshal and Parse, want %d", len(back.Interactions), len(res.Cassette.Interactions))
		}
		for k, i := range res.Cassette.Interactions {
			if back.Interactions[k].Request.Body != i.Request.Body || back.Interactions[k].Response.Body != i.Response.Body {
				t.Fatalf("interaction %d: bodies changed in Marshal and Parse", k)
			}
		}
	})
}

// FuzzRedactURL checks RedactURL on arbitrary strings: it never panics, it
// is idempotent, and what it returns holds no secret query parameter.
func FuzzRedactURL(f *testing.F) {
	f.Add(plantedURL)
	f.Add(wantURL)
	f.Add("https://a/%zz?key=x&KEY=y")
	f.Add("https://u:p@h/p?api%5Fkey=1#frag")
	f.Add("Bearer%20abc")
	f.Add("?&&=&key")
	f.Fuzz(func(t *testing.T, raw string) {
		once := RedactURL(raw)
		if twice := RedactURL(once); twice != once {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, once, twice)
		}
		u, err := url.Parse(once)
		if err != nil {
			return
		}
		if u.User != nil {
			t.Fatalf("%q keeps user information: %q", raw, once)
		}
		for name := range u.Query() {
			if secretParams[strings.ToLower(name)] {
				t.Fatalf("%q keeps secret parameter %q: %q", raw, name, once)
			}
		}
	})
}
