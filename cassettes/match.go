package cassettes

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolconform/conform/internal/jsonvalue"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Matcher is the go-vcr matcher conform replays with: a request matches a
// recorded one when the method and the URL path are equal and the bodies
// are equal as JSON (key order and whitespace ignored; bodies that are not
// JSON must be equal byte for byte). Headers never take part, so API keys
// and user agents cannot make or break a match; nor do host and query, so a
// cassette replays against any server address. A recorded request marked
// with ResponseOnlyHeader matches on method and path alone, since its body
// was never recorded.
//
// The request body is read and put back, so the request can still be sent.
func Matcher(r *http.Request, i cassette.Request) bool {
	if r.Method != i.Method {
		return false
	}
	u, err := url.Parse(i.URL)
	if err != nil || r.URL == nil || r.URL.Path != u.Path {
		return false
	}
	if i.Headers.Get(ResponseOnlyHeader) == "true" {
		return true
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		body, err = io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return false
		}
	}
	return BodiesEqual(body, []byte(i.Body))
}

// BodiesEqual reports whether two request bodies are the same: equal as
// JSON when both are JSON (jsonvalue.Equal: numbers by value, key order
// ignored), else equal byte for byte. Empty and
// whitespace-only bodies are equal.
func BodiesEqual(a, b []byte) bool {
	ta, tb := bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(ta) == 0 || len(tb) == 0 {
		return len(ta) == len(tb)
	}
	va, okA := jsonvalue.Decode(ta)
	vb, okB := jsonvalue.Decode(tb)
	if okA && okB {
		return jsonvalue.Equal(va, vb)
	}
	return bytes.Equal(a, b)
}

// NewReplayer returns a go-vcr recorder that replays a cassette with
// Matcher and never goes to the network. Like Load, it takes a name Glob
// returns (read from the corpus built into the package) or a path on disk,
// with or without its .yaml suffix. Further options are applied after
// conform's.
//
//	rec, err := cassettes.NewReplayer("anthropic/fantasy__TestAnthropicCommon--claude-sonnet-4--tool.yaml")
//	defer rec.Stop()
//	client := rec.GetDefaultClient()
func NewReplayer(path string, opts ...recorder.Option) (*recorder.Recorder, error) {
	name := strings.TrimSuffix(path, ".yaml")
	base := []recorder.Option{
		recorder.WithMode(recorder.ModeReplayOnly),
		recorder.WithMatcher(Matcher),
		recorder.WithSkipRequestLatency(true),
	}
	if inCorpus(name + ".yaml") {
		base = append(base, recorder.WithFS(corpusFS{}))
	}
	rec, err := recorder.New(name, append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("replay cassette %s: %w", path, err)
	}
	return rec, nil
}

// corpusFS serves the embedded corpus to go-vcr, read-only.
type corpusFS struct{}

func (corpusFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(corpus, name) }

func (corpusFS) WriteFile(name string, _ []byte) error {
	return fmt.Errorf("write %s: the built-in corpus is read-only", name)
}

func (corpusFS) IsFileExists(name string) bool { return inCorpus(name) }

// hopHeaders are not copied by ReplayHandler: the server writing the body
// decides its own framing.
var hopHeaders = []string{"Connection", "Content-Length", "Keep-Alive", "Transfer-Encoding", "Trailer", "Upgrade"}

// ReplayHandler returns an HTTP handler that answers each request with the
// response rt gives for it, usually a replaying recorder: a fake provider
// for a real client. Streamed bodies are written and flushed piece by
// piece as SplitStream cuts them, so the client sees a stream. A request rt
// cannot answer gets a 404 naming the error.
func ReplayHandler(rt http.RoundTripper) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := r.Clone(r.Context())
		out.RequestURI = ""
		if out.URL.Host == "" {
			out.URL.Scheme, out.URL.Host = "http", r.Host
		}
		resp, err := rt.RoundTrip(out)
		if err != nil {
			http.Error(w, "conform replay: "+err.Error(), http.StatusNotFound)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = append([]string(nil), vs...)
		}
		for _, k := range hopHeaders {
			w.Header().Del(k)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, "conform replay: read recorded body: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(resp.StatusCode)
		flusher, _ := w.(http.Flusher)
		for _, piece := range SplitStream(resp.Header.Get("Content-Type"), body) {
			if _, err := w.Write(piece); err != nil {
				return // the client went away
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	})
}
