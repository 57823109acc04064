package adaptertest

import (
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolconform/conform/cassettes"
)

// Exchange is one recorded request/response pair.
type Exchange struct {
	// Index is the interaction's place in its cassette.
	Index int
	// Method and URL are the request's; response-only fixtures have a
	// made-up request (see package cassettes).
	Method, URL string
	// Request is the request body, nil for response-only fixtures.
	Request []byte
	// Response is the response body; Status its HTTP status code and
	// ContentType its Content-Type header.
	Response    []byte
	Status      int
	ContentType string
}

// IsStream reports whether the response is a stream, by its Content-Type:
// SSE, AWS event-stream or NDJSON.
func (e Exchange) IsStream() bool {
	ct := strings.ToLower(e.ContentType)
	for _, t := range []string{"text/event-stream", "application/vnd.amazon.eventstream", "ndjson", "jsonl"} {
		if strings.Contains(ct, t) {
			return true
		}
	}
	return false
}

// Recording is the exchanges of one recorded file.
type Recording struct {
	// Name is the name of the file in testdata/corpus/<protocol> that the
	// cassette was imported from.
	Name string
	// Cassette is the cassette's name for cassettes.Load.
	Cassette  string
	Exchanges []Exchange
}

// sourceExts are the endings of the non-YAML recordings; the importer adds
// ".yaml" to their names (cassettes.CassetteName).
var sourceExts = []string{".chunks.txt", ".json", ".sse", ".httprr"}

// SourceName returns the name of the corpus file a cassette was imported
// from: its base name without the ".yaml" the importer adds to non-YAML
// recordings.
func SourceName(cassette string) string {
	base := path.Base(cassette)
	trimmed := strings.TrimSuffix(base, ".yaml")
	for _, ext := range sourceExts {
		if strings.HasSuffix(trimmed, ext) {
			return trimmed
		}
	}
	return base
}

// loaded holds each protocol's recordings once read. Reading them parses
// every cassette of the protocol, and a fuzz target built for libFuzzer
// (.clusterfuzzlite/build.sh) runs its seeding code, and so this, for
// every input.
var loaded sync.Map // protocol -> []Recording

// Recordings returns every recording of a protocol folder of the imported
// corpus ("anthropic", "openai-responses", ...), sorted by source name. It
// fails the test if there are none or one does not load. The cassettes are
// read once per process; each call gets its own slices, sharing the bodies,
// which callers must not modify.
func Recordings(t testing.TB, protocol string) []Recording {
	t.Helper()
	if v, ok := loaded.Load(protocol); ok {
		return cloneRecordings(v.([]Recording))
	}
	names, err := cassettes.Glob(protocol)
	if err != nil {
		t.Fatalf("recordings of %s: %v", protocol, err)
	}
	var out []Recording
	for _, name := range names {
		c, err := cassettes.Load(name)
		if err != nil {
			t.Fatalf("recordings of %s: %v", protocol, err)
		}
		rec := Recording{Name: SourceName(name), Cassette: name}
		for i, in := range c.Interactions {
			ex := Exchange{
				Index:       i,
				Method:      in.Request.Method,
				URL:         in.Request.URL,
				Response:    []byte(in.Response.Body),
				Status:      in.Response.Code,
				ContentType: in.Response.Headers.Get("Content-Type"),
			}
			if in.Request.Headers.Get("X-Conform-Response-Only") != "true" && in.Request.Body != "" {
				ex.Request = []byte(in.Request.Body)
			}
			rec.Exchanges = append(rec.Exchanges, ex)
		}
		out = append(out, rec)
	}
	sortRecordings(out)
	loaded.Store(protocol, out)
	return cloneRecordings(out)
}

// cloneRecordings copies the recordings and their exchange lists, not the
// bodies.
func cloneRecordings(rs []Recording) []Recording {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Exchanges = slices.Clone(out[i].Exchanges)
	}
	return out
}

// sortRecordings sorts by source name, the order of the corpus folder.
func sortRecordings(rs []Recording) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Name < rs[j-1].Name; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// ResponseBodies returns the non-empty recorded response bodies of a
// protocol, split by isStream into streams and whole bodies.
func ResponseBodies(t testing.TB, protocol string, isStream func([]byte) bool) (streams, bodies [][]byte) {
	t.Helper()
	for _, rec := range Recordings(t, protocol) {
		for _, ex := range rec.Exchanges {
			switch {
			case len(ex.Response) == 0:
			case isStream(ex.Response):
				streams = append(streams, ex.Response)
			default:
				bodies = append(bodies, ex.Response)
			}
		}
	}
	return streams, bodies
}

// RecordedStreams returns the streamed responses (Exchange.IsStream) of a
// protocol's recordings.
func RecordedStreams(t testing.TB, protocol string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, rec := range Recordings(t, protocol) {
		for _, ex := range rec.Exchanges {
			if ex.IsStream() {
				out = append(out, ex.Response)
			}
		}
	}
	return out
}

// RequestBodies returns the recorded request bodies of a protocol (none
// from response-only fixtures).
func RequestBodies(t testing.TB, protocol string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, rec := range Recordings(t, protocol) {
		for _, ex := range rec.Exchanges {
			if len(ex.Request) > 0 {
				out = append(out, ex.Request)
			}
		}
	}
	return out
}

// LargestStream returns the largest recorded stream of a protocol (by
// Exchange.IsStream), for benchmarks. It fails if there is none.
func LargestStream(t testing.TB, protocol string) []byte {
	t.Helper()
	var body []byte
	for _, rec := range Recordings(t, protocol) {
		for _, ex := range rec.Exchanges {
			if ex.IsStream() && len(ex.Response) > len(body) {
				body = ex.Response
			}
		}
	}
	if body == nil {
		t.Fatalf("no %s streams", protocol)
	}
	return body
}

// SeedCorpus adds a protocol's recordings to a fuzz target's seed corpus:
// the streamed responses (Exchange.IsStream) when stream is true, else the
// whole response bodies and the request bodies.
func SeedCorpus(f *testing.F, protocol string, stream bool) {
	f.Helper()
	for _, rec := range Recordings(f, protocol) {
		for _, ex := range rec.Exchanges {
			if ex.IsStream() == stream {
				f.Add(ex.Response)
			}
			if !stream && ex.Request != nil {
				f.Add(ex.Request)
			}
		}
	}
}
