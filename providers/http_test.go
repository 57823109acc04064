package providers

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
