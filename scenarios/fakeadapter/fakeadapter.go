// Package fakeadapter is a test adapter whose wire format is the canonical
// model itself: streams are JSON lines of core.Event, responses and
// requests are core.Response and core.Request as JSON. It lets the engine's
// tests run without any real protocol, and it enforces one history rule
// (every tool call answered in the next message) so that history cases can
// be tested.
package fakeadapter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
)

// Adapter is the fake adapter. Its zero value is not usable; use New.
type Adapter struct {
	name string
	// NoStreamEncoding makes EncodeStream report errors.ErrUnsupported.
	NoStreamEncoding bool
}

// New returns a fake adapter that reports the given protocol name.
func New(name string) *Adapter { return &Adapter{name: name} }

// Name returns the name given to New.
func (a *Adapter) Name() string { return a.name }

// ErrMissingResult is returned by EncodeRequest for a tool call that the
// next message does not answer.
var ErrMissingResult = errors.New("tool call without a result")

// EncodeRequest encodes the request as JSON, after checking that every
// assistant tool call is answered by a result in the next message.
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	for i, m := range req.Messages {
		calls := m.Calls()
		if len(calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(req.Messages) {
			for _, r := range req.Messages[i+1].Results() {
				answered[r.CallID] = true
			}
		}
		for _, c := range calls {
			if !answered[c.ID] {
				return nil, fmt.Errorf("encode request: messages[%d]: %w: %s", i, ErrMissingResult, c.ID)
			}
		}
	}
	return json.Marshal(req)
}

// DecodeRequest decodes a request encoded by EncodeRequest.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	var req core.Request
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode request: %w", err)
	}
	return &req, nil
}

// EncodeResponse encodes the response as JSON.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) { return json.Marshal(resp) }

// DecodeResponse decodes a response encoded by EncodeResponse.
func (a *Adapter) DecodeResponse(body []byte) (*core.Response, error) {
	var resp core.Response
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return &resp, nil
}

// EncodeStream writes one event per line.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	if a.NoStreamEncoding {
		return fmt.Errorf("encode stream: %w", errors.ErrUnsupported)
	}
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode stream: %w", err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("encode stream: %w", err)
		}
	}
	return nil
}

// DecodeStream reads one event per line; blank lines are skipped.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	return &stream{sc: sc}
}

type stream struct {
	sc   *bufio.Scanner
	line int
}

func (s *stream) Next() (core.Event, error) {
	for s.sc.Scan() {
		s.line++
		b := bytes.TrimSpace(s.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var ev core.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			return core.Event{}, fmt.Errorf("decode stream: line %d: %w", s.line, err)
		}
		return ev, nil
	}
	if err := s.sc.Err(); err != nil {
		return core.Event{}, fmt.Errorf("decode stream: %w", err)
	}
	return core.Event{}, io.EOF
}
