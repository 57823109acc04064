package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// Statuses of a Result.
const (
	StatusPass          = "pass"
	StatusFail          = "fail"
	StatusNotApplicable = "not applicable"
	// StatusNotCounted is a pass by failing without a passing control
	// (ApplyControls).
	StatusNotCounted = "not counted"
)

// MaxEvidence bounds the bytes of each body a Result quotes.
const MaxEvidence = 2 << 10

// MaxEvents bounds the events read from one answer.
const MaxEvents = 1 << 20

// MaxResponse bounds a gateway's answer.
const MaxResponse = 16 << 20

// UserPrompt is the user message of every first request.
const UserPrompt = "conform gateway test: call the tools you need"

// Target is a running gateway.
type Target struct {
	// Front is the protocol the gateway takes, Upstream the one it sends
	// to conform serve.
	Front, Upstream string
	// URL is the gateway's base URL.
	URL string
	// Header is added to every request (a per-request upstream choice).
	Header http.Header
	// Model is the model name the requests carry; "" means the front
	// protocol's default (providers.Endpoint.DefaultModel).
	Model string
	// Client sends the requests; nil means one with a 60-second timeout.
	Client *http.Client
}

// Result is the grade of one case: one scenario served in the upstream
// protocol, asked for through the gateway in the front protocol, streamed
// or not.
type Result struct {
	// Name is front>upstream/category/case, with " stream" for a streamed
	// request.
	Name     string             `json:"name"`
	Scenario string             `json:"scenario"`
	Front    string             `json:"front"`
	Upstream string             `json:"upstream"`
	Stream   bool               `json:"stream"`
	Severity scenarios.Severity `json:"severity"`
	Status   string             `json:"status"`
	// Problems are named by failure-mode id (scenarios.Problem.Rule).
	Problems []scenarios.Problem `json:"problems,omitempty"`
	// Reason says why a case is not applicable.
	Reason string `json:"reason,omitempty"`
	// Held says, for a passed case, what was checked.
	Held []string `json:"held,omitempty"`
	// ByFailing marks a pass the gateway earned by failing: serve's
	// answer failed (an error status, an upstream error, a cut stream)
	// and the gateway said so. It counts only beside a control
	// (ApplyControls), which Control names.
	ByFailing bool   `json:"by_failing,omitempty"`
	Control   string `json:"control,omitempty"`
	// Evidence quotes the bytes a problem was read from, each cut at
	// MaxEvidence: the gateway's answers and the requests it sent
	// upstream.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence is one body a result quotes.
type Evidence struct {
	What  string `json:"what"`
	Bytes string `json:"bytes"`
}

// Check grades one case: it serves scenario name (upstream-qualified)
// from up, sends the scenario's request in t.Front through the gateway,
// grades the request the gateway sent upstream and the answer it returned,
// and when calls came back, sends the follow-up with their results and
// grades what the gateway sent upstream for it (serve.Grade).
func Check(ctx context.Context, up *Upstream, t Target, sc *scenarios.Scenario, name string, stream bool) Result {
	res := Result{Name: caseName(t.Front, name, stream), Scenario: name, Front: t.Front, Upstream: t.Upstream, Stream: stream, Severity: sc.Severity}
	c := checker{ctx: ctx, up: up, t: t, res: &res}
	if c.t.Client == nil {
		c.t.Client = &http.Client{Timeout: 60 * time.Second}
	}
	c.run(sc, name)
	switch {
	case res.Status == StatusNotApplicable:
		res.Problems, res.Held = nil, nil
	case len(res.Problems) > 0:
		res.Status, res.Held, res.ByFailing = StatusFail, nil, false
	default:
		res.Status, res.Evidence = StatusPass, nil
	}
	return res
}

// caseName is front>upstream/category/case [stream].
func caseName(front, scenario string, stream bool) string {
	n := front + ">" + scenario
	if stream {
		n += " stream"
	}
	return n
}

type checker struct {
	ctx context.Context
	up  *Upstream
	t   Target
	res *Result
}

func (c *checker) add(rule, format string, args ...any) {
	c.res.Problems = append(c.res.Problems, scenarios.Problem{Rule: rule, Message: fmt.Sprintf(format, args...), Contract: serve.Contracts[rule]})
}

func (c *checker) notApplicable(format string, args ...any) {
	c.res.Status = StatusNotApplicable
	c.res.Reason = fmt.Sprintf(format, args...)
}

func (c *checker) evidence(what string, b []byte) {
	s := string(b)
	if len(s) > MaxEvidence {
		s = s[:MaxEvidence] + fmt.Sprintf("… (%d bytes)", len(b))
	}
	c.res.Evidence = append(c.res.Evidence, Evidence{What: what, Bytes: s})
}

func (c *checker) run(sc *scenarios.Scenario, name string) {
	front, err := providers.Lookup(c.t.Front)
	if err != nil {
		c.add("setup", "%v", err)
		return
	}
	upstream, err := providers.Lookup(c.t.Upstream)
	if err != nil {
		c.add("setup", "%v", err)
		return
	}
	if err := c.up.Begin(name); err != nil {
		c.add("setup", "%v", err)
		return
	}
	req := FirstRequest(sc, c.t.Front, c.res.Stream)
	if c.t.Model != "" {
		req.Model = c.t.Model
	}
	body, err := front.EncodeRequest(req)
	if err != nil {
		c.notApplicable("the %s adapter cannot encode the scenario's request: %v", c.t.Front, err)
		return
	}
	// The canonical request as the upstream protocol carries it: what a
	// faithful translation sends.
	want, err := roundTrip(upstream, req)
	if err != nil {
		c.notApplicable("the %s adapter cannot carry the scenario's request: %v", c.t.Upstream, err)
		return
	}
	status, answer, err := c.send(req.Model, body)
	if err != nil {
		c.add("I03", "first request: %v", err)
		return
	}
	exs := c.up.Exchanges()
	if v, _ := c.up.Verdict(name); v.NotApplicable != "" {
		c.notApplicable("serve: %s", v.NotApplicable)
		return
	}
	if len(exs) == 0 {
		c.add("I03", "the gateway answered %d without sending a request upstream", status)
		c.evidence("gateway answer", answer)
		return
	}
	first := exs[0]
	c.gradeUpstreamRequest(upstream, want, first)
	// An error status comes with a whole JSON error body, to a streamed
	// request too, as from the API.
	served := decodeBody(upstream, first.Response, c.res.Stream && first.Status == http.StatusOK, first.Dropped)
	optional := serve.SplitLimitCalls(sc, served)
	if status != http.StatusOK {
		c.res.ByFailing = true
		switch {
		case first.Status != http.StatusOK:
			c.res.Held = append(c.res.Held, fmt.Sprintf("serve refused the request with %d, the gateway answered %d", first.Status, status))
		case !servedFailed(served, c.res.Stream) && served.Finish != "":
			c.add("I03", "the gateway answered %d to a request serve answered with 200: %.300s", status, answer)
			c.evidence("gateway answer", answer)
		default:
			c.res.Held = append(c.res.Held, fmt.Sprintf("serve's answer failed or did not decode, the gateway answered %d", status))
		}
		return
	}
	got, ok := c.decodeFront(front, answer)
	if !ok {
		return
	}
	n := len(c.res.Problems)
	c.compare(served, got, first.Response, sc.Want.Finish != nil, optional)
	if len(c.res.Problems) > n && len(c.res.Evidence) == 0 {
		c.evidence("gateway answer", answer)
		c.evidence("served upstream", first.Response)
	}
	c.res.Held = append(c.res.Held, fmt.Sprintf("upstream request: %d tool(s), tool choice and parallel flag as sent", len(req.Tools)),
		fmt.Sprintf("answer: %d call(s), text and finish %q as served", len(got.Calls()), got.Finish))
	if len(got.Calls()) == 0 || len(served.Calls()) == 0 || served.Error != nil {
		return
	}
	c.followUp(front, upstream, req, got, name)
}

// FirstRequest is the request a case sends through the gateway: the
// scenario's tools (serve.ClientTools), its tool choice and parallel flag
// when it has a canonical request, and one user message.
func FirstRequest(sc *scenarios.Scenario, front string, stream bool) *core.Request {
	ep, _ := providers.HTTP(front)
	req := &core.Request{
		Model:     ep.DefaultModel,
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart(UserPrompt)}}},
		Tools:     serve.ClientTools(sc),
		MaxTokens: 1024,
		Stream:    stream,
	}
	if sc.Request != nil {
		req.ToolChoice, req.ParallelToolCalls = sc.Request.ToolChoice, sc.Request.ParallelToolCalls
	}
	return req
}

// eventList replays decoded events.
type eventList struct {
	events []core.Event
	next   int
}

func (l *eventList) Next() (core.Event, error) {
	if l.next == len(l.events) {
		return core.Event{}, io.EOF
	}
	l.next++
	return l.events[l.next-1], nil
}

// drain decodes every event of s, at most MaxEvents.
func drain(s core.EventStream) (eventList, error) {
	var l eventList
	for {
		e, err := s.Next()
		if errors.Is(err, io.EOF) {
			return l, nil
		}
		if err != nil {
			return l, err
		}
		if len(l.events) == MaxEvents {
			return l, fmt.Errorf("more than %d events", MaxEvents)
		}
		l.events = append(l.events, e)
	}
}

func roundTrip(a core.Adapter, req *core.Request) (*core.Request, error) {
	b, err := a.EncodeRequest(req)
	if err != nil {
		return nil, err
	}
	return a.DecodeRequest(b)
}

// send posts body to the gateway in the front protocol and returns the
// status and the answer.
func (c *checker) send(model string, body []byte) (int, []byte, error) {
	ep, _ := providers.HTTP(c.t.Front)
	r, err := http.NewRequestWithContext(c.ctx, ep.Method, ep.URL(c.t.URL, model, c.res.Stream), bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	r.Header.Set("Content-Type", ep.ContentType)
	if ep.KeyHeader != "" {
		r.Header.Set(ep.KeyHeader, ep.KeyPrefix+serve.ClientKey)
	}
	for k, v := range ep.ExtraHeaders {
		r.Header.Set(k, v)
	}
	for k, vs := range c.t.Header {
		r.Header[k] = slices.Clone(vs)
	}
	resp, err := c.t.Client.Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return resp.StatusCode, b, fmt.Errorf("read the gateway's answer: %w", err)
	}
	if len(b) > MaxResponse {
		return resp.StatusCode, b[:MaxResponse], fmt.Errorf("the gateway's answer is longer than %d bytes", MaxResponse)
	}
	return resp.StatusCode, b, nil
}

// decodeBody decodes what serve sent with the reference decoder; a stream
// cut or failed on purpose gives the calls it completed. A stream whose
// connection serve dropped (dropped) is read to an unexpected EOF, as the
// gateway read it: a Bedrock tool block stopped last is then left
// incomplete, since Converse says that the token limit cut it only in
// the messageStop that follows (B11, docs/protocols.md).
func decodeBody(a core.Adapter, body []byte, stream, dropped bool) *core.Response {
	if stream {
		var r io.Reader = bytes.NewReader(body)
		if dropped {
			r = serve.BrokenReader(body)
		}
		resp, _ := core.Collect(a.DecodeStream(r))
		return resp
	}
	resp, err := a.DecodeResponse(body)
	if err != nil {
		return &core.Response{Error: &core.ProviderError{Message: err.Error()}}
	}
	return resp
}

// decodeFront reads the gateway's answer strictly: the protocol's own
// rules (CheckStream), then the reference decoder, where any error is a
// problem.
func (c *checker) decodeFront(front core.Adapter, answer []byte) (*core.Response, bool) {
	if !c.res.Stream {
		resp, err := front.DecodeResponse(answer)
		if err != nil {
			c.add("I02", "the gateway's %s response does not decode: %v", c.t.Front, err)
			c.evidence("gateway answer", answer)
			return nil, false
		}
		return resp, true
	}
	for _, p := range CheckStream(c.t.Front, answer) {
		c.res.Problems = append(c.res.Problems, p)
	}
	events, err := drain(front.DecodeStream(bytes.NewReader(answer)))
	if err != nil {
		c.add("I01", "the gateway's %s stream is not valid: %v", c.t.Front, err)
	}
	// Calls that came back broken are graded against the served ones
	// (compare); a stream without a finish is invalid in itself.
	resp, err := core.Collect(&events)
	if errors.Is(err, core.ErrTruncated) && resp.Error == nil {
		c.add("I01", "the gateway's %s stream ends without a finish", c.t.Front)
	}
	if len(c.res.Problems) > 0 {
		c.evidence("gateway stream", answer)
	}
	return resp, true
}

// compare holds the gateway's answer to what serve sent: the same complete
// calls in order (ids compared where the upstream bytes carry them), none
// of the incomplete ones, the same text and a finish that agrees.
//
// finishStated reports that the scenario states the finish
// (want/finish.txt); where it does not and the reference decoder reads
// the served finish as other, the finish is not graded. optional are the
// calls complete on the wire that conform's decoder cut at its own limit
// (serve.SplitLimitCalls, A12): the gateway may carry them, with their
// arguments, or refuse them with an error, but not lose them silently.
func (c *checker) compare(served, got *core.Response, sentBytes []byte, finishStated bool, optional []core.Call) {
	want, have := served.Calls(), got.Calls()
	failed := got.Error != nil || got.Finish == core.FinishError
	refused := false
	for _, o := range optional {
		i := slices.IndexFunc(have, func(h core.Call) bool { return h.Name == o.Name })
		switch {
		case i >= 0:
			if !jsonEqual(o.Arguments, have[i].Arguments) {
				c.add("I04", "call %s (%s): arguments %s served, %s came back", o.ID, o.Name, compact(o.Arguments), compact(have[i].Arguments))
			}
			have = slices.Delete(slices.Clone(have), i, i+1)
		case slices.ContainsFunc(got.Incomplete, func(h core.Call) bool { return o.ID != "" && h.ID == o.ID || h.Name == o.Name }):
			// Carried, and cut again by the front's reference decoder at
			// the same limit: its arguments cannot be read back.
			c.res.Held = append(c.res.Held, fmt.Sprintf("call %s carried past conform's own decoder limit (its arguments not read back)", o.Name))
		case failed:
			refused = true
		default:
			c.add("C03", "call %s (%s), complete on the wire, came back neither complete nor refused with an error", o.ID, o.Name)
		}
	}
	for _, inc := range got.Incomplete {
		if i := slices.IndexFunc(want, func(w core.Call) bool { return w.ID == inc.ID || w.Name == inc.Name }); i >= 0 {
			c.add("I04", "call %d (%s): arguments %s served, came back incomplete as %q", i, inc.Name, compact(want[i].Arguments), inc.Original)
		}
	}
	if len(want) != len(have) {
		c.add("C03", "%d complete call(s) served upstream, %d came back: %s", len(want), len(have), callList(have))
	}
	for i := range min(len(want), len(have)) {
		w, h := want[i], have[i]
		if w.Name != h.Name {
			c.add("I06", "call %d: name %q served, %q came back", i, w.Name, h.Name)
		}
		if !jsonEqual(w.Arguments, h.Arguments) {
			c.add("I04", "call %d (%s): arguments %s served, %s came back", i, w.Name, compact(w.Arguments), compact(h.Arguments))
		}
		if w.ID != "" && bytes.Contains(sentBytes, []byte(w.ID)) && carries(c.t.Front, w) && h.ID != w.ID {
			c.add("D03", "call %d (%s): id %q served, %q came back", i, w.Name, w.ID, h.ID)
		}
	}
	for _, inc := range served.Incomplete {
		for _, h := range have {
			if inc.Name != "" && h.Name == inc.Name && (inc.ID == "" || inc.ID == h.ID) && !slices.ContainsFunc(want, func(w core.Call) bool { return w.Name == h.Name }) {
				c.add("B09", "call %s was incomplete upstream and came back as complete: %s", inc.Name, compact(h.Arguments))
			}
		}
	}
	if served.Text() != got.Text() {
		c.add("F06", "text differs from what was served (-served +came back):\n%s", cmp.Diff(served.Text(), got.Text()))
	}
	switch {
	case refused:
		// A call past the gateway's own limit, refused with an error: it
		// passes by failing, as a client that refuses it does.
		c.res.Held = append(c.res.Held, "a call past the gateway's own limit refused with an error")
		c.res.ByFailing = true
	case servedFailed(served, c.res.Stream):
		// An upstream error, an error finish or a stream cut before its
		// finish: the front must say the turn failed.
		if !failed {
			c.add("I03", "serve's answer failed (%s), the gateway's carries no error (finish %q)", failure(served), got.Finish)
		}
		// With the calls completed before the failure carried back (and
		// held to the served ones above), the pass shows more than an
		// error.
		c.res.ByFailing = len(have) == 0
	case got.Finish == served.Finish:
	case len(have) > 0 && got.Finish == core.FinishToolCalls:
		// A gateway may correct a finish that came with calls (F01).
	case len(have) == 0 && served.Finish == core.FinishOther && !finishStated && got.Finish != core.FinishToolCalls:
		// A finish the reference decoder reads as other (an empty Gemini
		// STOP) where the scenario states none: the scenario leaves the
		// finish to the adapter (F05).
	case len(have) == 0 && got.Text() == "" && got.Finish == core.FinishOther && (served.Finish == core.FinishStop || served.Finish == core.FinishToolCalls):
		// An empty stop: Gemini's reference decoder reads a STOP with no
		// part as other (F05).
	case len(have) == 0 && served.Finish == core.FinishToolCalls && got.Finish == core.FinishStop:
		// A tool_calls finish without a call, corrected to stop (F03).
	case len(have) > 0:
		c.add("I05", "finish %q with %d call(s); serve sent %q", got.Finish, len(have), served.Finish)
	case got.Finish == core.FinishToolCalls:
		c.add("F03", "finish %q without calls; serve sent %q", got.Finish, served.Finish)
	default:
		c.add("F04", "finish %q, serve sent %q", got.Finish, served.Finish)
	}
}

// servedFailed reports whether serve's answer failed: an error, an error
// finish, a stream cut before its finish, or a tool_calls finish whose
// calls all arrived incomplete. A gateway must say so, by an error in its
// answer or (for a whole response) an error status.
func servedFailed(r *core.Response, stream bool) bool {
	return r.Error != nil || r.Finish == core.FinishError || r.Finish == "" && stream ||
		r.Finish == core.FinishToolCalls && len(r.Calls()) == 0 && len(r.Incomplete) > 0
}

// failure says how a served answer failed.
func failure(r *core.Response) string {
	switch {
	case r.Error != nil:
		return "error: " + r.Error.Message
	case r.Finish == "":
		return "no finish"
	}
	return "finish " + string(r.Finish)
}

// carries reports whether the front protocol's wire carries call's id as
// it is: a response with the call, encoded and decoded by fresh adapters,
// gives it back (Mistral's wire takes only 9-character ids, D05, so its
// adapter maps others).
func carries(front string, call core.Call) bool {
	enc, err1 := providers.Lookup(front)
	dec, err2 := providers.Lookup(front)
	if err1 != nil || err2 != nil {
		return false
	}
	b, err := enc.EncodeResponse(&core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(call)}}, Finish: core.FinishToolCalls})
	if err != nil {
		return false
	}
	resp, err := dec.DecodeResponse(b)
	return err == nil && len(resp.Calls()) == 1 && resp.Calls()[0].ID == call.ID
}

// gradeUpstreamRequest holds the first request the gateway sent upstream
// to the scenario's request as the upstream protocol carries it.
func (c *checker) gradeUpstreamRequest(upstream core.Adapter, want *core.Request, ex Exchange) {
	got, err := upstream.DecodeRequest(ex.Body)
	if err != nil {
		c.add("I02", "the request sent upstream is not a %s request: %v", c.t.Upstream, err)
		c.evidence("upstream request", ex.Body)
		return
	}
	n := len(c.res.Problems)
	if d := cmp.Diff(toolNames(want.Tools), toolNames(got.Tools)); d != "" {
		c.add("E04", "tools sent upstream differ from the request's (-want +got):\n%s", d)
	}
	for _, w := range want.Tools {
		for _, g := range got.Tools {
			if g.Name == w.Name && !sameSchema(w.InputSchema, g.InputSchema) {
				c.add("H01", "tool %s: schema sent upstream %s, want %s", w.Name, compact(g.InputSchema), compact(w.InputSchema))
			}
		}
	}
	if d := cmp.Diff(effectiveToolChoice(want), effectiveToolChoice(got)); d != "" {
		c.add("F08", "tool choice sent upstream differs (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want.ParallelToolCalls, got.ParallelToolCalls); d != "" {
		c.add("H04", "parallel flag sent upstream differs (-want +got):\n%s", d)
	}
	if len(c.res.Problems) > n {
		c.evidence("upstream request", ex.Body)
	}
}

// effectiveToolChoice is a request's tool choice with an absent one read
// as the provider's default, which for a request with tools is auto in
// every protocol that has a tool choice (the API references of Anthropic
// Messages, tool_choice; OpenAI Chat Completions and Responses,
// tool_choice; Gemini, FunctionCallingConfig mode AUTO; Converse,
// toolChoice; Mistral and Cohere v2, tool_choice); Ollama has none. A
// gateway that writes the default out changes nothing.
func effectiveToolChoice(r *core.Request) *core.ToolChoice {
	if r.ToolChoice == nil && len(r.Tools) > 0 {
		return &core.ToolChoice{Mode: core.ToolChoiceAuto}
	}
	return r.ToolChoice
}

// followUp sends the calls back with their results (each result the
// echo of its call's arguments, as the client protocol asks, in the form
// formFor picks for the case: as the encoder writes them, marked as
// errors, or in another content form of the protocol's) and
// takes serve's grade of what the gateway sent upstream; where both
// protocols carry a result's error flag, it must arrive as sent (I07).
func (c *checker) followUp(front, upstream core.Adapter, first *core.Request, got *core.Response, name string) {
	form := formFor(c.res.Name, front)
	req := *first
	req.Messages = slices.Clone(first.Messages)
	assistant := core.Message{Role: core.RoleAssistant}
	for _, p := range got.Message.Parts {
		if p.Kind == core.PartText && p.Text == "" {
			continue
		}
		assistant.Parts = append(assistant.Parts, p)
	}
	results := core.Message{Role: core.RoleTool}
	for _, call := range got.Calls() {
		results.Parts = append(results.Parts, core.ResultPart(core.Result{CallID: call.ID, Name: call.Name, Content: []core.Part{core.TextPart(string(call.Arguments))}, IsError: form.isError}))
	}
	req.Messages = append(req.Messages, assistant, results)
	body, err := front.EncodeRequest(&req)
	if err != nil {
		c.add("I02", "the %s adapter cannot encode the follow-up of the gateway's calls: %v", c.t.Front, err)
		return
	}
	if form.rewrite != nil {
		if body, err = form.rewrite(body); err != nil {
			c.add("setup", "follow-up with results in %s: %v", form.name, err)
			return
		}
	}
	before := len(c.up.Exchanges())
	status, answer, err := c.send(req.Model, body)
	if err != nil {
		c.add("I03", "follow-up: %v", err)
		return
	}
	v, _ := c.up.Verdict(name)
	exs := c.up.Exchanges()
	if len(exs) == before || v.FollowUps == 0 {
		c.add(missingRule(c.t.Upstream), "follow-up: the gateway answered %d and sent no follow-up with tool results upstream", status)
		c.evidence("gateway answer to the follow-up", answer)
		return
	}
	n := len(c.res.Problems)
	for _, p := range v.Problems {
		if p.Rule == serve.EchoRule {
			p.Rule = "G10" // the result's content changed on the way
			p.Contract = "a tool result reaches the upstream as the client sent it"
		}
		c.res.Problems = append(c.res.Problems, scenarios.Problem{Rule: p.Rule, Message: "follow-up: " + p.Message, Contract: p.Contract})
	}
	for _, er := range v.Errors {
		c.add("I02", "follow-up: serve refused the request: %s", er)
	}
	c.gradeErrorFlags(front, upstream, results.Results(), exs[len(exs)-1].Body)
	if status != http.StatusOK {
		c.add("I03", "follow-up: the gateway answered %d", status)
	} else if final, ok := c.decodeFront(front, answer); ok && !strings.Contains(final.Text(), serve.DefaultAnswer) {
		c.add("I03", "follow-up: the final answer %q did not come back (text %q)", serve.DefaultAnswer, final.Text())
	}
	if len(c.res.Problems) > n {
		c.evidence("upstream follow-up", exs[len(exs)-1].Body)
	}
	c.res.Held = append(c.res.Held, fmt.Sprintf("follow-up graded upstream: %d result(s) sent as %s, history as served", len(got.Calls()), form.name))
}

// gradeErrorFlags holds the results the gateway sent upstream to the
// error flags of those it was given, in order, where both protocols carry
// the flag: a failed call must not reach the model as a normal result
// (I07), nor a normal one as a failure.
func (c *checker) gradeErrorFlags(front, upstream core.Adapter, sent []core.Result, body []byte) {
	if !carriesErrorFlag(front) || !carriesErrorFlag(upstream) {
		return
	}
	req, err := upstream.DecodeRequest(body)
	if err != nil {
		return // the request's other faults are serve's to grade
	}
	got := lastResults(req)
	for i := range min(len(sent), len(got)) {
		switch {
		case sent[i].IsError && !got[i].IsError:
			c.add("I07", "follow-up: result %d (call %s) was sent as an error and went upstream as a normal result: its error flag was dropped", i+1, sent[i].CallID)
		case !sent[i].IsError && got[i].IsError:
			c.add("I07", "follow-up: result %d (call %s) was sent as a normal result and went upstream marked as an error", i+1, sent[i].CallID)
		}
	}
}

// missingRule names the rule a missing follow-up breaks in protocol p, as
// its descriptor says (Grading.MissingResult).
func missingRule(p string) string {
	d, _ := providers.Describe(p)
	return d.Grading.MissingResult
}

func toolNames(tools []core.ToolSpec) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func callList(calls []core.Call) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, c.Name+compact(c.Arguments))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// jsonEqual compares two JSON texts as JSON (jsonvalue.EqualText); text
// that is not JSON equals only the same bytes.
func jsonEqual(a, b json.RawMessage) bool {
	return jsonvalue.EqualText(a, b) || bytes.Equal(a, b)
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
