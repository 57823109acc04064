package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/protocol"
	"github.com/toolconform/conform/serve"
)

// Limits of the proxy.
const (
	// MaxBody bounds a request body and a whole upstream response.
	MaxBody = 16 << 20
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 64 << 10
)

// The default timeouts (see Options). Each is an idle timeout, a bound
// on one wait, never on a whole exchange: a healthy generation that keeps
// sending may last as long as it likes.
const (
	DefaultHeaderTimeout       = 10 * time.Second
	DefaultBodyTimeout         = 30 * time.Second
	DefaultIdleTimeout         = 60 * time.Second
	DefaultUpstreamIdleTimeout = 10 * time.Minute
)

// ErrTooLarge reports a body or stream past the proxy's limits.
var ErrTooLarge = errors.New("proxy: too large")

// ErrUpstreamIdle reports an upstream that sent nothing for
// Options.UpstreamIdleTimeout.
var ErrUpstreamIdle = errors.New("proxy: upstream idle")

// Options configure a proxy.
type Options struct {
	// Front and Upstream name the protocols (providers.Names).
	Front, Upstream string
	// UpstreamURL is the upstream's base URL, such as http://127.0.0.1:8080.
	UpstreamURL string
	// Key is the upstream API key when none of the upstream protocol's
	// key variables is set; "" sends none.
	Key string
	// Client sends upstream requests; nil means a client whose waits are
	// bounded by UpstreamIdleTimeout.
	Client *http.Client
	// Log receives one line per request (method, path, status, never a
	// header); nil discards.
	Log io.Writer

	// HeaderTimeout bounds the wait for a request's headers, BodyTimeout
	// each wait for more of its body, and IdleTimeout the wait for the
	// next request on a keep-alive connection (see Server).
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
	// UpstreamIdleTimeout bounds each wait for the upstream: for the
	// connection and its answer's headers, then for each read of its
	// body. Past it the exchange is abandoned with ErrUpstreamIdle.
	UpstreamIdleTimeout time.Duration
}

// withDefaults gives every zero or negative timeout its default.
func (o Options) withDefaults() Options {
	for _, t := range []struct {
		d   *time.Duration
		def time.Duration
	}{{&o.HeaderTimeout, DefaultHeaderTimeout}, {&o.BodyTimeout, DefaultBodyTimeout}, {&o.IdleTimeout, DefaultIdleTimeout}, {&o.UpstreamIdleTimeout, DefaultUpstreamIdleTimeout}} {
		if *t.d <= 0 {
			*t.d = t.def
		}
	}
	return o
}

// Proxy is the reference gateway; it is an http.Handler.
type Proxy struct {
	opts            Options
	front, upstream core.Adapter
	frontEP, upEP   providers.Endpoint
	key             string
	client          *http.Client
	frontErrors     protocol.ErrorStatuses
	upErrors        protocol.ErrorStatuses
	frontPlans      bool // the front protocol has a place for a plan
	upstreamPlans   bool // and the upstream protocol
	memory          memory
}

// New returns a proxy, or an error naming an unknown protocol or a bad
// upstream URL.
func New(opts Options) (*Proxy, error) {
	front, err := providers.Lookup(opts.Front)
	if err != nil {
		return nil, fmt.Errorf("proxy: front: %w", err)
	}
	upstream, err := providers.Lookup(opts.Upstream)
	if err != nil {
		return nil, fmt.Errorf("proxy: upstream: %w", err)
	}
	if !strings.HasPrefix(opts.UpstreamURL, "http://") && !strings.HasPrefix(opts.UpstreamURL, "https://") {
		return nil, fmt.Errorf("proxy: upstream URL %q: want http:// or https://", opts.UpstreamURL)
	}
	opts = opts.withDefaults()
	fd, _ := providers.Describe(opts.Front)
	ud, _ := providers.Describe(opts.Upstream)
	p := &Proxy{opts: opts, front: front, upstream: upstream, frontEP: fd.Endpoint, upEP: ud.Endpoint, frontErrors: fd.Errors, upErrors: ud.Errors, key: opts.Key, client: opts.Client}
	p.frontPlans, p.upstreamPlans = carriesPlans(opts.Front), carriesPlans(opts.Upstream)
	for _, name := range ud.KeyEnv {
		if v := os.Getenv(name); v != "" {
			p.key = v
			break
		}
	}
	if p.client == nil {
		idle := opts.UpstreamIdleTimeout
		p.client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: idle, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   idle,
			ResponseHeaderTimeout: idle,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   16,
			ForceAttemptHTTP2:     true,
		}}
	}
	return p, nil
}

// Server returns an http.Server that serves p with the listener's
// bounds: HeaderTimeout for a request's headers (ReadHeaderTimeout),
// IdleTimeout between requests on a keep-alive connection, and
// MaxHeaderBytes; HTTP/1.1 and h2c, as serve (serve.Protocols). BodyTimeout is applied by ServeHTTP to each read of the
// body, so that no deadline is left on a connection while a stream is
// written (http.Server.ReadTimeout would end a long stream's request).
// There is no write timeout: a stream lasts as long as the upstream's.
func (p *Proxy) Server() *http.Server {
	return &http.Server{
		Handler:           p,
		ReadHeaderTimeout: p.opts.HeaderTimeout,
		IdleTimeout:       p.opts.IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		Protocols:         serve.Protocols(),
	}
}

// carriesPlans reports whether the named protocol has a place for a plan:
// its encoder writes one that its decoder reads back as a plan (an encoder
// without that place refuses it, core.ErrUnsupported).
func carriesPlans(name string) bool {
	a, err := providers.Lookup(name)
	if err != nil {
		return false
	}
	b, err := a.EncodeResponse(&core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartPlan, Text: "plan"}}}, Finish: core.FinishStop})
	if err != nil {
		return false
	}
	r, err := a.DecodeResponse(b)
	return err == nil && len(r.Message.Parts) == 1 && r.Message.Parts[0].Kind == core.PartPlan
}

// dropPlans removes the plan parts of req's messages and returns how many
// there were.
func dropPlans(req *core.Request) int {
	n := 0
	for i := range req.Messages {
		m := &req.Messages[i]
		kept := m.Parts[:0:0]
		for _, part := range m.Parts {
			if part.Kind == core.PartPlan {
				n++
				continue
			}
			kept = append(kept, part)
		}
		m.Parts = kept
	}
	return n
}

// proxyError is a failure answered with status and an error body in the
// front protocol's shape: the proxy's own (type "proxy_error", or the
// front's type for status), or the upstream's, translated.
type proxyError struct {
	status int
	pe     core.ProviderError
}

func (e *proxyError) Error() string { return e.pe.Message }

func failf(status int, format string, args ...any) *proxyError {
	return &proxyError{status: status, pe: core.ProviderError{Type: "proxy_error", Message: fmt.Sprintf(format, args...)}}
}

// ServeHTTP translates one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status, err := p.serve(w, r)
	if err != nil {
		pe := &proxyError{status: http.StatusBadGateway, pe: core.ProviderError{Type: "proxy_error", Message: err.Error()}}
		errors.As(err, &pe)
		if status == 0 {
			status = pe.status
			p.writeError(w, pe)
		}
	}
	if p.opts.Log != nil {
		msg := ""
		if err != nil {
			msg = ": " + err.Error()
		}
		fmt.Fprintf(p.opts.Log, "conform proxy: %s %s %d%s\n", r.Method, r.URL.Path, status, msg)
	}
}

// writeError answers with e's status and e's error as the front
// protocol's error body (its EncodeResponse of an error response). The
// error's type is the front protocol's type for that status when the
// front's descriptor names one and e's type is not already one of the
// front's, so that a client of the front reads the failure in its own
// terms.
func (p *Proxy) writeError(w http.ResponseWriter, e *proxyError) {
	pe := e.pe
	if _, known := p.frontErrors.Types[pe.Type]; !known {
		if t := p.frontErrorType(e.status); t != "" {
			pe.Type = t
		}
	}
	body, err := p.front.EncodeResponse(&core.Response{Error: &pe, Finish: core.FinishError})
	if err != nil {
		body, _ = json.Marshal(map[string]any{"error": map[string]string{"type": pe.Type, "message": pe.Message}})
	}
	w.Header().Set("Content-Type", p.frontEP.ContentType)
	w.WriteHeader(e.status)
	w.Write(body)
}

// frontErrorType returns the front protocol's error type for status, the
// first in name order, or "".
func (p *Proxy) frontErrorType(status int) string {
	var types []string
	for t, s := range p.frontErrors.Types {
		if s == status {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	if len(types) == 0 {
		return ""
	}
	return types[0]
}

// upstreamError translates an upstream answer that is not 200: the
// upstream protocol's error body, read by its adapter, keeps the status
// and is written in the front's shape; a body the adapter cannot read as
// an error is named by its status and first bytes.
func (p *Proxy) upstreamError(resp *http.Response) *proxyError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	e := &proxyError{status: resp.StatusCode}
	if e.status < 400 || e.status > 599 {
		e.status = http.StatusBadGateway
	}
	if r, err := p.upstream.DecodeResponse(b); err == nil && r.Error != nil {
		e.pe = *r.Error
		return e
	}
	const quoted = 200
	snippet := string(b)
	if len(snippet) > quoted {
		snippet = snippet[:quoted] + "..."
	}
	e.pe = core.ProviderError{Type: "upstream_error", Message: fmt.Sprintf("the %s upstream answered status %d with a body that is not its error: %q", p.opts.Upstream, resp.StatusCode, snippet)}
	return e
}

// readBody reads r's body, at most MaxBody+1 bytes, each read within
// BodyTimeout of the last, then clears the connection's read deadline.
func (p *Proxy) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	var b bytes.Buffer
	lr := io.LimitReader(r.Body, MaxBody+1)
	buf := make([]byte, 32<<10)
	for {
		// A writer without deadlines (a test recorder) reads unbounded.
		rc.SetReadDeadline(time.Now().Add(p.opts.BodyTimeout))
		n, err := lr.Read(buf)
		b.Write(buf[:n])
		if err == io.EOF {
			rc.SetReadDeadline(time.Time{})
			return b.Bytes(), nil
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = fmt.Errorf("no byte for %v (the body timeout)", p.opts.BodyTimeout)
			}
			return nil, err
		}
	}
}

// serve answers r and returns the status written. A returned error
// with status 0 means the answer was already under way.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) (int, error) {
	route, ok := providers.MatchPath(r.URL.Path)
	if !ok || !slices.Contains(route.Protocols, p.opts.Front) {
		return 0, failf(http.StatusNotFound, "path %s is not a %s path (want %s)", r.URL.Path, p.opts.Front, p.frontEP.Path)
	}
	if r.Method != p.frontEP.Method {
		return 0, failf(http.StatusMethodNotAllowed, "method %s, want %s", r.Method, p.frontEP.Method)
	}
	body, err := p.readBody(w, r)
	if err != nil {
		return 0, failf(http.StatusBadRequest, "read request body: %v", err)
	}
	if len(body) > MaxBody {
		return 0, failf(http.StatusRequestEntityTooLarge, "request body: %v (more than %d bytes)", ErrTooLarge, MaxBody)
	}
	req, err := p.front.DecodeRequest(body)
	if err != nil {
		return 0, failf(http.StatusBadRequest, "decode %s request: %v", p.opts.Front, err)
	}
	stream := req.Stream
	if route.ByPath {
		stream = route.Stream
	}
	req.Stream = stream
	model := req.Model
	if model == "" {
		model = route.Model
	}
	if model == "" {
		model = p.upEP.DefaultModel
	}
	req.Model = model
	p.restore(req)
	if !p.upstreamPlans {
		// The upstream's encoder refuses a plan it has no place for;
		// sent as text it would become answer text (G16).
		if n := dropPlans(req); n > 0 {
			p.logf("%d plan part(s) of the %s request left out: %s has no place for a plan (G16)", n, p.opts.Front, p.opts.Upstream)
		}
	}
	out, err := p.upstream.EncodeRequest(req)
	if err != nil {
		return 0, failf(http.StatusBadRequest, "encode %s request: %v", p.opts.Upstream, err)
	}
	uctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	ureq, err := http.NewRequestWithContext(uctx, p.upEP.Method, p.upEP.URL(p.opts.UpstreamURL, model, stream), bytes.NewReader(out))
	if err != nil {
		return 0, failf(http.StatusBadGateway, "upstream request: %v", err)
	}
	ureq.Header.Set("Content-Type", p.upEP.ContentType)
	if p.key != "" && p.upEP.KeyHeader != "" {
		ureq.Header.Set(p.upEP.KeyHeader, p.upEP.KeyPrefix+p.key)
	}
	for k, v := range p.upEP.ExtraHeaders {
		ureq.Header.Set(k, v)
	}
	for k, vs := range r.Header {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Conform-") {
			ureq.Header[k] = slices.Clone(vs)
		}
	}
	resp, err := p.client.Do(ureq)
	if err != nil {
		status := http.StatusBadGateway
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			status = http.StatusGatewayTimeout
		}
		return 0, failf(status, "upstream: %v", err)
	}
	defer resp.Body.Close()
	resp.Body = newIdleBody(uctx, resp.Body, p.opts.UpstreamIdleTimeout, cancel)
	if resp.StatusCode != http.StatusOK {
		return 0, p.upstreamError(resp)
	}
	if !stream {
		return p.whole(w, resp.Body)
	}
	if enc, ok := p.front.(liveEncoder); ok {
		return p.live(enc, w, resp.Body)
	}
	return p.stream(w, resp.Body)
}

// whole translates a whole response. An upstream error body is passed
// on as the front's, with the status the upstream API sends with it; a
// response that lost a call (one left incomplete, past a limit) or cannot
// be read is a 502 naming what was lost: never a clean answer with fewer
// calls than the upstream sent.
func (p *Proxy) whole(w http.ResponseWriter, body io.Reader) (int, error) {
	b, err := io.ReadAll(io.LimitReader(body, MaxBody+1))
	if err != nil {
		return 0, failf(http.StatusBadGateway, "read upstream response: %v", err)
	}
	if len(b) > MaxBody {
		return 0, failf(http.StatusBadGateway, "upstream response: %v (more than %d bytes)", ErrTooLarge, MaxBody)
	}
	resp, err := p.upstream.DecodeResponse(b)
	if err != nil {
		return 0, failf(http.StatusBadGateway, "decode %s response: %v", p.opts.Upstream, err)
	}
	if resp.Error != nil {
		return 0, &proxyError{status: p.upErrors.Status(b, resp.Error), pe: *resp.Error}
	}
	if len(resp.Incomplete) > 0 && !cutByFinish(resp.Finish, nil) {
		return 0, failf(http.StatusBadGateway, "%s", lostCalls(p.opts.Upstream, resp.Incomplete, nil))
	}
	p.normalise(resp)
	if resp.Finish == "" {
		return 0, failf(http.StatusBadGateway, "upstream %s response has no finish: it was cut", p.opts.Upstream)
	}
	if resp.Error != nil {
		return 0, &proxyError{status: http.StatusBadGateway, pe: *resp.Error}
	}
	out, err := p.front.EncodeResponse(resp)
	if err != nil {
		return 0, failf(http.StatusBadGateway, "encode %s response: %v", p.opts.Front, err)
	}
	p.rememberWireIDs(resp, out, false)
	w.Header().Set("Content-Type", p.frontEP.ContentType)
	w.WriteHeader(http.StatusOK)
	w.Write(out)
	return http.StatusOK, nil
}

// lostCalls describes calls the upstream sent that the proxy cannot pass
// on whole, with the error that says why.
func lostCalls(upstream string, calls []core.Call, err error) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = fmt.Sprintf("%s (id %q)", c.Name, c.ID)
	}
	msg := fmt.Sprintf("the %s upstream's call(s) %s arrived incomplete and are not passed on", upstream, strings.Join(names, ", "))
	if err != nil {
		msg += ": " + err.Error()
	}
	return msg
}

// cutByFinish reports whether a finish says why calls are incomplete: a
// length or content_filter finish cuts the turn, the calls it cut are
// left out (B11) and the finish tells the client. err is Collect's; a call
// lost any other way (a limit, a rejected chunk) is not excused.
func cutByFinish(finish core.FinishReason, err error) bool {
	if finish != core.FinishLength && finish != core.FinishContentFilter {
		return false
	}
	if err == nil {
		return true
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if !errors.Is(e, core.ErrIncomplete) || errors.Is(e, core.ErrLostChunk) {
			return false
		}
	}
	return true
}

// stream translates a stream: the upstream events are collected into a
// response (core.Collect), which is written as the front protocol's stream
// (see the package documentation). Whatever Collect reports — a call left
// incomplete or lost to a limit, text past its limit, a stream cut or
// unreadable — ends the written stream with an error event after what
// arrived whole, so the client never reads a clean turn that lost
// something.
func (p *Proxy) stream(w http.ResponseWriter, body io.Reader) (int, error) {
	resp, err := core.Collect(p.upstream.DecodeStream(body))
	if errors.Is(err, core.ErrTooLarge) {
		// Past Collect's limits the answer cannot be written whole, and
		// nothing is written yet: the front's error body says so.
		return 0, failf(http.StatusBadGateway, "upstream %s stream: %v", p.opts.Upstream, err)
	}
	lost := resp.Incomplete
	resp.Incomplete = nil
	p.normalise(resp)
	out := providers.ResponseEvents(p.opts.Front, resp)
	switch {
	case resp.Error != nil:
		if resp.Finish == core.FinishError {
			out = out[:len(out)-1] // the error ends the stream, not a finish
		}
		out = append(out, core.Event{Kind: core.EventError, Error: resp.Error})
	case (err != nil || len(lost) > 0) && !cutByFinish(resp.Finish, err):
		if out[len(out)-1].Finish == "" {
			// No finish came: the error ends the stream. A finish that
			// came (or that normalise gave the calls that arrived whole)
			// is written before the error, so that the front's client
			// closes those calls (a Chat Completions call ends at its
			// finish_reason) and then reads the error.
			out = out[:len(out)-1]
		}
		msg := fmt.Sprintf("upstream %s stream: %v", p.opts.Upstream, err)
		if len(lost) > 0 {
			msg = lostCalls(p.opts.Upstream, lost, err)
		}
		out = append(out, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "proxy_error", Message: msg}})
	}
	var b bytes.Buffer
	if err := p.front.EncodeStream(&b, out); err != nil {
		return 0, failf(http.StatusBadGateway, "encode %s stream: %v", p.opts.Front, err)
	}
	p.rememberWireIDs(resp, b.Bytes(), true)
	w.Header().Set("Content-Type", p.frontEP.StreamContentType)
	w.WriteHeader(http.StatusOK)
	w.Write(b.Bytes())
	return http.StatusOK, nil
}

// normalise readies an upstream response for the front encoder:
//
//   - the upstream's raw finish value is dropped: it means nothing in the
//     front protocol, whose encoder writes its own for the normalised
//     reason;
//   - calls that came with a finish other than tool_calls, length,
//     content_filter or error get tool_calls, which a client of any
//     protocol needs to run them (F01); a tool_calls finish without a
//     call becomes stop (F03; calls left incomplete never reach here, they
//     end the answer with an error, B09, B10);
//   - an error finish without an error gets one naming the upstream's
//     reason (F04), so that the front says the turn failed;
//   - plan parts are dropped when the front protocol has no place for
//     them (G16: a plan is not answer text);
//   - call signatures and the thinking before the calls are remembered
//     for the follow-up (G12, G13, G14);
//   - repaired arguments are logged (C09).
func (p *Proxy) normalise(resp *core.Response) {
	raw := resp.ProviderFinish
	resp.ProviderFinish = ""
	calls := resp.Calls()
	switch {
	case len(calls) > 0 && !slices.Contains([]core.FinishReason{core.FinishToolCalls, core.FinishLength, core.FinishContentFilter, core.FinishError}, resp.Finish):
		p.logf("finish %q (%s) with %d call(s) sent as tool_calls (F01)", resp.Finish, raw, len(calls))
		resp.Finish = core.FinishToolCalls
	case len(calls) == 0 && resp.Finish == core.FinishToolCalls:
		p.logf("finish tool_calls without a call sent as stop (F03)")
		resp.Finish = core.FinishStop
	}
	if resp.Finish == core.FinishError && resp.Error == nil {
		resp.Error = &core.ProviderError{Type: "upstream_error", Message: fmt.Sprintf("the upstream ended the turn with %q", raw)}
	}
	if !p.frontPlans {
		parts := resp.Message.Parts[:0]
		for _, part := range resp.Message.Parts {
			if part.Kind != core.PartPlan {
				parts = append(parts, part)
			}
		}
		resp.Message.Parts = parts
	}
	p.remember(resp)
	for _, c := range calls {
		if c.Repaired {
			p.logf("call %s %s: arguments %q repaired to %s (C09)", c.ID, c.Name, c.Original, c.Arguments)
		}
	}
}

// restore gives a follow-up back what the front protocol could not carry
// (see remember): call ids its wire rewrote (D05), call signatures (G13)
// and the thinking that came with the calls (G12, G14).
func (p *Proxy) restore(req *core.Request) {
	for mi := range req.Messages {
		m := &req.Messages[mi]
		firstCall := -1
		signed, thinking := false, false
		for pi := range m.Parts {
			part := &m.Parts[pi]
			if c := part.Call; c != nil {
				if id, ok := p.memory.get("id:" + c.ID); ok {
					c.ID = id.(string)
				}
				if c.Signature == "" {
					if sig, ok := p.memory.get("sig:" + c.ID); ok {
						c.Signature = sig.(string)
					}
				}
				if firstCall < 0 {
					firstCall = pi
				}
			}
			if r := part.Result; r != nil {
				if id, ok := p.memory.get("id:" + r.CallID); ok {
					r.CallID = id.(string)
				}
			}
			if part.Kind == core.PartThinking {
				thinking = true
				signed = signed || part.Signature != "" || part.Data != ""
			}
		}
		if m.Role != core.RoleAssistant || firstCall < 0 {
			continue
		}
		kept, ok := p.memory.get("thinking:" + m.Parts[firstCall].Call.ID)
		if !ok {
			continue
		}
		parts := kept.([]core.Part)
		keptSigned := slices.ContainsFunc(parts, func(t core.Part) bool { return t.Signature != "" || t.Data != "" })
		if thinking && (signed || !keptSigned) {
			continue
		}
		var out []core.Part
		for pi, part := range m.Parts {
			if pi == firstCall {
				out = append(out, parts...)
			}
			if part.Kind != core.PartThinking {
				out = append(out, part)
			}
		}
		m.Parts = out
	}
}

// remember keeps what a follow-up may need that the front protocol cannot
// carry: each call's signature, and the thinking before the first call
// under that call's id.
func (p *Proxy) remember(resp *core.Response) {
	var thinking []core.Part
	first := true
	for _, part := range resp.Message.Parts {
		switch {
		case part.Kind == core.PartThinking:
			thinking = append(thinking, part)
		case part.Call != nil && part.Call.ID != "":
			if part.Call.Signature != "" {
				p.memory.put("sig:"+part.Call.ID, part.Call.Signature)
			}
			if first && len(thinking) > 0 {
				p.memory.put("thinking:"+part.Call.ID, thinking)
			}
			first = false
		}
	}
}

// rememberWireIDs decodes what the proxy wrote with a fresh front adapter
// and remembers each call id the front's wire rewrote, to give the
// original back in the follow-up.
func (p *Proxy) rememberWireIDs(resp *core.Response, written []byte, stream bool) {
	fresh, err := providers.Lookup(p.opts.Front)
	if err != nil {
		return
	}
	var wire *core.Response
	if stream {
		wire, _ = core.Collect(fresh.DecodeStream(bytes.NewReader(written)))
	} else if wire, err = fresh.DecodeResponse(written); err != nil {
		return
	}
	orig, seen := resp.Calls(), wire.Calls()
	for i := range min(len(orig), len(seen)) {
		if orig[i].ID != "" && seen[i].ID != orig[i].ID {
			p.memory.put("id:"+seen[i].ID, orig[i].ID)
		}
	}
	// A client of the front protocol may rewrite the ids once more when
	// it sends them back (Bedrock's Converse takes only [a-zA-Z0-9_-]{1,64},
	// D04): send the calls through a fresh adapter's request encoder.
	if len(seen) == 0 {
		return
	}
	asst := core.Message{Role: core.RoleAssistant}
	results := core.Message{Role: core.RoleTool}
	for _, c := range seen {
		asst.Parts = append(asst.Parts, core.CallPart(c))
		results.Parts = append(results.Parts, core.ResultPart(core.Result{CallID: c.ID, Name: c.Name, Content: []core.Part{core.TextPart("r")}}))
	}
	enc, _ := providers.Lookup(p.opts.Front)
	dec, _ := providers.Lookup(p.opts.Front)
	b, err := enc.EncodeRequest(&core.Request{Model: p.frontEP.DefaultModel, Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("u")}}, asst, results}})
	if err != nil {
		return
	}
	req, err := dec.DecodeRequest(b)
	if err != nil || len(req.Messages) < 2 {
		return
	}
	for _, m := range req.Messages {
		if m.Role != core.RoleAssistant {
			continue
		}
		back := m.Calls()
		for i := range min(len(orig), len(back)) {
			if orig[i].ID != "" && back[i].ID != orig[i].ID {
				p.memory.put("id:"+back[i].ID, orig[i].ID)
			}
		}
	}
}

// MaxRemembered bounds the entries a proxy remembers for follow-ups
// (call ids, signatures, thinking); past it the oldest are forgotten.
const MaxRemembered = 10000

// memory is a bounded map, the oldest key forgotten first.
type memory struct {
	mu    sync.Mutex
	byKey map[string]any
	order []string
}

func (m *memory) put(key string, v any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byKey == nil {
		m.byKey = map[string]any{}
	}
	if _, ok := m.byKey[key]; !ok {
		m.order = append(m.order, key)
	}
	m.byKey[key] = v
	if len(m.order) > MaxRemembered {
		delete(m.byKey, m.order[0])
		m.order = m.order[1:]
	}
}

func (m *memory) get(key string) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.byKey[key]
	return v, ok
}

func (p *Proxy) logf(format string, args ...any) {
	if p.opts.Log != nil {
		fmt.Fprintf(p.opts.Log, "conform proxy: "+format+"\n", args...)
	}
}

// idleBody is an upstream body whose every read must come within idle of
// the last: past it, the exchange's context is cancelled with
// ErrUpstreamIdle and the read fails with that cause.
type idleBody struct {
	io.ReadCloser
	idle  time.Duration
	timer *time.Timer
	ctx   context.Context
}

func newIdleBody(ctx context.Context, body io.ReadCloser, idle time.Duration, cancel context.CancelCauseFunc) *idleBody {
	b := &idleBody{ReadCloser: body, idle: idle, ctx: ctx}
	b.timer = time.AfterFunc(idle, func() {
		cancel(fmt.Errorf("%w: no byte for %v (the upstream idle timeout)", ErrUpstreamIdle, idle))
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.idle)
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); errors.Is(cause, ErrUpstreamIdle) {
			err = cause
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.ReadCloser.Close()
}
