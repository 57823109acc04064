package cassettes

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
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
	{"in", []Option{WithFormat(FormatHAR)}},
	{"in", []Option{WithFormat(FormatDDAPM)}},
	{"in.har", nil},
}

// maxFuzzImport bounds the inputs FuzzImport imports. Go's fuzzer minimises
// every input that finds new coverage, trying on the order of n² cuts of an
// n-byte input; with recordings of up to 6 KB as seeds its workers spent
// whole runs minimising (44 executions a second in CI). Larger inputs are
// returned from at once.
const maxFuzzImport = 4 << 10

// maxSeedImport bounds a seed of FuzzImport, and maxSeedScalar a string in
// a cassette cut by cutCassette.
const (
	maxSeedImport = 3 << 10
	maxSeedScalar = 160
)

// cutCassette cuts a recorded YAML cassette (go-vcr or VCR.py) to the shape
// the importer reads: its first interaction, and the first that goes to a
// provider's API if that is another (a first request for a token names no
// protocol), every key, tag and header kept, and each long string but URLs
// (bodies, mostly) cut to maxSeedScalar bytes. A !!binary body is cut too,
// and one that is gzip stays gzip: it is decompressed, cut and compressed
// again.
func cutCassette(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("cut cassette: %d documents", len(doc.Content))
	}
	if list := mapValue(doc.Content[0], "interactions"); list != nil && len(list.Content) > 1 {
		keep := list.Content[:1]
		for _, item := range list.Content {
			req := mapValue(item, "request")
			if u := scalar(mapValue(req, "url")) + scalar(mapValue(req, "uri")); GuessProtocol(u) != "" {
				if item != keep[0] {
					keep = append(keep, item)
				}
				break
			}
		}
		list.Content = keep
	}
	if err := cutScalars(&doc); err != nil {
		return nil, err
	}
	return yaml.Marshal(&doc)
}

// cutScalars cuts the long scalars under n, as cutCassette says.
func cutScalars(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && len(n.Value) > maxSeedScalar {
		if n.Tag != "!!binary" {
			v := n.Value[:maxSeedScalar]
			for !utf8.ValidString(v) {
				v = v[:len(v)-1]
			}
			n.Value = v
			return nil
		}
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return fmt.Errorf("cut cassette: line %d: %w", n.Line, err)
		}
		if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
			plain, err := io.ReadAll(io.LimitReader(zr, maxSeedScalar))
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("cut cassette: line %d: gunzip: %w", n.Line, err)
			}
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(plain)
			zw.Close()
			raw = b.Bytes()
		} else {
			raw = raw[:min(len(raw), maxSeedScalar)]
		}
		n.Value = base64.StdEncoding.EncodeToString(raw)
		n.Style = 0
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 1 && (n.Content[i-1].Value == "url" || n.Content[i-1].Value == "uri") {
			continue // the protocol is told by the URL
		}
		if err := cutScalars(c); err != nil {
			return err
		}
	}
	return nil
}

// importSeeds returns the seeds of FuzzImport drawn from the corpus, each
// with the index in fuzzTargets of the parser its file name picks: the
// fixtures (.chunks.txt, .json, .sse) and httprr traces within
// maxSeedImport as recorded, and every YAML cassette cut by cutCassette
// (the first of those that cut to the same bytes).
func importSeeds() (seeds [][]byte, targets []uint8, names []string, err error) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*"))
	if err != nil || len(files) == 0 {
		return nil, nil, nil, fmt.Errorf("no corpus files in %s: %v", corpusDir, err)
	}
	seen := map[string]bool{}
	for _, p := range files {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, nil, err
		}
		if strings.HasSuffix(p, ".yaml") {
			if data, err = cutCassette(data); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", p, err)
			}
		}
		if len(data) > maxSeedImport || seen[string(data)] {
			continue
		}
		seen[string(data)] = true
		for n, tg := range fuzzTargets {
			if tg.name != "in" && strings.HasSuffix(p, strings.TrimPrefix(tg.name, "in")) {
				seeds, targets, names = append(seeds, data), append(targets, uint8(n)), append(names, p)
			}
		}
	}
	return seeds, targets, names, nil
}

// TestImportSeeds checks the corpus seeds of FuzzImport: each is within
// maxSeedImport, every format of the corpus has some, and a seed imports,
// in the format and protocol of the recording it was cut from, exactly
// when the recording does.
func TestImportSeeds(t *testing.T) {
	seeds, targets, names, err := importSeeds()
	if err != nil {
		t.Fatal(err)
	}
	formats := map[Format]int{}
	for i, seed := range seeds {
		if len(seed) > maxSeedImport {
			t.Errorf("%s: seed of %d bytes, limit %d", names[i], len(seed), maxSeedImport)
		}
		tg := fuzzTargets[targets[i]]
		data, err := os.ReadFile(names[i])
		if err != nil {
			t.Fatal(err)
		}
		want, errWant := Import(tg.name, data, tg.opts...)
		got, errGot := Import(tg.name, seed, tg.opts...)
		if (errWant == nil) != (errGot == nil) {
			t.Errorf("%s: seed imports with error %v, recording with %v", names[i], errGot, errWant)
			continue
		}
		if errGot != nil {
			continue
		}
		formats[got.Format]++
		if got.Format != want.Format || got.Protocol != want.Protocol {
			t.Errorf("%s: seed imports as %s %s, recording as %s %s", names[i], got.Format, got.Protocol, want.Format, want.Protocol)
		}
	}
	for _, f := range []Format{FormatGoVCR, FormatVCRPy, FormatHTTPRR, FormatChunks, FormatJSON, FormatSSE} {
		if formats[f] == 0 {
			t.Errorf("no seed imports as %s", f)
		}
	}
	size := 0
	for _, s := range seeds {
		size += len(s)
	}
	t.Logf("%d seeds, %d bytes in all, by format %v", len(seeds), size, formats)
}

// FuzzImport feeds arbitrary bytes to every format detector and parser.
// Import must never panic; when it fails the error is an *ImportError
// naming the file; when it succeeds the cassette survives Marshal and Parse
// with the same bodies.
func FuzzImport(f *testing.F) {
	// Seeds: the recordings of the corpus, small ones whole and YAML
	// cassettes cut to one interaction (importSeeds), each fed to its own
	// parser, and known-bad inputs to every parser.
	// (importSeeds takes no testing.TB: the OSS-Fuzz build replaces
	// *testing.F with a type of its own.)
	seeds, targets, _, err := importSeeds()
	if err != nil {
		f.Fatal(err)
	}
	for i := range seeds {
		f.Add(seeds[i], targets[i])
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
		if len(data) > maxFuzzImport {
			return
		}
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

// fuzzSecrets are the key-shaped values FuzzImportPlantedSecret plants,
// each holding fuzzMarker.
var fuzzSecrets = []string{
	"sk-proj-FUZZPLANTED0123456789abcdef",
	"sk-ant-api03-FUZZPLANTED0123456789ab",
	"sk-FUZZPLANTED0123456789abcdefgh",
	"AKIAFUZZPLANTED12345",
	"ASIAFUZZPLANTED67890",
	"AIzaFUZZPLANTED0123456789abcdefghijk",
	"xai-FUZZPLANTED0123456789abcdefgh",
	"ghp_FUZZPLANTED0123456789abcdefgh",
	"Bearer FUZZPLANTED0123456789abcdefgh",
	"eyJFUZZPLANTED01.eyJFUZZPLANTED02.sigFUZZPLANTED",
}

// fuzzMarker is in every fuzzSecrets value.
const fuzzMarker = "fuzzplanted"

// FuzzImportPlantedSecret plants a key-shaped secret, set off by spaces,
// at any offset of a recording (seeded from the corpus cassettes cut as
// FuzzImport's are), and imports it in any format: when the import
// succeeds, the secret is in neither the cassette written, nor any field
// read back from it, nor the notes.
func FuzzImportPlantedSecret(f *testing.F) {
	seeds, targets, _, err := importSeeds()
	if err != nil {
		f.Fatal(err)
	}
	for i, seed := range seeds {
		for k, at := range []int{len(seed) / 3, len(seed) / 2, bytes.Index(seed, []byte("/v1")) + 3} {
			f.Add(seed, targets[i], uint16(max(at, 0)), uint8(i+k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, target uint8, at uint16, kind uint8) {
		if len(data) > maxFuzzImport {
			return
		}
		tg := fuzzTargets[int(target)%len(fuzzTargets)]
		secret := fuzzSecrets[int(kind)%len(fuzzSecrets)]
		pos := int(at) % (len(data) + 1)
		in := append(append(append([]byte(nil), data[:pos]...), " "+secret+" "...), data[pos:]...)
		res, err := Import(tg.name, in, tg.opts...)
		if err != nil {
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
		texts := map[string]string{"file": string(out), "notes": strings.Join(res.Notes, "\n")}
		for n, i := range back.Interactions {
			var b strings.Builder
			for _, h := range []http.Header{i.Request.Headers, i.Response.Headers, i.Request.Trailer, i.Response.Trailer} {
				for k, vs := range h {
					b.WriteString(k + ": " + strings.Join(vs, ", ") + "\n")
				}
			}
			for k, vs := range i.Request.Form {
				b.WriteString(k + "=" + strings.Join(vs, ",") + "\n")
			}
			texts[fmt.Sprintf("interaction %d", n)] = strings.Join([]string{b.String(), i.Request.URL, i.Request.RequestURI,
				i.Request.Host, i.Request.Method, i.Response.Status, i.Request.Body, i.Response.Body}, "\n")
		}
		for where, text := range texts {
			if strings.Contains(strings.ToLower(text), fuzzMarker) {
				t.Fatalf("%s planted at offset %d (%s) is in the %s:\n%s", secret, pos, tg.name, where, text)
			}
		}
	})
}
