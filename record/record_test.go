package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/record/recordtest"
	"github.com/toolconform/conform/scenarios"
)

// key is planted everywhere; it is also the shape the token pattern of
// cassettes does not know, so only the literal scrub can catch it in
// bodies.
const key = "conformPLANTEDsecret-0123456789"

func simpleRequest() *core.Request {
	return &core.Request{
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Weather in Oslo?")}}},
		Tools:     []core.ToolSpec{{Name: "get_weather", InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
		MaxTokens: 100,
	}
}

// liveStandIn is a loopback server standing in for a live API: it checks
// the request's path and key, echoes the key back in every header form and
// in the body, and streams its answer in pieces with pauses.
func liveStandIn(t *testing.T, protocol string, stream bool) (*httptest.Server, *[]string) {
	t.Helper()
	ep, err := providers.HTTP(protocol)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.RequestURI())
		body, _ := io.ReadAll(r.Body)
		want := ep.KeyPrefix + key
		if got := r.Header.Get(ep.KeyHeader); got != want {
			http.Error(w, fmt.Sprintf("key header %s = %q", ep.KeyHeader, got), 401)
			return
		}
		wantPath := strings.ReplaceAll(ep.Path, "{model}", ep.DefaultModel)
		if stream && ep.StreamPath != "" {
			wantPath = strings.ReplaceAll(ep.StreamPath, "{model}", ep.DefaultModel)
		}
		if !strings.HasSuffix(r.URL.Path, wantPath) {
			http.Error(w, "path "+r.URL.Path+" want "+wantPath, 404)
			return
		}
		if len(body) == 0 {
			http.Error(w, "empty body", 400)
			return
		}
		for _, h := range []string{"Authorization", "x-api-key", "api-key", "x-goog-api-key", "Set-Cookie", "X-Echo-Key"} {
			w.Header().Set(h, "Bearer "+key)
		}
		w.Header().Set("Content-Type", ep.StreamContentType)
		fl := w.(http.Flusher)
		for i := 0; i < 4; i++ {
			fmt.Fprintf(w, "data: {\"piece\":%d,\"echo\":%q}\n\n", i, key)
			fl.Flush()
			time.Sleep(5 * time.Millisecond)
		}
	}))
	t.Cleanup(ts.Close)
	return ts, &seen
}

// TestRecordRedactsEverything records from a stand-in that echoes the key
// in every header form and in the body, with the key also planted in
// every request header form and the key= query: the saved cassette must
// not hold it anywhere, raw or escaped. For Bedrock the stand-in checks
// the SigV4 signature and echoes the access key id, the secret, the
// session token and the Authorization header with the signature; none of
// them, nor the signature, may be in the file or, since an event-stream
// body is written as base64, in the bodies read back from it.
func TestRecordRedactsEverything(t *testing.T) {
	converse, frames := corpusBedrock(t)
	for _, protocol := range []string{"openai-chat", "anthropic", "gemini", "cohere", "mistral", "openai-responses", "ollama", "bedrock"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", protocol, stream), func(t *testing.T) {
				var baseURL string
				var seenNow func() []string
				var aws *AWSCredentials
				forms := []string{key, url.QueryEscape(key), "PLANTED"}
				var bed *recordtest.Bedrock
				if protocol == "bedrock" {
					creds := plantedAWS
					aws = &creds
					bed = recordtest.NewBedrock(t, recordtest.BedrockConfig{Credentials: creds.forStandIn(), Converse: converse, Frames: frames, Pause: 5 * time.Millisecond, Echo: true})
					baseURL, seenNow = bed.URL, bed.Requests
					for _, s := range creds.secrets() {
						forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s))
					}
				} else {
					ts, seen := liveStandIn(t, protocol, stream)
					baseURL, seenNow = ts.URL, func() []string { return *seen }
				}
				planted := http.Header{}
				for _, h := range []string{"api-key", "x-goog-api-key", "Proxy-Authorization", "Cookie"} {
					planted.Set(h, key)
				}
				if protocol != "anthropic" {
					planted.Set("x-api-key", key)
				}
				if aws != nil {
					planted.Set("X-Planted-Aws", aws.AccessKeyID+" "+aws.SecretAccessKey+" "+aws.SessionToken)
				}
				c, err := Record(context.Background(), Options{
					Protocol: protocol, Request: simpleRequest(), Stream: stream,
					BaseURL: baseURL + "/base?key=" + url.QueryEscape(key) + "&api-version=2024",
					Key:     key, Header: planted, AWS: aws,
				})
				if err != nil {
					t.Fatalf("Record: %v", err)
				}
				if seen := seenNow(); len(seen) != 1 || !strings.Contains(seen[0], "key="+url.QueryEscape(key)) || !strings.Contains(seen[0], "api-version=2024") {
					t.Errorf("the stand-in saw %q; want one request carrying the base URL's query", seen)
				}
				if bed != nil {
					sigs := bed.Signatures()
					if len(sigs) != 1 || len(sigs[0]) != 64 {
						t.Fatalf("the stand-in checked signatures %q; want one", sigs)
					}
					forms = append(forms, sigs[0])
				}
				path := filepath.Join(t.TempDir(), "out.yaml")
				if err := cassettes.Save(c, path, false); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				back, err := cassettes.Load(path)
				if err != nil {
					t.Fatalf("load the cassette back: %v", err)
				}
				i := back.Interactions[0]
				var headers strings.Builder
				for _, h := range []http.Header{i.Request.Headers, i.Response.Headers} {
					h.Write(&headers)
				}
				for where, text := range map[string]string{"file": string(data), "request body": i.Request.Body, "response body": i.Response.Body, "headers": headers.String(), "URL": i.Request.URL} {
					for _, form := range forms {
						if strings.Contains(text, form) {
							t.Errorf("the cassette's %s holds a secret as %q:\n%s", where, form, text)
						}
					}
				}
				resp := i.Response
				wantBody := `"piece":3`
				if protocol == "bedrock" {
					wantBody = "get-weather"
				}
				if !strings.Contains(resp.Body, wantBody) || resp.Code != 200 {
					t.Errorf("recorded response %d %q", resp.Code, resp.Body)
				}
				if !strings.Contains(i.Request.URL, "api-version=2024") {
					t.Errorf("recorded URL %q lost the harmless query", i.Request.URL)
				}
				if protocol == "bedrock" && !stream {
					// A Converse answer is one write.
					return
				}
				checkChunkTimes(t, resp.Headers.Get(ChunkTimesHeader), len(resp.Body))
			})
		}
	}
}

// checkChunkTimes checks the chunk-times header: pieces in arrival order,
// offsets and times increasing, the last offset the body's length, and more
// than one piece for a body sent in four flushed writes with pauses.
func checkChunkTimes(t *testing.T, h string, bodyLen int) {
	t.Helper()
	if h == "" {
		t.Fatalf("no %s header", ChunkTimesHeader)
	}
	lastOff, lastMS := 0, -1.0
	pairs := strings.Split(h, ",")
	for _, p := range pairs {
		o, m, ok := strings.Cut(p, "@")
		off, err1 := strconv.Atoi(o)
		ms, err2 := strconv.ParseFloat(m, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("chunk time %q is not offset@ms", p)
		}
		if off <= lastOff || ms < lastMS {
			t.Fatalf("chunk times not increasing: %s", h)
		}
		lastOff, lastMS = off, ms
	}
	if lastOff != bodyLen {
		t.Errorf("last chunk ends at %d, body has %d bytes", lastOff, bodyLen)
	}
	if len(pairs) < 2 {
		t.Errorf("one chunk for a body written in four pauses: %s", h)
	}
}

func TestRecordErrors(t *testing.T) {
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"invalid key `+key+`"}`, 401)
	}))
	defer refuse.Close()
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 2048)))
	}))
	defer big.Close()
	tests := []struct {
		desc    string
		opts    Options
		wantErr error
		wantSub string
	}{
		{"bedrock without credentials", Options{Protocol: "bedrock", Request: simpleRequest()}, ErrNoCredentials, "Options.AWS is nil"},
		{"unknown protocol", Options{Protocol: "nope", Request: simpleRequest()}, nil, `unknown protocol "nope"`},
		{"no request", Options{Protocol: "openai-chat"}, ErrNoRequest, ""},
		{"refused", Options{Protocol: "openai-chat", Request: simpleRequest(), BaseURL: refuse.URL, Key: key}, ErrStatus, "401 Unauthorized"},
		{"too large", Options{Protocol: "openai-chat", Request: simpleRequest(), BaseURL: big.URL, Key: key, MaxBody: 1024}, ErrTooLarge, "more than 1024 bytes"},
		{"unreachable", Options{Protocol: "openai-chat", Request: simpleRequest(), BaseURL: "http://127.0.0.1:1/?key=" + key, Key: key}, nil, "connect"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := Record(context.Background(), tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantSub) {
				t.Errorf("error %q does not say %q", err, tt.wantSub)
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error %q shows the key", err)
			}
		})
	}
}

func TestKeyFromEnv(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "o", "GOOGLE_API_KEY": "g", "CO_API_KEY": " ", "COHERE_API_KEY": "c"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		protocol, key, variable string
		wantErr                 error
	}{
		{"openai-chat", "o", "OPENAI_API_KEY", nil},
		{"openai-responses", "o", "OPENAI_API_KEY", nil},
		{"gemini", "g", "GOOGLE_API_KEY", nil},
		{"cohere", "c", "COHERE_API_KEY", nil},
		{"anthropic", "", "", ErrNoKey},
		{"mistral", "", "", ErrNoKey},
		{"ollama", "", "", nil},
		{"bedrock", "", "", ErrNotKeyed},
	}
	for _, tt := range tests {
		key, variable, err := KeyFromEnv(tt.protocol, getenv)
		if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("KeyFromEnv(%s) error %v, want %v", tt.protocol, err, tt.wantErr)
		}
		if key != tt.key || variable != tt.variable {
			t.Errorf("KeyFromEnv(%s) = %q, %q; want %q, %q", tt.protocol, key, variable, tt.key, tt.variable)
		}
	}
	env["GEMINI_API_KEY"] = "gem"
	if key, v, _ := KeyFromEnv("gemini", getenv); key != "gem" || v != "GEMINI_API_KEY" {
		t.Errorf("GEMINI_API_KEY does not come first: %q from %s", key, v)
	}
}

func TestRequestFor(t *testing.T) {
	all, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*scenarios.Scenario{}
	for _, sc := range all {
		for _, a := range providers.All() {
			if sc.Applies(a) {
				byName[sc.NameFor(a.Name())] = sc
			}
		}
	}
	get := func(name string) *scenarios.Scenario {
		sc := byName[name]
		if sc == nil {
			t.Fatalf("no scenario %s", name)
		}
		return sc
	}
	// request.json
	r, err := RequestFor(get("anthropic/history/G05-results-in-call-order"), "anthropic")
	if err != nil || len(r.Messages) != 3 {
		t.Errorf("request.json: %v, %+v", err, r)
	}
	// The recording's own request.
	r, err = RequestFor(get("anthropic/recorded/fantasy__TestAnthropicCommon--claude-sonnet-4--tool-0"), "anthropic")
	if err != nil || len(r.Tools) == 0 || r.Model == "" {
		t.Errorf("recorded request: %v, %+v", err, r)
	}
	// Tools from the expected calls.
	r, err = RequestFor(get("openai-chat/streaming/A05-round-robin-interleaving"), "openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
	}
	want := map[string]bool{}
	for _, c := range get("openai-chat/streaming/A05-round-robin-interleaving").Want.Calls {
		want[c["name"].(string)] = true
	}
	if len(names) != len(want) {
		t.Errorf("tools %v; want one per distinct call name %v", names, want)
	}
	// Nothing to build from.
	_, err = RequestFor(&scenarios.Scenario{Name: "x/y/z"}, "openai-chat")
	if !errors.Is(err, ErrNoRequest) {
		t.Errorf("empty scenario: %v, want ErrNoRequest", err)
	}
}

func TestRedactShortKey(t *testing.T) {
	// A key shorter than four bytes would scrub ordinary text; it is left
	// to the header and query redaction.
	if got := scrub("abc abc", "abc"); got != "abc abc" {
		t.Errorf("scrub with a 3-byte key = %q", got)
	}
	if diff := cmp.Diff("x REDACTED y REDACTED", scrub("x k/e+y1 y k%2Fe%2By1", "k/e+y1")); diff != "" {
		t.Errorf("scrub raw and escaped (-want +got):\n%s", diff)
	}
}
