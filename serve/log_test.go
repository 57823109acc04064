package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestUnknownScenarioLoggedOnceBounded asks for a 60 KB scenario name that
// does not exist, by path and by header: each request logs one line that
// names the scenario once, cut, so that a client cannot fill the log.
func TestUnknownScenarioLoggedOnceBounded(t *testing.T) {
	var log bytes.Buffer
	s, err := New(Options{Scenarios: builtin(t), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	name := "openai-chat/x/" + strings.Repeat("n", 60<<10)
	for _, byPath := range []bool{true, false} {
		log.Reset()
		path := "/v1/chat/completions"
		if byPath {
			path = ScenarioPrefix + name + path
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`))
		if !byPath {
			req.Header.Set(ScenarioHeader, name)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusNotFound {
			t.Errorf("by path %v: status %d, want 404", byPath, w.Code)
		}
		line := log.String()
		if n := strings.Count(line, "\n"); n != 1 {
			t.Errorf("by path %v: %d log lines, want 1", byPath, n)
		}
		if len(line) > 1024 {
			t.Errorf("by path %v: a %d-byte log line for one request", byPath, len(line))
		}
		if n := strings.Count(line, "openai-chat/x/nnn"); n != 1 {
			t.Errorf("by path %v: the name appears %d times in %q", byPath, n, line)
		}
	}
}
