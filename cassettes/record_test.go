package cassettes

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewRecorder records two live exchanges with credentials, checks the
// cassette is written redacted and replays, and that an existing cassette
// is kept unless forced.
func TestNewRecorder(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Header.Get("Authorization"))
		w.Header().Set("Set-Cookie", "sid=PLANTEDcookie")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"echo":` + string(body) + `}`))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "live.yaml")
	record := func(force bool) error {
		rec, err := NewRecorder(path, force)
		if err != nil {
			return err
		}
		for _, body := range []string{`{"n":1}`, `{"n":2}`} {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions?key=PLANTEDq", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer PLANTEDtoken")
			resp, err := rec.GetDefaultClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != `{"echo":`+body+`}` {
				t.Errorf("live response %q", got)
			}
		}
		return rec.Stop()
	}
	if err := record(false); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "Bearer PLANTEDtoken" {
		t.Errorf("server saw Authorization %q, want the caller's credentials twice", seen)
	}
	data := mustRead(t, path)
	if bytes.Contains(data, []byte(planted)) {
		t.Errorf("recorded cassette holds a secret:\n%s", data)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 2 || c.Interactions[1].Response.Body != `{"echo":{"n":2}}` {
		t.Errorf("recorded %d interactions", len(c.Interactions))
	}

	// Without force the recorder refuses before any live call.
	if _, err := NewRecorder(path, false); !errors.Is(err, ErrExists) {
		t.Errorf("NewRecorder over an existing cassette: %v, want ErrExists", err)
	}
	if err := record(true); err != nil {
		t.Errorf("forced re-record: %v", err)
	}
	if len(seen) != 4 {
		t.Errorf("server saw %d calls, want 4", len(seen))
	}

	// The recorded cassette replays.
	rec, err := NewReplayer(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	resp, err := rec.GetDefaultClient().Post("http://elsewhere/v1/chat/completions", "application/json", strings.NewReader(`{ "n" : 2 }`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != `{"echo":{"n":2}}` {
		t.Errorf("replayed %q", got)
	}
}
