package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// refusalStatuses pins the status serve sends with each built-in scenario
// whose answer is a whole error body, the one the API sends (the
// protocol's Errors rule): a new such scenario must be added here.
var refusalStatuses = map[string]int{
	"bedrock/response/I03-aws-message-body":              403, // UnrecognizedClientException
	"cohere/response/I03-detail-error-body":              401, // "invalid api token"
	"gemini/response/I03-error-array":                    400, // the body's own code
	"mistral/response/I03-detail-error-body":             401, // "Invalid API Key"
	"ollama/response/I03-string-error-body":              404, // model not found
	"openai-chat/response/I03-errors-list-envelope":      400, // no type the rules know
	"openai-chat/response/I03-fastapi-validation-detail": 422, // FastAPI validation
	"openai-responses/response/I03-string-error-body":    400, // no type the rules know
}

// TestRefusalStatus sends a whole and a streamed request for every
// scenario whose answer is a whole error body: each gets the API's error
// status and the body as JSON, never a 200 and never a stream, and the
// verdict counts it served without an error of serve's own.
func TestRefusalStatus(t *testing.T) {
	s, ts := newServer(t, Options{})
	var found []string
	for _, name := range s.Names() {
		if _, ok := refusalOf(s.index[name], false); ok {
			found = append(found, name)
		}
	}
	var pinned []string
	for name := range refusalStatuses {
		pinned = append(pinned, name)
	}
	sort.Strings(pinned)
	if diff := cmp.Diff(pinned, found); diff != "" {
		t.Fatalf("scenarios answered with a whole error body differ from the pinned ones (-pinned +found):\n%s", diff)
	}
	for _, name := range found {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", name, stream), func(t *testing.T) {
				protocol, _ := s.Protocol(name)
				c := &client{base: ts.URL, name: name, protocol: protocol, stream: stream}
				status, ctype, body := postFirst(t, c, c.url(t))
				if status != refusalStatuses[name] {
					t.Errorf("status %d, want %d; body %s", status, refusalStatuses[name], body)
				}
				if ctype != "application/json" {
					t.Errorf("Content-Type %q, want application/json", ctype)
				}
				checkErrorBody(t, protocol, body, s.index[name].sc.Body)
				v, _ := s.Verdict(name)
				if v.Served != 1 || len(v.Errors) > 0 || len(v.Calls) > 0 || v.NotApplicable != "" {
					t.Errorf("verdict: served %d, errors %q, calls %d, not applicable %q; want served 1 and nothing else", v.Served, v.Errors, len(v.Calls), v.NotApplicable)
				}
				s.mu.Lock()
				delete(s.verdicts, name)
				s.mu.Unlock()
			})
		}
	}
}

// TestRefusalGeminiForms checks that Gemini's error body comes in the
// form of the request: the one JSON object to generateContent and to an
// SSE stream, the one-element array to streamGenerateContent without
// alt=sse.
func TestRefusalGeminiForms(t *testing.T) {
	const name = "gemini/response/I03-error-array"
	s, ts := newServer(t, Options{})
	c := &client{base: ts.URL, name: name, protocol: "gemini"}
	sse := (&client{base: ts.URL, name: name, protocol: "gemini", stream: true}).url(t)
	array, _, _ := strings.Cut(sse, "?")
	for _, tc := range []struct {
		url       string
		wantArray bool
	}{{c.url(t), false}, {sse, false}, {array, true}} {
		status, _, body := postFirst(t, c, tc.url)
		if status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", tc.url, status)
		}
		if jsonArray(body) != tc.wantArray {
			t.Errorf("%s: body %s; want the array form: %v", tc.url, body, tc.wantArray)
		}
	}
	if v, _ := s.Verdict(name); v.Served != 3 {
		t.Errorf("served %d, want 3", v.Served)
	}
}

// TestRefusalIgnoresChaos checks that chaos, which changes the framing of
// a stream or response, leaves an error answer whole and says so.
func TestRefusalIgnoresChaos(t *testing.T) {
	const name = "cohere/response/I03-detail-error-body"
	s, ts := newServer(t, Options{Chaos: Chaos{Disconnect: true, Split: true, Seed: 7}})
	c := &client{base: ts.URL, name: name, protocol: "cohere", stream: true}
	status, _, body := postFirst(t, c, c.url(t))
	if status != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", status)
	}
	checkErrorBody(t, "cohere", body, s.index[name].sc.Body)
	if v, _ := s.Verdict(name); len(v.Notes) != 1 || !strings.Contains(v.Notes[0], "not applicable to an error answer") {
		t.Errorf("notes %q, want one saying the chaos was not applied", v.Notes)
	}
}

// postFirst sends c's first request to url and returns the status, media
// type and body of the answer.
func postFirst(t *testing.T, c *client, url string) (int, string, []byte) {
	t.Helper()
	a, err := providers.Lookup(c.protocol)
	if err != nil {
		t.Fatal(err)
	}
	req := &core.Request{Model: "m", Stream: c.stream, Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}}
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), got
}

// checkErrorBody checks that body is the scenario's error body (as JSON,
// either form of Gemini's) and that the protocol's adapter reads it as an
// error.
func checkErrorBody(t *testing.T, protocol string, body, want []byte) {
	t.Helper()
	unwrap := func(b []byte) any {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("answer is not JSON: %v: %s", err, b)
		}
		if l, ok := v.([]any); ok && len(l) == 1 {
			return l[0]
		}
		return v
	}
	if diff := cmp.Diff(unwrap(want), unwrap(body)); diff != "" {
		t.Errorf("body differs from the scenario's (-want +got):\n%s", diff)
	}
	a, _ := providers.Lookup(protocol)
	if r, err := a.DecodeResponse(body); err != nil || r.Error == nil {
		t.Errorf("the %s adapter does not read the answer as an error: %v", protocol, err)
	}
}
