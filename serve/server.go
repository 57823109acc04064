package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// The headers and paths of the server's own protocol.
const (
	// ScenarioHeader names the scenario a request is for.
	ScenarioHeader = "X-Conform-Scenario"
	// ChaosHeader replaces the server's chaos options for one request.
	ChaosHeader = "X-Conform-Chaos"
	// ScenarioPrefix starts a path that names its scenario:
	// /scenario/<protocol>/<category>/<case>/<protocol path>.
	ScenarioPrefix = "/scenario/"
	// VerdictsPath answers GET with the verdicts as JSON.
	VerdictsPath = "/_conform/verdicts"
	// ScenariosPath answers GET with the names of the servable scenarios.
	ScenariosPath = "/_conform/scenarios"
	// ThreadsBeta is the anthropic-beta value of Anthropic message threads.
	ThreadsBeta = "message-threads-2026-08-12"
)

// DefaultMaxBody is the largest request body the server reads.
const DefaultMaxBody = 8 << 20

// DefaultAnswer is the text of the final answer sent after a follow-up.
const DefaultAnswer = "conform: the tool results were received"

// Errors of the server, sent to clients as the protocol-neutral JSON body
// {"error":{"type":...,"message":...}} with a matching status.
var (
	ErrUnknownScenario = errors.New("unknown scenario")
	ErrNoScenario      = errors.New("no scenario chosen")
	ErrWrongPath       = errors.New("path does not serve the scenario's protocol")
	ErrNotServable     = errors.New("scenario has no response to serve")
	ErrTooLarge        = errors.New("request body too large")
	ErrNotApplicable   = errors.New("scenario not applicable to this request")
)

// Options configure a Server.
type Options struct {
	// Scenarios are the cases the server can serve. Cases of kind request
	// and history, which hold no response, are left out.
	Scenarios []*scenarios.Scenario
	// Scenario is the name of the case served when a request names none
	// (see the package documentation for how a request names one).
	Scenario string
	// Chaos is applied to every response.
	Chaos Chaos
	// Log receives one line per request; nil discards. API keys are never
	// written to it.
	Log io.Writer
	// MaxBody bounds request bodies; 0 means DefaultMaxBody.
	MaxBody int64
	// Answer is the text of the final answer; "" means DefaultAnswer.
	Answer string
	// Echo grades tool results by the echo rule of the client protocol
	// (docs/client-protocol.md): each result is its call's arguments as
	// JSON text, and none is an error (GradeEcho). RunClient sets it.
	Echo bool
	// EchoErrors lets an echo result be marked as an error: gateway
	// grading sends some results as errors on purpose and checks itself
	// that the flag arrived.
	EchoErrors bool
}

// Server is the fake provider. It is an http.Handler; its zero value is
// not ready, use New.
type Server struct {
	opts  Options
	index map[string]entry
	names []string

	mu       sync.Mutex
	verdicts map[string]*Verdict
	threads  map[string]thread
	// responses are the OpenAI Responses conversations kept for
	// previous_response_id (G08), by response id.
	responses map[string]storedResponse
	maxKept   int // MaxKeptResponses; lowered by tests
	dropped   int // responses not kept for the limit
	// keptBytes is the size of the kept threads and responses
	// (messagesSize), at most maxKeptBytes (MaxKeptBytes; lowered by
	// tests).
	keptBytes, maxKeptBytes int
	// readTimeout replaces ReadTimeout and ReadHeaderTimeout when set
	// (tests).
	readTimeout time.Duration
	logMu       sync.Mutex
	nextID      int
}

// entry is one servable scenario under its protocol-qualified name.
type entry struct {
	sc       *scenarios.Scenario
	protocol string
	// requires are the request options its recorded bytes depend on.
	requires []requirement
}

// thread is a stored Anthropic message thread: the conversation so far,
// under the id of its last response.
type thread struct {
	name     string
	messages []core.Message
}

// New returns a server for the given options. A default scenario that is
// not among the servable ones is an error.
func New(opts Options) (*Server, error) {
	s := &Server{opts: opts, index: map[string]entry{}, verdicts: map[string]*Verdict{}, threads: map[string]thread{}, responses: map[string]storedResponse{}, maxKept: MaxKeptResponses, maxKeptBytes: MaxKeptBytes}
	if s.opts.MaxBody <= 0 {
		s.opts.MaxBody = DefaultMaxBody
	}
	if s.opts.Answer == "" {
		s.opts.Answer = DefaultAnswer
	}
	for _, sc := range opts.Scenarios {
		if !Servable(sc) {
			continue
		}
		for _, a := range providers.All() {
			if sc.Applies(a) {
				s.index[sc.NameFor(a.Name())] = entry{sc: sc, protocol: a.Name(), requires: requirementsOf(a.Name(), sc)}
			}
		}
	}
	for name := range s.index {
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	if opts.Scenario != "" {
		if _, ok := s.index[opts.Scenario]; !ok {
			return nil, fmt.Errorf("serve: %w %q (%d servable scenarios; GET %s lists them)", ErrUnknownScenario, opts.Scenario, len(s.names), ScenariosPath)
		}
	}
	return s, nil
}

// Servable reports whether a scenario holds a response the server can
// send: a stream or response case with provider bytes or canonical
// events or response.
func Servable(sc *scenarios.Scenario) bool {
	switch sc.Kind {
	case scenarios.KindStream:
		return len(sc.Body) > 0 || len(sc.Events) > 0
	case scenarios.KindResponse:
		return len(sc.Body) > 0 || sc.Response != nil
	}
	return false
}

// Names returns the protocol-qualified names of the servable scenarios,
// sorted.
func (s *Server) Names() []string { return slices.Clone(s.names) }

// Protocol returns the protocol of the named scenario.
func (s *Server) Protocol(name string) (string, bool) {
	e, ok := s.index[name]
	return e.protocol, ok
}

// Serve listens on addr (host must be a loopback address such as 127.0.0.1
// or ::1, localhost, or empty for 127.0.0.1; port 0 picks a free one), writes "conform serve: listening on URL" to the log
// and serves until ctx is done, then shuts down, waiting for open requests
// for up to five seconds.
func (s *Server) Serve(ctx context.Context, addr string) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	s.logf("conform serve: listening on %s", URL(ln))
	return s.ServeListener(ctx, ln)
}

// Listen opens a loopback listener on addr. Only loopback addresses are
// allowed: the server is a test fixture, not a service.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("serve: listen %q: %w", addr, err)
	}
	switch ip := net.ParseIP(host); {
	case host == "" || host == "localhost":
		host = "127.0.0.1"
	case ip == nil || !ip.IsLoopback():
		return nil, fmt.Errorf("serve: listen %q: host must be a loopback address such as 127.0.0.1 or ::1 (loopback only)", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return ln, nil
}

// URL returns the base URL of a listener opened by Listen.
func URL(ln net.Listener) string { return "http://" + ln.Addr().String() }

// ServeListener serves on ln until ctx is done, then shuts down as Serve
// does. It closes ln.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	hs := s.httpServer()
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		hs.Close()
	}
	<-done
	if err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, format+"\n", args...)
}

// httpError is an error with the status it is sent with.
type httpError struct {
	status int
	kind   string
	err    error
	// notApplicable marks a request the scenario does not apply to: the
	// verdict says so instead of listing an error.
	notApplicable bool
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func fail(status int, kind string, format string, args ...any) *httpError {
	return &httpError{status: status, kind: kind, err: fmt.Errorf(format, args...)}
}

// ServeHTTP answers one request; see the package documentation.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusWriter{ResponseWriter: w}
	name, status := "-", 0
	defer func() {
		// Deferred, so that a connection dropped on purpose is logged too.
		if rec.status != 0 {
			status = rec.status
		}
		// The path only: a key in the query never reaches the log. The
		// scenario's name is logged once, in scenario=, and cut to
		// maxLoggedName: a client chooses it, and an unknown one costs
		// one bounded line however long it is.
		path := cassettes.RedactURL(r.URL.Path)
		if rest, ok := strings.CutPrefix(path, ScenarioPrefix+name); ok && name != "" {
			path = ScenarioPrefix + "{scenario}" + rest
		}
		s.logf("conform serve: %s %s scenario=%s status=%d in %s", r.Method, clipLogged(path), clipLogged(name), status, time.Since(start).Round(time.Millisecond))
	}()
	name, status = s.handle(rec, r)
}

// maxLoggedName bounds the bytes of a scenario name or path in a log line.
const maxLoggedName = 200

// clipLogged cuts s to maxLoggedName bytes (at a rune boundary), saying
// how long it was.
func clipLogged(s string) string {
	if len(s) <= maxLoggedName {
		return s
	}
	cut := maxLoggedName
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", s[:cut], len(s))
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) (string, int) {
	switch r.URL.Path {
	case VerdictsPath:
		writeJSON(w, http.StatusOK, s.Verdicts())
		return "-", http.StatusOK
	case ScenariosPath:
		writeJSON(w, http.StatusOK, s.names)
		return "-", http.StatusOK
	}
	name, path, herr := s.choose(r)
	if herr == nil && r.Method != http.MethodPost {
		herr = fail(http.StatusMethodNotAllowed, "invalid_request_error", "serve %s: method %s not allowed; use POST", r.URL.Path, r.Method)
	}
	var e entry
	var route providers.Route
	if herr == nil {
		e, route, herr = s.resolve(name, path)
	}
	var body []byte
	if herr == nil {
		body, herr = readBody(r, s.opts.MaxBody)
	}
	if herr == nil {
		herr = s.answer(w, r, name, e, route, body)
	}
	if herr != nil {
		// Only a scenario the server serves gets a verdict: a name
		// nobody can serve keeps nothing, however many requests use it.
		if _, known := s.index[name]; known && !herr.notApplicable {
			s.verdict(name, e.protocol, func(v *Verdict) { v.addError(herr.Error()) })
		}
		writeJSON(w, herr.status, map[string]any{"type": "error", "error": map[string]string{"type": herr.kind, "message": herr.Error()}})
		return name, herr.status
	}
	return name, 0
}

// choose finds the scenario a request is for and the protocol path left
// once a /scenario/ prefix is taken off.
func (s *Server) choose(r *http.Request) (name, path string, herr *httpError) {
	path = r.URL.Path
	if rest, ok := strings.CutPrefix(path, ScenarioPrefix); ok {
		segs := strings.SplitN(rest, "/", 4)
		if len(segs) < 4 {
			return "", path, fail(http.StatusNotFound, "not_found_error", "serve %s: %w: a %s path needs protocol/category/case and the protocol's path after it", path, ErrNoScenario, ScenarioPrefix)
		}
		name, path = strings.Join(segs[:3], "/"), "/"+segs[3]
	}
	if h := r.Header.Get(ScenarioHeader); h != "" {
		if name != "" && h != name {
			return "", path, fail(http.StatusBadRequest, "invalid_request_error", "serve %s: header %s names %q but the path names %q", r.URL.Path, ScenarioHeader, h, name)
		}
		name = h
	}
	if name == "" {
		name = s.opts.Scenario
	}
	if name == "" {
		return "", path, fail(http.StatusNotFound, "not_found_error", "serve %s: %w: send header %s, use a %s path, or start the server with a scenario", r.URL.Path, ErrNoScenario, ScenarioHeader, ScenarioPrefix)
	}
	return name, path, nil
}

func (s *Server) resolve(name, path string) (entry, providers.Route, *httpError) {
	e, ok := s.index[name]
	if !ok {
		return entry{}, providers.Route{}, fail(http.StatusNotFound, "not_found_error", "serve: %w %q (GET %s lists the %d known)", ErrUnknownScenario, name, ScenariosPath, len(s.names))
	}
	route, ok := providers.MatchPath(path)
	if !ok || !slices.Contains(route.Protocols, e.protocol) {
		ep, _ := providers.HTTP(e.protocol)
		return e, route, fail(http.StatusNotFound, "not_found_error", "serve %s: %w: scenario %s speaks %s, served at %s", path, ErrWrongPath, name, e.protocol, ep.Path)
	}
	return e, route, nil
}

func readBody(r *http.Request, limit int64) ([]byte, *httpError) {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fail(http.StatusBadRequest, "invalid_request_error", "serve: read request body: %v", err)
	}
	if int64(len(body)) > limit {
		return nil, fail(http.StatusRequestEntityTooLarge, "request_too_large", "serve: %w: more than %d bytes", ErrTooLarge, limit)
	}
	return body, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error":{"type":"api_error","message":"serve: encode reply"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// answer decodes the request and sends either the scenario's response or,
// for a follow-up, the final answer after grading it.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, name string, e entry, route providers.Route, body []byte) *httpError {
	a, err := providers.Lookup(e.protocol)
	if err != nil {
		return fail(http.StatusInternalServerError, "api_error", "serve: %v", err)
	}
	// Rules only the wire form shows are read from the body first: some
	// of them (G10, G15) keep the adapter from decoding it at all, and a
	// request refused for them is still a graded follow-up.
	shape := GradeBody(e.protocol, body)
	req, err := a.DecodeRequest(body)
	if err != nil {
		if len(shape) > 0 {
			// Refused as the API refuses it, and still graded on the rest
			// it carries, read from the body with the faults mended.
			problems := shape
			if mended := readableBody(e.protocol, body); mended != nil {
				if r, err := a.DecodeRequest(mended); err == nil && IsFollowUp(r) {
					problems = append(s.gradeRest(name, e, r, body), shape...)
				}
			}
			s.verdict(name, e.protocol, func(v *Verdict) {
				v.FollowUps++
				v.Graded = true
				v.setProblems(problems)
				v.setFollowUp(body)
			})
		}
		return fail(http.StatusBadRequest, "invalid_request_error", "serve %s: decode %s request: %v", name, e.protocol, err)
	}
	stream := req.Stream
	if route.ByPath {
		stream = route.Stream
	}
	arrayForm := arrayAsked(descriptor(e.protocol).Endpoint, stream, r.URL.Query())
	chaos := s.opts.Chaos
	if h := r.Header.Get(ChaosHeader); h != "" {
		if chaos, err = ParseChaos(h); err != nil {
			return fail(http.StatusBadRequest, "invalid_request_error", "serve: header %s: %v", ChaosHeader, err)
		}
	}
	th, herr := s.threadOf(e.protocol, body)
	if herr != nil {
		return herr
	}
	if th.cont {
		prev, ok := s.lookupThread(th.previous)
		if !ok {
			return fail(http.StatusNotFound, "not_found_error", "serve %s: thread %q not found (expired or never created)", name, th.previous)
		}
		req.Messages = append(slices.Clone(prev.messages), req.Messages...)
	}
	st, herr := statefulOf(e.protocol, body)
	if herr != nil {
		return herr
	}
	if st.previous != "" {
		g08, missing := s.expandResponse(req, st)
		if missing {
			followUp := IsFollowUp(req)
			s.verdict(name, e.protocol, func(v *Verdict) {
				if followUp {
					v.FollowUps++
				}
				v.Graded = true
				v.setProblems(append(g08, shape...))
				v.setFollowUp(body)
			})
			return fail(http.StatusBadRequest, "invalid_request_error", "serve %s: previous response with id %q not found", name, st.previous)
		}
		shape = append(g08, shape...)
	}
	if IsFollowUp(req) {
		return s.followUp(w, r, name, e, req, stream, arrayForm, chaos, th, st, shape, body)
	}
	if len(shape) > 0 {
		// A request that is no follow-up yet breaks a wire rule (a blank
		// text block, Converse's toolChoice none, a Cohere v1 body): the
		// API refuses it, and so does serve, grading what it broke.
		s.verdict(name, e.protocol, func(v *Verdict) {
			v.Graded = true
			v.setProblems(shape)
			v.setFollowUp(body)
		})
		return fail(http.StatusBadRequest, "invalid_request_error", "serve %s: %s", name, shape[0])
	}
	why := unmet(e.requires, r, body)
	if why == "" && !stream {
		why = noWholeForm(e)
	}
	if why != "" {
		s.verdict(name, e.protocol, func(v *Verdict) { v.NotApplicable = clip(why) })
		herr := fail(http.StatusBadRequest, "invalid_request_error", "serve %s: %w: %s", name, ErrNotApplicable, why)
		herr.notApplicable = true
		return herr
	}
	return s.initial(w, r, body, name, e, req, stream, arrayForm, chaos, th, st)
}

// idPrefix is the prefix of the response ids the server makes up.
func idPrefix(protocol string) string {
	if p := descriptor(protocol).Grading.ResponseIDPrefix; p != "" {
		return p
	}
	return "msg_"
}

// arrayAsked reports whether a streaming request asks for the one JSON
// array form: the protocol has it (Endpoint.JSONArrayStream) and the
// query lacks the parameter of Endpoint.StreamQuery ("alt=sse").
func arrayAsked(ep providers.Endpoint, stream bool, query url.Values) bool {
	if !ep.JSONArrayStream || !stream {
		return false
	}
	want, err := url.ParseQuery(ep.StreamQuery)
	if err != nil {
		return false
	}
	for k := range want {
		if query.Get(k) != want.Get(k) {
			return true
		}
	}
	return false
}

// threadParam is the thread parameter of a request (Grading.Threads).
type threadParam struct {
	create, cont bool
	previous     string
}

func (s *Server) threadOf(protocol string, body []byte) (threadParam, *httpError) {
	if !descriptor(protocol).Grading.Threads || !bytes.Contains(body, []byte(`"thread"`)) {
		return threadParam{}, nil
	}
	var w struct {
		Thread *struct {
			Type              string `json:"type"`
			PreviousMessageID string `json:"previous_message_id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(body, &w); err != nil || w.Thread == nil {
		return threadParam{}, nil
	}
	switch w.Thread.Type {
	case "create":
		return threadParam{create: true}, nil
	case "continue":
		if w.Thread.PreviousMessageID == "" {
			return threadParam{}, fail(http.StatusBadRequest, "invalid_request_error", "serve: thread.previous_message_id: required when thread.type is continue")
		}
		return threadParam{cont: true, previous: w.Thread.PreviousMessageID}, nil
	}
	return threadParam{}, fail(http.StatusBadRequest, "invalid_request_error", "serve: thread.type: %q is not create or continue", w.Thread.Type)
}

func (s *Server) lookupThread(id string) (thread, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.threads[id]
	return t, ok
}

// storeThread keeps a thread under id, within MaxKeptThreads and
// MaxKeptBytes; it returns a note when the thread could not be kept.
func (s *Server) storeThread(id string, t thread) string {
	if id == "" {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.threads[id]
	if !had && len(s.threads) >= MaxKeptThreads || !s.keep(messagesSize(t.messages), messagesSize(old.messages)) {
		return fmt.Sprintf("thread %s not kept: serve keeps at most %d threads and %d bytes of kept conversations", id, MaxKeptThreads, s.maxKeptBytes)
	}
	s.threads[id] = t
	return ""
}

func (s *Server) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return prefix + "conform" + strconv.Itoa(s.nextID)
}

// IsFollowUp reports whether a request continues a tool turn: it carries
// tool results or an assistant turn with calls.
func IsFollowUp(req *core.Request) bool {
	for _, m := range req.Messages {
		if len(m.Results()) > 0 || (m.Role == core.RoleAssistant && len(m.Calls()) > 0) {
			return true
		}
	}
	return false
}
