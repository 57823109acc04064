package cassettes

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"pgregory.net/rapid"
)

func TestBodiesEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, "{\n  \"b\": [1, 2],\n  \"a\": 1\n}", true},
		{`{"a":1}`, `{"a":1.0}`, true}, // numbers compare by value
		{`{"a":1e400}`, `{"a":10e399}`, true},
		{`{"a":12345678901234567890}`, `{"a":12345678901234567891}`, false},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{``, "  \n", true},
		{``, `{}`, false},
		{`not json`, `not json`, true},
		{`not json`, `not  json`, false},
		{`{"a":1} trailing`, `{"a":1} trailing`, true},
		{`{"a":1} trailing`, `{"a":1}   trailing`, false},
	}
	for _, tt := range tests {
		if got := BodiesEqual([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("BodiesEqual(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// jsonGen generates JSON-able values nested up to depth.
func jsonGen(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kind := rapid.IntRange(0, 5).Draw(t, "kind")
		if depth <= 0 {
			kind %= 4
		}
		switch kind {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return rapid.Int64().Draw(t, "int")
		case 3:
			return rapid.String().Draw(t, "string")
		case 4:
			return rapid.SliceOfN(jsonGen(depth-1), 0, 4).Draw(t, "array")
		default:
			return rapid.MapOfN(rapid.StringN(0, 8, -1), jsonGen(depth-1), 0, 5).Draw(t, "object")
		}
	})
}

// writeShuffled writes v as JSON with object keys in the order perm picks
// and whitespace sp between tokens.
func writeShuffled(t *rapid.T, b *strings.Builder, v any, sp string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		keys = rapid.Permutation(keys).Draw(t, "order")
		b.WriteString("{" + sp)
		for n, k := range keys {
			if n > 0 {
				b.WriteString("," + sp)
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteString(sp + ":" + sp)
			writeShuffled(t, b, x[k], sp)
		}
		b.WriteString(sp + "}")
	case []any:
		b.WriteString("[" + sp)
		for n, e := range x {
			if n > 0 {
				b.WriteString("," + sp)
			}
			writeShuffled(t, b, e, sp)
		}
		b.WriteString(sp + "]")
	default:
		data, _ := json.Marshal(x)
		b.Write(data)
	}
}

// TestBodiesEqualIgnoresKeyOrderAndSpace: any two renderings of one value,
// keys reordered and whitespace changed, are equal; a changed value is not.
func TestBodiesEqualIgnoresKeyOrderAndSpace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.MapOfN(rapid.StringN(0, 8, -1), jsonGen(3), 1, 6).Draw(t, "value")
		var a, b strings.Builder
		writeShuffled(t, &a, v, "")
		writeShuffled(t, &b, v, rapid.SampledFrom([]string{"", " ", "\n  ", "\t"}).Draw(t, "space"))
		if !BodiesEqual([]byte(a.String()), []byte(b.String())) {
			t.Fatalf("not equal:\n%s\n%s", a.String(), b.String())
		}
		// Adding a key the value lacks breaks equality.
		extra := "extra-" + rapid.StringN(1, 4, -1).Draw(t, "extra")
		if _, ok := v[extra]; ok {
			return
		}
		v[extra] = 1
		var c strings.Builder
		writeShuffled(t, &c, v, "")
		if BodiesEqual([]byte(a.String()), []byte(c.String())) {
			t.Fatalf("equal after adding %q:\n%s\n%s", extra, a.String(), c.String())
		}
	})
}

func TestMatcher(t *testing.T) {
	rec := cassette.Request{
		Method:  http.MethodPost,
		URL:     "https://api.anthropic.com/v1/messages?beta=true",
		Body:    `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		Headers: http.Header{"X-Api-Key": {"REDACTED"}, "User-Agent": {"sdk/1"}},
	}
	respOnly := cassette.Request{
		Method: http.MethodPost, URL: "https://api.anthropic.com/v1/messages",
		Headers: http.Header{ResponseOnlyHeader: {"true"}},
	}
	tests := []struct {
		name, method, url, body string
		against                 cassette.Request
		want                    bool
	}{
		{"reordered JSON, other host and query", "POST", "http://127.0.0.1:1/v1/messages", "{ \"messages\": [{\"content\":\"hi\",\"role\":\"user\"}], \"model\": \"m\" }", rec, true},
		{"other method", "PUT", "http://h/v1/messages", rec.Body, rec, false},
		{"other path", "POST", "http://h/v1/messages/x", rec.Body, rec, false},
		{"other body", "POST", "http://h/v1/messages", `{"model":"n","messages":[{"role":"user","content":"hi"}]}`, rec, false},
		{"no body", "POST", "http://h/v1/messages", "", rec, false},
		{"response-only ignores body", "POST", "http://h/v1/messages", `{"anything":1}`, respOnly, true},
		{"response-only still needs path", "POST", "http://h/v1/complete", `{}`, respOnly, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.url, strings.NewReader(tt.body))
			r.Header.Set("X-Api-Key", "sk-live-other")
			r.Header.Set("User-Agent", "other/2")
			if got := Matcher(r, tt.against); got != tt.want {
				t.Errorf("Matcher = %v, want %v", got, tt.want)
			}
			// The body is still there to send.
			body, _ := io.ReadAll(r.Body)
			if string(body) != tt.body {
				t.Errorf("body after matching = %q, want %q", body, tt.body)
			}
		})
	}
}

// TestReplayOverHTTP serves a corpus cassette through go-vcr's recorder in
// replay mode behind an httptest server, and sends it requests from a real
// http.Client: one with other headers and reordered JSON, which must get
// the recorded response, and one with another body, which must not.
func TestReplayOverHTTP(t *testing.T) {
	const name = "anthropic/fantasy__TestAnthropicCommon--claude-sonnet-4--tool.yaml"
	c, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	// The recorder reads from disk; copy the cassette out of the embedded
	// corpus.
	dir := t.TempDir()
	path := filepath.Join(dir, "tool.yaml")
	if err := Save(c, path, false); err != nil {
		t.Fatal(err)
	}
	rec, err := NewReplayer(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	srv := httptest.NewServer(ReplayHandler(rec))
	defer srv.Close()

	first := c.Interactions[0]
	var v any
	if err := json.Unmarshal([]byte(first.Request.Body), &v); err != nil {
		t.Fatal(err)
	}
	reordered, err := json.MarshalIndent(v, "", "   ") // sorted keys, other whitespace
	if err != nil {
		t.Fatal(err)
	}
	if string(reordered) == first.Request.Body {
		t.Fatal("the reordered body is the recorded one; the test would prove nothing")
	}
	post := func(body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Api-Key", "sk-ant-some-other-key")
		req.Header.Set("User-Agent", "conform-test/0")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(string(reordered))
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != first.Response.Code {
		t.Errorf("status %d, want %d (%s)", resp.StatusCode, first.Response.Code, got)
	}
	if diff := cmp.Diff(first.Response.Body, string(got)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}

	resp = post(`{"model":"claude-sonnet-4-20250514","messages":[]}`)
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(got), "not found") {
		t.Errorf("unmatched request: status %d body %q, want 404 naming the miss", resp.StatusCode, got)
	}
}

// TestReplayResponseOnly replays a response-only cassette to a client that
// sends a body of its own.
func TestReplayResponseOnly(t *testing.T) {
	names, err := Glob("bedrock")
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, n := range names {
		if strings.HasSuffix(n, ".chunks.txt.yaml") {
			name = n
		}
	}
	c, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := Save(c, path, false); err != nil {
		t.Fatal(err)
	}
	rec, err := NewReplayer(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	srv := httptest.NewServer(ReplayHandler(rec))
	defer srv.Close()
	u, _ := http.NewRequest(http.MethodPost, c.Interactions[0].Request.URL, nil)
	resp, err := srv.Client().Post(srv.URL+u.URL.Path, "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != c.Interactions[0].Response.Body {
		t.Errorf("got %d bytes, want the %d recorded event-stream bytes", len(got), len(c.Interactions[0].Response.Body))
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// TestReplayFromCorpus replays a built-in cassette by its Glob name, with
// no copy on disk, through go-vcr's own client.
func TestReplayFromCorpus(t *testing.T) {
	const name = "openai-chat/fantasy__TestOpenAICommon--openai-gpt-4o--tool.yaml"
	c, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewReplayer(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	for k, i := range c.Interactions {
		req, err := http.NewRequest(i.Request.Method, "http://127.0.0.1:9/v1/chat/completions", strings.NewReader(i.Request.Body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rec.GetDefaultClient().Do(req)
		if err != nil {
			t.Fatalf("interaction %d: %v", k, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != i.Response.Body {
			t.Errorf("interaction %d: got another response body", k)
		}
	}
	if _, err := NewReplayer("openai-chat/no-such-cassette.yaml"); err == nil || !strings.Contains(err.Error(), "no-such-cassette") {
		t.Errorf("NewReplayer of a missing cassette: %v, want an error naming it", err)
	}
}
