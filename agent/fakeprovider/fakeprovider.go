// Package fakeprovider is a loopback fake of a model provider for tests and
// examples: an httptest server that decodes each request with a protocol's
// adapter, records it, and answers the next scripted canonical response
// encoded with the same adapter, as a JSON body or as a stream.
//
// It knows only what the agent loop needs of each protocol's HTTP shape:
// Gemini and Bedrock say "stream" in the path (:streamGenerateContent,
// /converse-stream), the others in the body.
package fakeprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/toolconform/conform/core"
)

// Received is one request the fake provider got.
type Received struct {
	Path    string
	Stream  bool
	Body    []byte
	Request *core.Request
	// Err is the adapter's error decoding the body, if any; the server
	// answered 400.
	Err error
}

// Server is a running fake provider. Close it when done.
type Server struct {
	*httptest.Server
	adapter core.Adapter

	mu       sync.Mutex
	script   []core.Response
	answered int
	received []Received
	stall    int
}

// New starts a fake provider for adapter that answers script in order,
// one response per request the adapter can decode; a request it cannot
// decode gets status 400, and one past the end of the script status 500.
func New(adapter core.Adapter, script ...core.Response) *Server {
	s := &Server{adapter: adapter, script: script, stall: -1}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// StallAt makes the answer to the n-th decodable request (1-based) stall: a stream
// sends its first half and then waits until the client goes away, a JSON
// body is never sent.
func (s *Server) StallAt(n int) {
	s.mu.Lock()
	s.stall = n
	s.mu.Unlock()
}

// Received returns the requests received so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req, derr := s.adapter.DecodeRequest(body)
	stream := strings.Contains(r.URL.Path, ":streamGenerateContent") || strings.HasSuffix(r.URL.Path, "/converse-stream") ||
		(req != nil && req.Stream)
	s.mu.Lock()
	s.received = append(s.received, Received{Path: r.URL.RequestURI(), Stream: stream, Body: body, Request: req, Err: derr})
	if derr != nil {
		s.mu.Unlock()
		http.Error(w, "decode request: "+derr.Error(), http.StatusBadRequest)
		return
	}
	n := s.answered
	s.answered++
	stall := s.stall == n+1
	var resp *core.Response
	if n < len(s.script) {
		resp = &s.script[n]
	}
	s.mu.Unlock()
	if resp == nil {
		http.Error(w, fmt.Sprintf("fake provider: no scripted response for request %d", n+1), http.StatusInternalServerError)
		return
	}
	if !stream {
		if stall {
			<-r.Context().Done()
			return
		}
		b, err := s.adapter.EncodeResponse(resp)
		if err != nil {
			http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	var buf bytes.Buffer
	if err := s.adapter.EncodeStream(&buf, Events(resp)); err != nil {
		http.Error(w, "encode stream: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType(s.adapter.Name()))
	b := buf.Bytes()
	if stall {
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		<-r.Context().Done()
		return
	}
	_, _ = w.Write(b)
}

func contentType(protocol string) string {
	switch protocol {
	case "bedrock":
		return "application/vnd.amazon.eventstream"
	case "ollama":
		return "application/x-ndjson"
	}
	return "text/event-stream"
}

// Events returns the stream events of a response: text and thinking
// deltas, each call as start, one argument delta and end, then usage and
// the finish.
func Events(resp *core.Response) []core.Event {
	evs := []core.Event{}
	first := true
	meta := func(e core.Event) core.Event {
		if first {
			e.ID, e.Model = resp.ID, resp.Model
			first = false
		}
		return e
	}
	idx := 0
	for _, p := range resp.Message.Parts {
		switch p.Kind {
		case core.PartText:
			evs = append(evs, meta(core.Event{Kind: core.EventText, Text: p.Text}))
		case core.PartThinking:
			evs = append(evs, meta(core.Event{Kind: core.EventThinking, Text: p.Text, Signature: p.Signature}))
		case core.PartToolCall:
			c := p.Call
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			var b bytes.Buffer
			if json.Compact(&b, []byte(args)) == nil {
				args = b.String()
			}
			evs = append(evs,
				meta(core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: c.ID, Name: c.Name, Start: true}}),
				core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: c.ID, ArgsDelta: args}},
				core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: c.ID, Done: true}},
			)
			idx++
		}
	}
	if resp.Usage != nil {
		evs = append(evs, core.Event{Kind: core.EventUsage, Usage: resp.Usage})
	}
	finish := resp.Finish
	if finish == "" {
		finish = core.FinishStop
		if idx > 0 {
			finish = core.FinishToolCalls
		}
	}
	evs = append(evs, core.Event{Kind: core.EventFinish, Finish: finish, ProviderFinish: resp.ProviderFinish})
	return evs
}
