package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// adapterFor returns the adapter that writes a protocol's bytes, in the
// one-JSON-array stream form when arrayForm is set.
func adapterFor(protocol string, arrayForm bool) (core.Adapter, error) {
	if p := descriptor(protocol); arrayForm && p.NewJSONArrayStream != nil {
		return p.NewJSONArrayStream(), nil
	}
	return providers.Lookup(protocol)
}

// jsonArray reports whether a stream body is the one-JSON-array form
// (Endpoint.JSONArrayStream).
func jsonArray(body []byte) bool {
	t := bytes.TrimLeft(body, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '['
}

// drain reads a stream's events up to its end or its first error.
func drain(s core.EventStream) []core.Event {
	var out []core.Event
	for {
		ev, err := s.Next()
		if err != nil {
			return out
		}
		out = append(out, ev)
	}
}

// eventsOf returns the scenario's response as canonical events.
func eventsOf(a core.Adapter, sc *scenarios.Scenario) ([]core.Event, error) {
	switch {
	case sc.Kind == scenarios.KindStream && len(sc.Body) > 0:
		return drain(a.DecodeStream(bytes.NewReader(sc.Body))), nil
	case sc.Kind == scenarios.KindStream:
		return sc.Events, nil
	}
	resp, err := responseOf(a, sc)
	if err != nil {
		return nil, err
	}
	return providers.ResponseEvents(a.Name(), resp), nil
}

// responseOf returns the scenario's response as a canonical response. A
// stream case is collected; calls its stream leaves incomplete are left
// out, as a whole response cannot say "incomplete".
func responseOf(a core.Adapter, sc *scenarios.Scenario) (*core.Response, error) {
	switch {
	case sc.Kind == scenarios.KindResponse && len(sc.Body) > 0:
		resp, err := a.DecodeResponse(sc.Body)
		if err != nil {
			return nil, fmt.Errorf("decode the scenario's response: %w", err)
		}
		return resp, nil
	case sc.Kind == scenarios.KindResponse:
		return sc.Response, nil
	}
	evs, err := eventsOf(a, sc)
	if err != nil {
		return nil, err
	}
	resp, _ := core.Collect(core.SliceStream(evs))
	resp.Incomplete = nil
	return resp, nil
}

// servedBody returns the bytes that answer a request for the scenario and
// their media type. A response the adapter encodes gets id when the
// scenario has none, so that a client can name it (previous_response_id,
// Anthropic threads).
func servedBody(a core.Adapter, e entry, stream, arrayForm bool, id string) ([]byte, string, error) {
	ep, err := providers.HTTP(e.protocol)
	if err != nil {
		return nil, "", err
	}
	sc := e.sc
	if !stream {
		if replays(e, false, false) {
			return sc.Body, ep.ContentType, nil
		}
		resp, err := responseOf(a, sc)
		if err != nil {
			return nil, "", err
		}
		if resp.ID == "" {
			c := *resp // the scenario's own response is shared
			c.ID = id
			resp = &c
		}
		body, err := a.EncodeResponse(resp)
		return body, ep.ContentType, err
	}
	ctype := ep.StreamContentType
	if arrayForm {
		ctype = "application/json"
	}
	if replays(e, true, arrayForm) {
		if sc.BodySection == "response.ndjson" && strings.HasPrefix(ctype, "text/event-stream") {
			// An NDJSON stream of an SSE protocol (Cohere Chat v1) is
			// served as it was sent, as NDJSON.
			return sc.Body, "application/x-ndjson", nil
		}
		body, _ := frameRecorded(e.protocol, sc, strings.HasPrefix(ctype, "text/event-stream"))
		return body, ctype, nil
	}
	evs, err := eventsOf(a, sc)
	if err != nil {
		return nil, "", err
	}
	if len(evs) > 0 && evs[0].ID == "" {
		evs = slices.Clone(evs) // the scenario's own events are shared
		evs[0].ID = id
	}
	var b bytes.Buffer
	if err := a.EncodeStream(&b, evs); err != nil {
		return nil, "", err
	}
	return b.Bytes(), ctype, nil
}

// replays reports whether a request in that form is answered with the
// scenario's own bytes (framed as the protocol frames them) rather than
// the adapter's encoding of them: a whole response to a response case, a
// stream to a stream case in the same stream form.
func replays(e entry, stream, arrayForm bool) bool {
	sc := e.sc
	switch {
	case len(sc.Body) == 0:
		return false
	case !stream:
		return sc.Kind == scenarios.KindResponse
	}
	return sc.Kind == scenarios.KindStream && (!descriptor(e.protocol).JSONArrayStream || jsonArray(sc.Body) == arrayForm || sc.BodySection == "response.ndjson")
}

// decodeServed decodes what was sent, to know which calls the client saw
// complete.
func decodeServed(a core.Adapter, body []byte, stream bool) *core.Response {
	return decodeSent(a, body, stream, false)
}

// decodeSent is decodeServed for a body whose connection serve dropped
// or not. A stream whose connection serve drops (dropped: chaos disconnect) is
// read as a client reads it, to an unexpected EOF rather than a clean
// end: a decoder may tell the two apart, as the Bedrock decoder does for
// a tool block stopped last (B11: Converse says that the token limit cut
// the block only in the messageStop after its contentBlockStop, so a
// stream that breaks before it leaves the call incomplete).
func decodeSent(a core.Adapter, body []byte, stream, dropped bool) *core.Response {
	if !stream {
		resp, err := a.DecodeResponse(body)
		if err != nil {
			return &core.Response{}
		}
		return resp
	}
	var r io.Reader = bytes.NewReader(body)
	if dropped {
		r = BrokenReader(body)
	}
	resp, _ := core.Collect(a.DecodeStream(r))
	return resp
}

// BrokenReader reads b, then fails with io.ErrUnexpectedEOF, as the body
// of a connection dropped after b does.
func BrokenReader(b []byte) io.Reader {
	return io.MultiReader(bytes.NewReader(b), brokenEnd{})
}

type brokenEnd struct{}

func (brokenEnd) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// scenarioInvented returns the ids of calls that the scenario's own bytes
// or events do not carry (see inventedIDs).
func scenarioInvented(sc *scenarios.Scenario, calls []core.Call) map[string]bool {
	if len(sc.Body) > 0 {
		return inventedIDs(calls, sc.Body)
	}
	var ids []string
	for _, ev := range sc.Events {
		if ev.Chunk != nil && ev.Chunk.ID != "" {
			ids = append(ids, ev.Chunk.ID)
		}
	}
	if sc.Response != nil {
		for _, c := range sc.Response.Calls() {
			ids = append(ids, c.ID)
		}
	}
	out := map[string]bool{}
	for _, c := range calls {
		if c.ID != "" && (generatedID(c.ID) || !slices.Contains(ids, c.ID)) {
			out[c.ID] = true
		}
	}
	return out
}

// errorFrame returns the protocol's error event as stream bytes.
func errorFrame(a core.Adapter, ctype string) []byte {
	var b bytes.Buffer
	err := a.EncodeStream(&b, []core.Event{{Kind: core.EventError, Error: &core.ProviderError{Type: "overloaded_error", Code: "conform_chaos", Message: "conform: injected error"}}})
	if err != nil {
		return nil
	}
	pieces := cassettes.SplitStream(ctype, b.Bytes())
	if len(pieces) == 0 {
		return nil
	}
	return pieces[len(pieces)-1]
}

// initial answers a first request (raw is its body) with the scenario's
// bytes in the form asked.
func (s *Server) initial(w http.ResponseWriter, r *http.Request, raw []byte, name string, e entry, req *core.Request, stream, arrayForm bool, chaos Chaos, th threadParam, st statefulParam) *httpError {
	a, err := adapterFor(e.protocol, arrayForm)
	if err != nil {
		return fail(http.StatusInternalServerError, "api_error", "serve: %v", err)
	}
	if ref, ok := refusalOf(e, arrayForm); ok {
		s.refuse(w, name, e, ref, chaos)
		return nil
	}
	fallbackID := s.newID(idPrefix(e.protocol))
	body, ctype, err := servedBody(a, e, stream, arrayForm, fallbackID)
	if err != nil {
		// The case's bytes have no form the protocol can write in the
		// form asked (a stream of two calls on one call id, say): the API
		// would not send one either, so the request is not applicable,
		// never a 500 a client would be blamed for.
		why := clip(fmt.Sprintf("the %s adapter cannot write this case in the form asked: %v", e.protocol, err))
		s.verdict(name, e.protocol, func(v *Verdict) { v.NotApplicable = why })
		herr := fail(http.StatusBadRequest, "invalid_request_error", "serve %s: %w: %s", name, ErrNotApplicable, why)
		herr.notApplicable = true
		return herr
	}
	// The bytes written are gated as the recorded ones are: a form the
	// adapter re-encodes (a whole body from a stream) may hold a block the
	// recording's form did not (a reasoning summary for reasoning text).
	if rule := descriptor(e.protocol).Requirements; rule != nil {
		if why := unmet(rule(body), r, raw); why != "" {
			s.verdict(name, e.protocol, func(v *Verdict) { v.NotApplicable = clip(why) })
			herr := fail(http.StatusBadRequest, "invalid_request_error", "serve %s: %w: %s", name, ErrNotApplicable, why)
			herr.notApplicable = true
			return herr
		}
	}
	var notes []string
	isSSE := strings.HasPrefix(ctype, "text/event-stream")
	if only := chaos.sseOnly(); len(only) > 0 && !isSSE {
		notes = append(notes, fmt.Sprintf("chaos %s not applicable to %s", strings.Join(only, ","), ctype))
	}
	if !stream && chaos.Error {
		s.verdict(name, e.protocol, func(v *Verdict) {
			v.Served++
			v.Chaos = chaos.String()
			v.Calls, v.Incomplete, v.Optional, v.served = nil, nil, nil, &core.Response{}
		})
		return fail(http.StatusInternalServerError, "overloaded_error", "conform: injected error")
	}
	var frames [][]byte
	if stream {
		frames = cassettes.SplitStream(ctype, body)
	} else {
		frames = [][]byte{body}
	}
	abort := false
	if chaos.Disconnect || chaos.Error {
		if stream && len(frames) > 1 {
			frames = frames[:len(frames)/2]
		} else if !stream || len(frames) == 1 {
			frames = [][]byte{frames[0][:len(frames[0])/2]}
		}
		if chaos.Disconnect {
			abort = true
		} else if f := errorFrame(a, ctype); f != nil && !arrayForm {
			frames = append(frames, f)
		} else {
			notes = append(notes, "chaos error not applicable to "+ctype+"; stream cut instead")
			abort = true
		}
	}
	sent := bytes.Join(frames, nil)
	resp := decodeSent(a, sent, stream, abort)
	if resp.ID == "" {
		resp.ID = fallbackID
	}
	if th.create || th.cont {
		if note := s.storeThread(resp.ID, thread{name: name, messages: append(slices.Clone(req.Messages), resp.Message)}); note != "" {
			notes = append(notes, note)
		}
	}
	if descriptor(e.protocol).Grading.StoredResponses {
		if note := s.storeResponse(resp.ID, name, st, append(slices.Clone(req.Messages), resp.Message)); note != "" {
			notes = append(notes, note)
		}
	}
	s.verdict(name, e.protocol, func(v *Verdict) {
		v.Served++
		v.NotApplicable = ""
		v.Chaos = chaos.String()
		v.Optional = SplitLimitCalls(e.sc, resp)
		v.Calls, v.Incomplete, v.served = resp.Calls(), resp.Incomplete, resp
		v.invented = inventedIDs(resp.Calls(), sent)
		v.Notes = appendNew(v.Notes, notes...)
	})
	if isSSE {
		for i, f := range frames {
			frames[i] = reframeSSE(chaos, f)
		}
	}
	if len(notes) > 0 {
		w.Header().Set("X-Conform-Note", strings.Join(notes, "; "))
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if err := writeFrames(r, w, frames, chaos); err != nil {
		return nil // the client went away; nothing to send it
	}
	if abort {
		panic(http.ErrAbortHandler)
	}
	return nil
}

// refusal is a scenario's whole error body, the answer to a request the
// API refuses, with the status the API sends it with.
type refusal struct {
	status int
	body   []byte
	resp   *core.Response
}

// refusalOf reports whether the scenario's answer is a whole error body
// (a response case whose body the reference adapter reads as an error) and
// returns it with its status (the protocol's Errors rule). The API sends
// it before any stream starts, so it answers a streamed request too, as
// JSON. A body recorded in the one-JSON-array stream form (Gemini's
// [{"error": ...}]) is sent as its element to a request for another form,
// and a bare one is sent as an array to a request for the array form.
func refusalOf(e entry, arrayForm bool) (refusal, bool) {
	sc := e.sc
	if sc.Kind != scenarios.KindResponse {
		return refusal{}, false
	}
	a, err := providers.Lookup(e.protocol)
	if err != nil {
		return refusal{}, false
	}
	resp, err := responseOf(a, sc)
	if err != nil || resp.Error == nil {
		return refusal{}, false
	}
	body := sc.Body
	if len(body) == 0 {
		if body, err = a.EncodeResponse(resp); err != nil {
			return refusal{}, false
		}
	}
	if descriptor(e.protocol).JSONArrayStream {
		switch {
		case jsonArray(body) && !arrayForm:
			var items []json.RawMessage
			if json.Unmarshal(body, &items) == nil && len(items) == 1 {
				body = append([]byte(items[0]), '\n')
			}
		case !jsonArray(body) && arrayForm:
			body = append(append([]byte("["), bytes.TrimSpace(body)...), "]\n"...)
		}
	}
	return refusal{status: descriptor(e.protocol).Errors.Status(body, resp.Error), body: body, resp: resp}, true
}

// refuse answers with a whole error body and its status. Chaos changes
// the framing of a stream or a response, and a refusal is neither: it is
// sent as it is, and the verdict notes the chaos it left out.
func (s *Server) refuse(w http.ResponseWriter, name string, e entry, ref refusal, chaos Chaos) {
	var notes []string
	if chaos != (Chaos{}) {
		notes = append(notes, fmt.Sprintf("chaos %s not applicable to an error answer (status %d)", chaos, ref.status))
		w.Header().Set("X-Conform-Note", notes[0])
	}
	s.verdict(name, e.protocol, func(v *Verdict) {
		v.Served++
		v.NotApplicable = ""
		v.Chaos = chaos.String()
		v.Calls, v.Incomplete, v.Optional, v.served, v.invented = nil, nil, nil, ref.resp, nil
		v.Notes = appendNew(v.Notes, notes...)
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ref.status)
	w.Write(ref.body)
}

// writeFrames writes frames with a flush after each write, cut further at
// random boundaries when chaos asks, sleeping chaos.Delay after each.
func writeFrames(r *http.Request, w http.ResponseWriter, frames [][]byte, chaos Chaos) error {
	var writes [][]byte
	if chaos.Split {
		writes = splitPieces(bytes.Join(frames, nil), chaos.Seed)
	} else {
		writes = frames
	}
	fl, _ := w.(http.Flusher)
	ctx := r.Context()
	for _, p := range writes {
		if _, err := w.Write(p); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		if chaos.Delay > 0 {
			t := time.NewTimer(chaos.Delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
	}
	return nil
}

// MaxVerdictNotes bounds the notes of a verdict; later ones are left out.
const MaxVerdictNotes = 20

// appendNew appends the items not yet in list, up to MaxVerdictNotes.
func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		it = clip(it)
		if len(list) < MaxVerdictNotes && !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// gradeRest grades a follow-up that serve refuses for a wire fault on
// everything else it carries, against what was last served (no problem
// when nothing was): one refusal never hides another fault.
func (s *Server) gradeRest(name string, e entry, req *core.Request, body []byte) []scenarios.Problem {
	s.mu.Lock()
	v := s.verdicts[name]
	if v == nil || v.served == nil {
		s.mu.Unlock()
		return nil
	}
	served, invented, optional := v.served, v.invented, v.Optional
	s.mu.Unlock()
	thinkingOn := true
	if on := descriptor(e.protocol).Grading.ThinkingEnabled; on != nil {
		thinkingOn = on(body)
	}
	problems := gradeFollowUp(e.protocol, served, req, invented, thinkingOn, optional)
	if s.opts.Echo {
		problems = append(problems, gradeEcho(e.protocol, req, s.opts.EchoErrors)...)
	}
	return problems
}

func (s *Server) followUp(w http.ResponseWriter, r *http.Request, name string, e entry, req *core.Request, stream, arrayForm bool, chaos Chaos, th threadParam, st statefulParam, wire []scenarios.Problem, body []byte) *httpError {
	a, err := adapterFor(e.protocol, arrayForm)
	if err != nil {
		return fail(http.StatusInternalServerError, "api_error", "serve: %v", err)
	}
	var served *core.Response
	var invented map[string]bool
	var optional []core.Call
	s.mu.Lock()
	if v := s.verdicts[name]; v != nil {
		served, invented, optional = v.served, v.invented, v.Optional
	}
	s.mu.Unlock()
	var notes []string
	if served == nil {
		// A follow-up with no first request on this server (a client that
		// replays a conversation): grade against the whole scenario.
		served, err = responseOf(a, e.sc)
		if err != nil {
			return fail(http.StatusInternalServerError, "api_error", "serve %s: %v", name, err)
		}
		invented = scenarioInvented(e.sc, served.Calls())
		optional = SplitLimitCalls(e.sc, served)
		notes = append(notes, "follow-up graded without a first request on this server")
	}
	thinkingOn := true
	if on := descriptor(e.protocol).Grading.ThinkingEnabled; on != nil {
		thinkingOn = on(body)
	}
	problems := append(gradeFollowUp(e.protocol, served, req, invented, thinkingOn, optional), wire...)
	if s.opts.Echo {
		problems = append(problems, gradeEcho(e.protocol, req, s.opts.EchoErrors)...)
	}
	s.verdict(name, e.protocol, func(v *Verdict) {
		v.FollowUps++
		v.Graded = true
		v.setProblems(problems)
		v.setFollowUp(body)
		v.Notes = appendNew(v.Notes, notes...)
	})
	final := &core.Response{
		ID:      s.newID(idPrefix(e.protocol)),
		Model:   req.Model,
		Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(s.opts.Answer)}},
		Finish:  core.FinishStop,
		Usage:   &core.Usage{InputTokens: 1, OutputTokens: 1},
	}
	if th.create || th.cont {
		if note := s.storeThread(final.ID, thread{name: name, messages: append(slices.Clone(req.Messages), final.Message)}); note != "" {
			s.verdict(name, e.protocol, func(v *Verdict) { v.Notes = appendNew(v.Notes, note) })
		}
	}
	if descriptor(e.protocol).Grading.StoredResponses {
		if note := s.storeResponse(final.ID, name, st, append(slices.Clone(req.Messages), final.Message)); note != "" {
			s.verdict(name, e.protocol, func(v *Verdict) { v.Notes = appendNew(v.Notes, note) })
		}
	}
	ep, _ := providers.HTTP(e.protocol)
	var out []byte
	ctype := ep.ContentType
	if stream {
		var b bytes.Buffer
		err = a.EncodeStream(&b, providers.ResponseEvents(e.protocol, final))
		out = b.Bytes()
		if !arrayForm {
			ctype = ep.StreamContentType
		}
	} else {
		out, err = a.EncodeResponse(final)
	}
	if err != nil {
		return fail(http.StatusInternalServerError, "api_error", "serve %s: encode the final answer: %v", name, err)
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	frames := [][]byte{out}
	if stream {
		frames = cassettes.SplitStream(ctype, out)
	}
	_ = writeFrames(r, w, frames, Chaos{})
	return nil
}
