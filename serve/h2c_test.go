package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// madeUpID matches the response ids serve makes up, one per answer.
var madeUpID = regexp.MustCompile(`msg_conform[0-9]+`)

// TestServesH2C sends a streamed and a whole request over HTTP/2 with
// prior knowledge (h2c, a transport that speaks nothing else) and over
// HTTP/1.1 to the listener ServeListener runs: both get the same answer,
// in the HTTP version asked for. A server without h2c answers the h2c
// connection preface ("PRI * HTTP/2.0") with an error, so the h2c
// requests fail.
func TestServesH2C(t *testing.T) {
	const name = "openai-chat/streaming/A05-round-robin-interleaving"
	s, err := New(Options{Scenarios: builtin(t)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeListener(ctx, ln) }()
	defer func() { cancel(); <-done }()

	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	defer h2c.CloseIdleConnections()
	h1 := &http.Transport{}
	defer h1.CloseIdleConnections()
	a, _ := providers.Lookup("openai-chat")
	for _, stream := range []bool{true, false} {
		body, err := a.EncodeRequest(&core.Request{Model: "gpt-4o", Stream: stream, Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}})
		if err != nil {
			t.Fatal(err)
		}
		var answers [][]byte
		for _, tr := range []struct {
			name  string
			rt    *http.Transport
			major int
		}{{"h2c", h2c, 2}, {"HTTP/1.1", h1, 1}} {
			req, _ := http.NewRequest("POST", URL(ln)+ScenarioPrefix+name+"/v1/chat/completions", bytes.NewReader(body))
			resp, err := tr.rt.RoundTrip(req)
			if err != nil {
				t.Fatalf("%s, stream %v: %v", tr.name, stream, err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("%s, stream %v: read: %v", tr.name, stream, err)
			}
			if resp.StatusCode != http.StatusOK || resp.ProtoMajor != tr.major {
				t.Errorf("%s, stream %v: status %d over %s; want 200 over HTTP/%d\n%s", tr.name, stream, resp.StatusCode, resp.Proto, tr.major, got)
			}
			answers = append(answers, madeUpID.ReplaceAll(got, []byte("msg_conform")))
		}
		if len(answers) == 2 && !bytes.Equal(answers[0], answers[1]) {
			t.Errorf("stream %v: h2c and HTTP/1.1 answers differ beyond the ids serve makes up:\n%s\n---\n%s", stream, answers[0], answers[1])
		}
	}
}
