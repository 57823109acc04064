// Package fakeprovider is a loopback fake of a model provider for tests and
// examples: an httptest server that decodes each request with a protocol's
// adapter, records it, and answers the next scripted canonical response
// encoded with the same adapter, as a JSON body or as a stream.
//
// A stream is asked for in the path where the protocol's endpoint says so
// (providers.MatchPath), else in the body; it carries the scripted
// response as providers.ResponseEvents turns it into events.
package fakeprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
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
	stream := req != nil && req.Stream
	if route, ok := providers.MatchPath(r.URL.Path); ok && route.ByPath {
		stream = route.Stream
	}
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
	if err := s.adapter.EncodeStream(&buf, providers.ResponseEvents(s.adapter.Name(), scripted(resp))); err != nil {
		http.Error(w, "encode stream: "+err.Error(), http.StatusInternalServerError)
		return
	}
	ep, err := providers.HTTP(s.adapter.Name())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ep.StreamContentType)
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

// scripted returns a scripted response in the form a stream carries it:
// a call's arguments compact JSON ("{}" when empty), and a finish reason
// (tool_calls when it has calls, else stop) when the script gives none.
func scripted(resp *core.Response) *core.Response {
	c := *resp
	c.Message.Parts = append([]core.Part(nil), resp.Message.Parts...)
	calls := 0
	for i, p := range c.Message.Parts {
		if p.Kind != core.PartToolCall || p.Call == nil {
			continue
		}
		calls++
		call := *p.Call
		args := string(call.Arguments)
		if args == "" {
			args = "{}"
		}
		var b bytes.Buffer
		if json.Compact(&b, []byte(args)) == nil {
			args = b.String()
		}
		call.Arguments = json.RawMessage(args)
		c.Message.Parts[i].Call = &call
	}
	if c.Finish == "" {
		c.Finish = core.FinishStop
		if calls > 0 {
			c.Finish = core.FinishToolCalls
		}
	}
	return &c
}
