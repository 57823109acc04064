package cassettes

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// planted is in every secret the redaction tests plant; it must never
// reach a written file.
const planted = "PLANTED"

// plantedURL carries a secret in every query and URL form redaction
// handles, beside parameters that must survive.
const plantedURL = "https://user:PLANTEDpass@api.openai.com/v1/chat/completions?alt=sse" +
	"&key=PLANTED1&KEY=PLANTED2&api_key=PLANTED3&access_token=PLANTED4&api%5Fkey=PLANTED5&apikey=PLANTED6" +
	"&auth=Bearer%20PLANTED7&token=sk-PLANTED0123456789abcdef&g=AIzaPLANTED0123456789abcdefghij" +
	"&jwt=eyJPLANTED12.eyJPLANTED34.sigPLANTED&gh=ghp_PLANTED0123456789abcdefghij"

// plantedHeaders carries a secret in every header redaction removes, in
// assorted case, and a bearer token in a header it keeps.
var plantedHeaders = [][2]string{
	{"Authorization", "Bearer PLANTEDa"},
	{"proxy-authorization", "Basic PLANTEDb"},
	{"X-API-KEY", "PLANTEDc"},
	{"api-key", "PLANTEDd"},
	{"X-Goog-Api-Key", "PLANTEDe"},
	{"Cookie", "session=PLANTEDf"},
	{"set-cookie", "id=PLANTEDg"},
	{"X-Amz-Security-Token", "PLANTEDh"},
	{"X-Custom-Auth", "bearer PLANTEDi"},
	{"X-Trace-Note", "bearer PLANTEDj"},
}

// wantURL is plantedURL redacted.
const wantURL = "https://api.openai.com/v1/chat/completions?alt=sse&g=REDACTED&jwt=REDACTED&gh=REDACTED"

func TestRedactURL(t *testing.T) {
	if diff := cmp.Diff(wantURL, RedactURL(plantedURL)); diff != "" {
		t.Errorf("RedactURL (-want +got):\n%s", diff)
	}
	tests := map[string]string{
		"": "",
		"https://a/b?task-abcdefghijklmnopqrstu=1":        "https://a/b?task-abcdefghijklmnopqrstu=1",
		"https://a/model%3Av1/invoke":                     "https://a/model%3Av1/invoke",
		"%zz Bearer PLANTEDx":                             "%zz REDACTED",
		"https://a/b?keys=1&monkey=2":                     "https://a/b?monkey=2",
		"https://a/%zz?key=PLANTEDx&x=1&API_KEY=PLANTEDy": "https://a/%zz?REDACTED&x=1&REDACTED",
	}
	for in, want := range tests {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// plantedSources returns one recording of every format with every secret
// planted in its requests and responses.
func plantedSources() map[string]string {
	var vcrpyH, govcrH, rawH strings.Builder
	for _, h := range plantedHeaders {
		vcrpyH.WriteString("      " + h[0] + ":\n      - " + h[1] + "\n")
		govcrH.WriteString("      " + h[0] + ":\n      - " + h[1] + "\n")
		rawH.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	return map[string]string{
		"planted.yaml": "version: 2\ninteractions:\n- request:\n    headers:\n" + govcrH.String() +
			"    url: " + plantedURL + "\n    request_uri: /v1/chat/completions?key=PLANTED8\n    method: POST\n    form:\n      key: [PLANTED9]\n" +
			"  response:\n    headers:\n" + govcrH.String() + "    code: 200\n",
		"planted-vcrpy.yaml": "interactions:\n- request:\n    headers:\n" + vcrpyH.String() +
			"    method: POST\n    uri: " + plantedURL + "\n  response:\n    headers:\n" + vcrpyH.String() +
			"    status: {code: 200, message: OK}\n",
		"planted.httprr": httprrTrace(
			"POST "+plantedURL+" HTTP/1.1\r\nHost: api.openai.com\r\n"+rawH.String()+"Content-Length: 2\r\n\r\n{}",
			"HTTP/1.1 200 OK\r\n"+rawH.String()+"Content-Length: 2\r\n\r\n{}",
		),
	}
}

// TestRedactionReachesNoFile imports recordings of every format with keys
// planted in every header and query form, saves them, and scans the bytes
// written.
func TestRedactionReachesNoFile(t *testing.T) {
	dir := t.TempDir()
	for name, src := range plantedSources() {
		if !strings.Contains(src, planted) {
			t.Fatalf("%s: nothing planted", name)
		}
		res, err := Import(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := filepath.Join(dir, CassetteName(name))
		if err := Save(res.Cassette, out, false); err != nil {
			t.Fatal(err)
		}
		data := mustRead(t, out)
		if n := bytes.Count(data, []byte(planted)); n > 0 {
			t.Errorf("%s: %d planted secrets reached the file:\n%s", name, n, data)
		}
		// What must survive, survives.
		for _, keep := range []string{"alt=sse", "X-Trace-Note", "api.openai.com/v1/chat/completions"} {
			if !bytes.Contains(data, []byte(keep)) {
				t.Errorf("%s: redaction removed %q too", name, keep)
			}
		}
	}
}

// TestMarshalRedacts checks that a cassette built by hand, not imported, is
// redacted on the way to disk, and is itself left unchanged.
func TestMarshalRedacts(t *testing.T) {
	res, err := Import("planted.yaml", []byte(plantedSources()["planted.yaml"]))
	if err != nil {
		t.Fatal(err)
	}
	i := res.Cassette.Interactions[0]
	i.Request.Headers.Set("Authorization", "Bearer PLANTEDlate")
	i.Request.URL = plantedURL
	data, err := Marshal(res.Cassette)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(planted)) {
		t.Errorf("Marshal wrote a planted secret:\n%s", data)
	}
	i.Request.Form = url.Values{"key": {"PLANTEDform"}, "beta": {"true"}}
	if data, err = Marshal(res.Cassette); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(planted)) {
		t.Errorf("Marshal wrote a planted form value:\n%s", data)
	}
	if i.Request.Headers.Get("Authorization") != "Bearer PLANTEDlate" || i.Request.URL != plantedURL || i.Request.Form.Get("key") != "PLANTEDform" {
		t.Error("Marshal changed the cassette it was given")
	}
}

func TestRedactRequestClones(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, plantedURL, strings.NewReader("{}"))
	for _, h := range plantedHeaders {
		r.Header.Add(h[0], h[1])
	}
	before := r.Header.Clone()
	c := RedactRequest(r)
	if diff := cmp.Diff(before, r.Header); diff != "" {
		t.Errorf("original headers changed (-before +after):\n%s", diff)
	}
	if r.URL.String() != strings.Replace(plantedURL, "user:PLANTEDpass@", "user:PLANTEDpass@", 1) {
		t.Errorf("original URL changed to %s", r.URL)
	}
	var dump bytes.Buffer
	if err := c.Header.Write(&dump); err != nil {
		t.Fatal(err)
	}
	dump.WriteString(c.URL.String())
	if bytes.Contains(dump.Bytes(), []byte(planted)) {
		t.Errorf("redacted clone still holds a secret:\n%s", dump.String())
	}
}

// TestRedactHookOnRecord records a live exchange with go-vcr through
// RedactHook: the server sees the credentials, the cassette does not.
func TestRedactHookOnRecord(t *testing.T) {
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "PLANTEDcookie"})
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "rec")
	rec, err := recorder.New(path, recorder.WithMode(recorder.ModeRecordOnly), recorder.WithMatcher(Matcher), RedactHook())
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages?key=PLANTEDq", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", "PLANTEDkey")
	req.Header.Set("Authorization", "Bearer PLANTEDbearer")
	resp, err := rec.GetDefaultClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"ok":true}` {
		t.Errorf("body %q", body)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	if seen.Get("X-Api-Key") != "PLANTEDkey" || seen.Get("Authorization") != "Bearer PLANTEDbearer" {
		t.Errorf("the server did not get the credentials: %v", seen)
	}
	if req.Header.Get("X-Api-Key") != "PLANTEDkey" {
		t.Error("recording changed the caller's request")
	}
	data, err := os.ReadFile(path + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(planted)) {
		t.Errorf("recorded cassette holds a secret:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`{"ok":true}`)) {
		t.Errorf("recorded cassette lost the body:\n%s", data)
	}
}

// TestImportReportsRedactions checks Import lists what it removed, by name
// and never by value.
func TestImportReportsRedactions(t *testing.T) {
	res, err := Import("planted-vcrpy.yaml", []byte(plantedSources()["planted-vcrpy.yaml"]))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"redacted: " + strings.Join([]string{
		"URL query parameter KEY", "URL query parameter access_token", "URL query parameter api_key",
		"URL query parameter apikey", "URL query parameter auth", "URL query parameter key", "URL query parameter token", "URL user information",
		"request header Api-Key", "request header Authorization", "request header Cookie",
		"request header Proxy-Authorization", "request header Set-Cookie", "request header X-Amz-Security-Token",
		"request header X-Api-Key", "request header X-Custom-Auth", "request header X-Goog-Api-Key",
		"response header Api-Key", "response header Authorization", "response header Cookie",
		"response header Proxy-Authorization", "response header Set-Cookie", "response header X-Amz-Security-Token",
		"response header X-Api-Key", "response header X-Custom-Auth", "response header X-Goog-Api-Key",
		"token in URL", "token in request header X-Trace-Note", "token in response header X-Trace-Note",
	}, ", ")}
	if diff := cmp.Diff(want, res.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, planted) {
			t.Errorf("a note holds a secret: %s", n)
		}
	}
}
