package providers

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestMatchPath(t *testing.T) {
	tests := []struct {
		path string
		want Route
		ok   bool
	}{
		{"/v1/chat/completions", Route{Protocols: []string{"mistral", "openai-chat"}}, true},
		{"/prefix/v1/chat/completions", Route{Protocols: []string{"mistral", "openai-chat"}, Prefix: "/prefix"}, true},
		{"/v1/responses", Route{Protocols: []string{"openai-responses"}}, true},
		{"/v1/messages", Route{Protocols: []string{"anthropic"}}, true},
		{"/v2/chat", Route{Protocols: []string{"cohere"}}, true},
		{"/api/chat", Route{Protocols: []string{"ollama"}}, true},
		{"/v1beta/models/gemini-2.5-flash:generateContent", Route{Protocols: []string{"gemini"}, Model: "gemini-2.5-flash", ByPath: true}, true},
		{"/x/v1beta/models/gemini-2.5-flash:streamGenerateContent", Route{Protocols: []string{"gemini"}, Model: "gemini-2.5-flash", ByPath: true, Stream: true, Prefix: "/x"}, true},
		{"/model/anthropic.claude-3:0/converse", Route{Protocols: []string{"bedrock"}, Model: "anthropic.claude-3:0", ByPath: true}, true},
		{"/model/m/converse-stream", Route{Protocols: []string{"bedrock"}, Model: "m", ByPath: true, Stream: true}, true},
		{"/v1beta/models/:generateContent", Route{}, false},
		{"/generateContent", Route{}, false},
		{"/model//converse", Route{}, false},
		{"/v1/embeddings", Route{}, false},
		{"", Route{}, false},
	}
	for _, tt := range tests {
		got, ok := MatchPath(tt.path)
		if ok != tt.ok {
			t.Errorf("MatchPath(%q) ok = %v, want %v", tt.path, ok, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("MatchPath(%q) (-want +got):\n%s", tt.path, diff)
		}
	}
}

// TestEndpointsCoverAdapters checks that every built-in adapter has its
// HTTP facts and that every endpoint's own URL routes back to it.
func TestEndpointsCoverAdapters(t *testing.T) {
	for _, name := range Names() {
		e, err := HTTP(name)
		if err != nil {
			t.Errorf("HTTP(%q): %v", name, err)
			continue
		}
		for _, stream := range []bool{false, true} {
			u := e.URL("http://h/base", e.DefaultModel, stream)
			path := u[len("http://h"):]
			if i := strings.IndexByte(path, '?'); i >= 0 {
				path = path[:i]
			}
			r, ok := MatchPath(path)
			if !ok {
				t.Errorf("%s: MatchPath(%q) found no route", name, path)
				continue
			}
			if !slices.Contains(r.Protocols, name) {
				t.Errorf("%s: MatchPath(%q) = %v, want it to include %s", name, path, r.Protocols, name)
			}
			if r.ByPath && r.Stream != stream {
				t.Errorf("%s: MatchPath(%q).Stream = %v, want %v", name, path, r.Stream, stream)
			}
			if r.Prefix != "/base" {
				t.Errorf("%s: MatchPath(%q).Prefix = %q, want /base", name, path, r.Prefix)
			}
		}
	}
	if _, err := HTTP("nope"); err == nil {
		t.Error("HTTP(nope) = nil error")
	}
	if len(Endpoints()) != len(Names()) {
		t.Errorf("Endpoints() has %d rows, Names() %d", len(Endpoints()), len(Names()))
	}
}

// TestEndpointURL checks the URLs built from base URLs in the forms people
// set: bare hosts, hosts with a gateway prefix, and the SDK forms that
// already end with the API version (OPENAI_BASE_URL=http://host/v1), which
// must not get the version twice.
func TestEndpointURL(t *testing.T) {
	tests := []struct {
		protocol, base, model string
		stream                bool
		want                  string
	}{
		{"openai-chat", "https://api.openai.com", "m", false, "https://api.openai.com/v1/chat/completions"},
		{"openai-chat", "http://host/v1", "m", false, "http://host/v1/chat/completions"},
		{"openai-chat", "http://host/v1/", "m", true, "http://host/v1/chat/completions"},
		{"openai-chat", "http://host/gateway/v1", "m", false, "http://host/gateway/v1/chat/completions"},
		{"openai-chat", "http://host/gateway", "m", false, "http://host/gateway/v1/chat/completions"},
		{"openai-chat", "http://host/v1/chat", "m", false, "http://host/v1/chat/completions"},
		{"openai-chat", "http://host/v1/chat/completions", "m", false, "http://host/v1/chat/completions"},
		// Only whole segments of the path count: not /xv1, not the host.
		{"openai-chat", "http://host/xv1", "m", false, "http://host/xv1/v1/chat/completions"},
		{"openai-chat", "http://v1", "m", false, "http://v1/v1/chat/completions"},
		{"openai-chat", "http://host/v1/x", "m", false, "http://host/v1/x/v1/chat/completions"},
		{"openai-responses", "http://host/v1", "m", true, "http://host/v1/responses"},
		{"mistral", "https://api.mistral.ai/v1", "m", false, "https://api.mistral.ai/v1/chat/completions"},
		{"anthropic", "https://api.anthropic.com/v1", "m", true, "https://api.anthropic.com/v1/messages"},
		{"anthropic", "https://api.anthropic.com", "m", true, "https://api.anthropic.com/v1/messages"},
		{"cohere", "https://api.cohere.com/v2", "m", false, "https://api.cohere.com/v2/chat"},
		{"cohere", "https://api.cohere.com/v1", "m", false, "https://api.cohere.com/v1/v2/chat"},
		{"gemini", "https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-flash", false, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"},
		{"gemini", "https://generativelanguage.googleapis.com/v1beta/models", "g", true, "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse"},
		{"gemini", "https://generativelanguage.googleapis.com", "g", true, "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse"},
		{"ollama", "http://localhost:11434/api", "m", false, "http://localhost:11434/api/chat"},
		{"ollama", "http://localhost:11434", "m", false, "http://localhost:11434/api/chat"},
		{"bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com", "a.b:0", true, "https://bedrock-runtime.us-east-1.amazonaws.com/model/a.b:0/converse-stream"},
		// A path-only base (as agent.Path passes "") and a relative one.
		{"openai-chat", "", "m", false, "/v1/chat/completions"},
		{"openai-chat", "/v1", "m", false, "/v1/chat/completions"},
		{"gemini", "", "g", false, "/v1beta/models/g:generateContent"},
	}
	for _, tt := range tests {
		e, err := HTTP(tt.protocol)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.URL(tt.base, tt.model, tt.stream); got != tt.want {
			t.Errorf("%s: URL(%q, %q, %v) = %q, want %q", tt.protocol, tt.base, tt.model, tt.stream, got, tt.want)
		}
	}
}

// TestEndpointURLProperties checks, for base URLs made of random path
// segments (API versions and route words among them), that the URL keeps
// the base whole, ends with the protocol's whole path, routes back to the
// protocol, and overlaps the base by the most segments it can: a base
// ending with "/v1" never yields "/v1/v1/...".
func TestEndpointURLProperties(t *testing.T) {
	words := []string{"v1", "v1beta", "v2", "api", "chat", "completions", "models", "model", "messages", "responses", "gw", "openai"}
	rapid.Check(t, func(t *rapid.T) {
		segs := rapid.SliceOfN(rapid.SampledFrom(words), 0, 4).Draw(t, "segs")
		base := "http://h"
		for _, s := range segs {
			base += "/" + s
		}
		if rapid.Bool().Draw(t, "slash") {
			base += "/"
		}
		protocol := rapid.SampledFrom(Names()).Draw(t, "protocol")
		stream := rapid.Bool().Draw(t, "stream")
		e, err := HTTP(protocol)
		if err != nil {
			t.Fatal(err)
		}
		full := e.URL("", "m", stream) // the protocol's own path and query
		u := e.URL(base, "m", stream)
		trimmed := strings.TrimRight(base, "/")
		if !strings.HasPrefix(u, trimmed) {
			t.Fatalf("URL(%q) = %q does not start with the base", base, u)
		}
		if !strings.HasSuffix(u, full) {
			t.Fatalf("URL(%q) = %q does not end with the protocol's path %q", base, u, full)
		}
		// The overlap is whole leading segments of the path, and the
		// longest run of them the base ends with.
		path, _, _ := strings.Cut(full, "?")
		overlap := len(trimmed) + len(full) - len(u)
		if overlap < 0 || overlap > len(path) || (overlap < len(path) && path[overlap] != '/') {
			t.Fatalf("URL(%q) = %q: overlap of %d bytes is not whole segments of %q", base, u, overlap, path)
		}
		// Segments up to the model's ("m", "m:generateContent") may
		// overlap; a longer run than the one taken must not match.
		psegs := strings.Split(strings.TrimPrefix(path, "/"), "/")
		literal := len(psegs)
		for i, sg := range psegs {
			if sg == "m" || strings.HasPrefix(sg, "m:") {
				literal = i
				break
			}
		}
		taken := strings.Count(path[:overlap], "/")
		bpath := trimmed[len("http://h"):]
		for j := taken + 1; j <= literal; j++ {
			if lead := "/" + strings.Join(psegs[:j], "/"); strings.HasSuffix(bpath, lead) {
				t.Fatalf("URL(%q) = %q: the base also ends with %q, which was repeated", base, u, lead)
			}
		}
		upath := strings.TrimPrefix(u, "http://h")
		upath, _, _ = strings.Cut(upath, "?")
		r, ok := MatchPath(upath)
		if !ok || !slices.Contains(r.Protocols, protocol) {
			t.Fatalf("URL(%q) = %q does not route back to %s (route %+v, %v)", base, u, protocol, r, ok)
		}
	})
}
