package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

var (
	loadOnce sync.Once
	loaded   []*scenarios.Scenario
	loadErr  error
)

// builtin returns the built-in scenarios, loaded once.
func builtin(t testing.TB) []*scenarios.Scenario {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load)) })
	if loadErr != nil {
		t.Fatalf("load scenarios: %v", loadErr)
	}
	return loaded
}

func newServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Scenarios == nil {
		opts.Scenarios = builtin(t)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// client is a tool-calling client built from conform's own adapters: it
// is what serve is checked against.
type client struct {
	base     string
	name     string
	protocol string
	stream   bool
	tools    []core.ToolSpec
	header   http.Header
	// optIn makes the client carry every request option a scenario may
	// depend on (optInRequest).
	optIn bool
	// fault is the one fault planted in the follow-up, or "".
	fault string
}

// The faults a test client can plant in its follow-up.
const (
	faultWrongContent = "results that are not the echo of the arguments"
	faultErrorResult  = "every result marked as an error"
	faultDropCall     = "the last of several calls and its result left out"
	faultReversed     = "results in the reverse order of the calls"
	faultOwnIDs       = "every call and result given an id of the client's own"
)

// optInServerTools are the Anthropic server tools an opting-in client
// declares: those the recorded responses use.
var optInServerTools = []map[string]string{
	{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
	{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
	{"type": "code_execution_20250825", "name": "code_execution"},
}

// optInSystemTools are the Bedrock system tools an opting-in client
// declares: those the scenarios' server_tool_use blocks name.
var optInSystemTools = []string{"nova_code_interpreter", "nova_grounding"}

// optInRequest returns a request URL and body that carry the options of
// requirementsOf: Gemini enums as numbers, partialArgs streaming and
// thoughts, Anthropic server tools and thinking, Bedrock system tools,
// Responses reasoning summaries.
func optInRequest(t testing.TB, protocol, url string, body []byte) (string, []byte) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	switch protocol {
	case "gemini":
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		url += sep + "%24alt=json%3Benum-encoding%3Dint"
		m["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO", "streamFunctionCallArguments": true}}
		gc, _ := m["generationConfig"].(map[string]any)
		if gc == nil {
			gc = map[string]any{}
			m["generationConfig"] = gc
		}
		gc["thinkingConfig"] = map[string]any{"includeThoughts": true}
	case "openai-responses":
		m["reasoning"] = map[string]any{"summary": "auto"}
	case "anthropic":
		m["thinking"] = map[string]any{"type": "adaptive"}
		tools, _ := m["tools"].([]any)
		for _, st := range optInServerTools {
			tools = append(tools, st)
		}
		m["tools"] = tools
	case "bedrock":
		tc, _ := m["toolConfig"].(map[string]any)
		if tc == nil {
			tc = map[string]any{}
			m["toolConfig"] = tc
		}
		tools, _ := tc["tools"].([]any)
		for _, name := range optInSystemTools {
			tools = append(tools, map[string]any{"systemTool": map[string]any{"name": name}})
		}
		tc["tools"] = tools
	default:
		return url, body
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return url, out
}

// formGated reports whether the form serve writes for e (whole or
// streamed) holds a block a request option gates, read from the bytes
// written: a re-encoded form may hold one its recording does not.
func formGated(e entry, stream bool) bool {
	rule := descriptor(e.protocol).Requirements
	a, err := adapterFor(e.protocol, false)
	if rule == nil || err != nil {
		return false
	}
	body, _, err := servedBody(a, e, stream, false, "conform-test")
	return err == nil && len(rule(body)) > 0
}

// url returns the URL of a request for c's protocol.
func (c *client) url(t testing.TB) string {
	t.Helper()
	ep, err := providers.HTTP(c.protocol)
	if err != nil {
		t.Fatal(err)
	}
	return ep.URL(c.base+ScenarioPrefix+c.name, ep.DefaultModel, c.stream)
}

// post sends req and decodes the answer. A transport or decoding error is
// returned with the response decoded so far.
func (c *client) post(t testing.TB, req *core.Request) (*core.Response, error) {
	t.Helper()
	a, err := providers.Lookup(c.protocol)
	if err != nil {
		t.Fatal(err)
	}
	req.Stream = c.stream
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatalf("%s: encode request: %v", c.name, err)
	}
	url := c.url(t)
	if c.optIn {
		url, body = optInRequest(t, c.protocol, url, body)
	}
	if c.fault == faultReversed && IsFollowUp(req) {
		body = reverseResults(t, c.protocol, body)
	}
	hr, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.header {
		hr.Header[k] = v
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	if c.stream {
		return core.Collect(a.DecodeStream(resp.Body))
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return a.DecodeResponse(data)
}

// converse runs a tool turn: the first request, then the follow-up with
// one result per complete call, in call order.
func (c *client) converse(t testing.TB) (first, final *core.Response, err error) {
	t.Helper()
	req := &core.Request{
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("conform: please call the tools")}}},
		Tools:     c.tools,
		MaxTokens: 1024,
	}
	first, err = c.post(t, req)
	if err != nil {
		return first, nil, err
	}
	calls := first.Calls()
	if len(calls) == 0 {
		return first, nil, nil
	}
	var results []core.Part
	for k, call := range calls {
		// The echo tool of the client protocol.
		r := core.Result{CallID: call.ID, Name: call.Name, Content: []core.Part{core.TextPart(string(call.Arguments))}}
		switch c.fault {
		case faultWrongContent:
			r.Content = []core.Part{core.TextPart(`{"ok":true}`)}
		case faultErrorResult:
			r.IsError = true
		case faultOwnIDs:
			r.CallID = fmt.Sprintf("own_call_%d", k)
		}
		results = append(results, core.ResultPart(r))
	}
	turn := first.Message
	turn.Role = core.RoleAssistant
	switch c.fault {
	case faultDropCall:
		if len(calls) < 2 {
			break // an assistant turn without its only call is no turn
		}
		results = results[:len(results)-1]
		last := slices.IndexFunc(turn.Parts, func(p core.Part) bool {
			return p.Kind == core.PartToolCall && p.Call != nil && p.Call.ID == calls[len(calls)-1].ID
		})
		turn.Parts = slices.Delete(slices.Clone(turn.Parts), last, last+1)
	case faultOwnIDs:
		turn.Parts = slices.Clone(turn.Parts)
		k := 0
		for i, p := range turn.Parts {
			if p.Kind == core.PartToolCall && p.Call != nil {
				c := *p.Call
				c.ID = fmt.Sprintf("own_call_%d", k)
				turn.Parts[i].Call = &c
				k++
			}
		}
	}
	req.Messages = append(req.Messages, turn, core.Message{Role: core.RoleTool, Parts: results})
	final, err = c.post(t, req)
	return first, final, err
}

// servable returns the servable scenarios under their served names.
func servable(t testing.TB, s *Server) map[string]*scenarios.Scenario {
	out := map[string]*scenarios.Scenario{}
	for _, name := range s.Names() {
		out[name] = s.index[name].sc
	}
	return out
}

// TestReplayAndGrade serves every servable scenario, streamed and not, to
// a client made of conform's own adapters, which answers every call; the
// follow-up must pass grading and the client must see the scenario's
// calls. A scenario whose recorded bytes depend on a request option is not
// applicable to the client that does not carry it, and is served to one
// that does (optIn). A broken stream (one the reference decoder reads an
// error, an incomplete call or no finish in) and one whose end alone says
// it finished (no finish reason) have no whole form, and are not
// applicable to a request for a whole response.
func TestReplayAndGrade(t *testing.T) {
	s, ts := newServer(t, Options{Echo: true})
	cases := servable(t, s)
	if len(cases) < 100 {
		t.Fatalf("only %d servable scenarios; want the built-in corpus (100+)", len(cases))
	}
	var graded, faulty int
	notApplicable := map[string]bool{}   // to a client that carries no option
	neverApplicable := map[string]bool{} // to any client
	wholeless := map[string]bool{}       // to a request for a whole response
	for name, sc := range cases {
		protocol, _ := s.Protocol(name)
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", name, stream), func(t *testing.T) {
				if err := selfDecodes(protocol, sc); err != nil {
					t.Skipf("the %s adapter cannot decode this scenario itself, so serve cannot be checked on it: %v", protocol, err)
				}
				c := &client{base: ts.URL, name: name, protocol: protocol, stream: stream, tools: sc.Tools}
				first, final, err := c.converse(t)
				v, _ := s.Verdict(name)
				requires := len(s.index[name].requires) > 0 || formGated(s.index[name], stream)
				if !requires && !stream && noWholeForm(s.index[name]) != "" {
					if v.NotApplicable == "" || v.Served != 0 {
						t.Fatalf("a broken stream served whole: served %d, not applicable %q", v.Served, v.NotApplicable)
					}
					if !sc.Want.ExpectsError() && !strings.Contains(noWholeForm(s.index[name]), "without a finish reason") {
						t.Errorf("a stream with no whole form expects no error: only a broken stream, or one without a finish reason, has none")
					}
					wholeless[name] = true
					return
				}
				if strings.Contains(v.NotApplicable, "cannot write this case") {
					// A case the adapter cannot write in this form (a
					// Responses stream of two calls on one call id).
					if !sc.Want.ExpectsError() {
						t.Errorf("a case that expects no error cannot be written: %s", v.NotApplicable)
					}
					return
				}
				if requires != (v.NotApplicable != "") {
					t.Fatalf("scenario with %d requirements: verdict not applicable = %q", len(s.index[name].requires), v.NotApplicable)
				}
				if v.NotApplicable != "" {
					notApplicable[name] = true
					if v.Served != 0 || v.Pass || len(v.Errors) > 0 {
						t.Errorf("not applicable, yet served %d, pass %v, errors %q", v.Served, v.Pass, v.Errors)
					}
					c.optIn = true
					first, final, err = c.converse(t)
					if v, _ = s.Verdict(name); v.NotApplicable != "" {
						neverApplicable[name] = true
						return
					}
				}
				if sc.Want.ExpectsError() {
					// A faulty stream: the client must not run what was cut
					// off; whatever it sent back was graded.
					faulty++
					if v.Graded && !v.Pass {
						t.Errorf("verdict of a follow-up built from complete calls failed: %+v", v.Problems)
					}
					return
				}
				if err != nil {
					t.Fatalf("converse: %v", err)
				}
				if got, want := len(first.Calls()), len(sc.Want.Calls); got != want {
					t.Errorf("client saw %d calls, scenario wants %d", got, want)
				}
				if len(first.Calls()) == 0 {
					return
				}
				graded++
				if v.FollowUp == "" {
					t.Errorf("the graded follow-up's body is not in the verdict")
				}
				if !v.Pass {
					t.Errorf("verdict failed: %+v", v)
				}
				if final == nil || final.Text() != DefaultAnswer {
					t.Errorf("final answer = %+v, want text %q", final, DefaultAnswer)
				}
			})
			// The next run of the same scenario starts a fresh verdict.
			s.mu.Lock()
			delete(s.verdicts, name)
			s.mu.Unlock()
		}
	}
	t.Logf("%d servable scenarios, %d conversations graded, %d faulty-stream runs; %d scenarios not applicable without a request option, %d to any request, %d streams with no whole form", len(cases), graded, faulty, len(notApplicable), len(neverApplicable), len(wholeless))
	if len(notApplicable) != 37 || len(neverApplicable) != 8 || len(wholeless) != 35 {
		t.Errorf("%d scenarios not applicable without a request option, %d to any request, %d streams with no whole form; want 37, 8 and 35: %v %v %v", len(notApplicable), len(neverApplicable), len(wholeless), notApplicable, neverApplicable, wholeless)
	}
}

// TestReplayAndGradeChaos runs the reference client over every servable
// scenario under each chaos variant. Those that keep the stream whole
// change only the framing, so every applicable case must still pass; under
// disconnect and error the client must report the broken response and
// send no follow-up.
func TestReplayAndGradeChaos(t *testing.T) {
	s, ts := newServer(t, Options{Echo: true})
	cases := servable(t, s)
	names := slices.Sorted(maps.Keys(cases))
	for _, variant := range []string{"split=7", "crlf,ping", "keepalive", "multiline", "disconnect", "error"} {
		broken := variant == "disconnect" || variant == "error"
		graded := 0
		for _, name := range names {
			sc := cases[name]
			protocol, _ := s.Protocol(name)
			if sc.Want.ExpectsError() || selfDecodes(protocol, sc) != nil {
				continue
			}
			for _, stream := range []bool{false, true} {
				c := &client{base: ts.URL, name: name, protocol: protocol, stream: stream, tools: sc.Tools, optIn: true, header: http.Header{ChaosHeader: {variant}}}
				first, final, err := c.converse(t)
				s.mu.Lock()
				v := s.verdicts[name]
				delete(s.verdicts, name)
				s.mu.Unlock()
				if v != nil && v.NotApplicable != "" {
					continue
				}
				if broken {
					if err == nil || v == nil || v.Graded {
						t.Errorf("%s [%s] stream=%v: broken response not reported (error %v) or answered (verdict %+v)", name, variant, stream, err, v)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s [%s] stream=%v: %v", name, variant, stream, err)
					continue
				}
				if len(first.Calls()) == 0 {
					continue
				}
				graded++
				if !v.Pass || final == nil || final.Text() != DefaultAnswer {
					t.Errorf("%s [%s] stream=%v: verdict %+v, final %+v", name, variant, stream, v, final)
				}
			}
		}
		t.Logf("chaos %s: %d conversations graded", variant, graded)
	}
}

// TestRouting checks how a request chooses its scenario and what a wrong
// choice answers.
func TestRouting(t *testing.T) {
	const name = "openai-chat/streaming/A05-round-robin-interleaving"
	_, ts := newServer(t, Options{Scenario: name})
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		desc   string
		method string
		path   string
		header map[string]string
		status int
		errSub string
	}{
		{"default scenario", "POST", "/v1/chat/completions", nil, 200, ""},
		{"prefix before the protocol path", "POST", "/openai/v1/chat/completions", nil, 200, ""},
		{"scenario in the path", "POST", "/scenario/" + name + "/v1/chat/completions", nil, 200, ""},
		{"scenario in a header", "POST", "/v1/chat/completions", map[string]string{ScenarioHeader: name}, 200, ""},
		{"canonical case under mistral", "POST", "/scenario/mistral/streaming/A05-round-robin-interleaving/v1/chat/completions", nil, 200, ""},
		{"header and path disagree", "POST", "/scenario/" + name + "/v1/chat/completions", map[string]string{ScenarioHeader: "any/x/y"}, 400, `header X-Conform-Scenario names "any/x/y" but the path names`},
		{"unknown scenario", "POST", "/v1/chat/completions", map[string]string{ScenarioHeader: "openai-chat/nope/nope"}, 404, "unknown scenario"},
		{"wrong protocol path", "POST", "/v1/messages", nil, 404, "speaks openai-chat, served at /v1/chat/completions"},
		{"short scenario path", "POST", "/scenario/openai-chat/x", nil, 404, "no scenario chosen"},
		{"GET", "GET", "/v1/chat/completions", nil, 405, "method GET not allowed"},
		{"bad chaos header", "POST", "/v1/chat/completions", map[string]string{ChaosHeader: "boom"}, 400, `bad chaos option "boom"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(body))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.errSub != "" {
				var e struct {
					Error struct{ Message string } `json:"error"`
				}
				if err := json.Unmarshal(data, &e); err != nil || !strings.Contains(e.Error.Message+" "+string(data), tt.errSub) {
					t.Errorf("error body %s does not say %q", data, tt.errSub)
				}
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	_, ts := newServer(t, Options{Scenario: "openai-chat/streaming/A05-round-robin-interleaving", MaxBody: 64})
	resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(strings.Repeat(" ", 65)+"{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}

func TestNewUnknownScenario(t *testing.T) {
	_, err := New(Options{Scenarios: builtin(t), Scenario: "openai-chat/no/such"})
	if !errors.Is(err, ErrUnknownScenario) {
		t.Errorf("New with an unknown scenario: %v, want ErrUnknownScenario", err)
	}
}

// TestKeysNeverLogged sends a key in every form the providers use and
// checks that none reaches the log, while every request is still served.
func TestKeysNeverLogged(t *testing.T) {
	const key = "sk-conformSECRETkey0123456789abcdef"
	var log bytes.Buffer
	var mu sync.Mutex
	s, ts := newServer(t, Options{Log: lockedWriter{&log, &mu}})
	forms := []struct {
		header, value, query string
	}{
		{"Authorization", "Bearer " + key, ""},
		{"x-api-key", key, ""},
		{"api-key", key, ""},
		{"x-goog-api-key", key, ""},
		{"", "", "key=" + key},
	}
	for _, name := range []string{"openai-chat/streaming/A05-round-robin-interleaving", "anthropic/streaming/A19-interleaved-content-blocks", "gemini/streaming/A05-round-robin-interleaving"} {
		protocol, ok := s.Protocol(name)
		if !ok {
			t.Fatalf("scenario %s not servable", name)
		}
		for _, f := range forms {
			c := &client{base: ts.URL, name: name, protocol: protocol, stream: true, header: http.Header{}}
			if f.header != "" {
				c.header.Set(f.header, f.value)
			}
			u := c.url(t)
			if f.query != "" {
				if strings.Contains(u, "?") {
					u += "&" + f.query
				} else {
					u += "?" + f.query
				}
			}
			hr, _ := http.NewRequest("POST", u, strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}],"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
			for k, v := range c.header {
				hr.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s with key in %s%s: status %d", name, f.header, f.query, resp.StatusCode)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(log.String(), "SECRET") {
		t.Errorf("the log holds the key:\n%s", log.String())
	}
	if n := strings.Count(log.String(), "\n"); n != 15 {
		t.Errorf("log has %d lines, want 15 (one per request):\n%s", n, log.String())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestServeListens checks Serve's start line and its shutdown.
func TestServeListens(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	s, err := New(Options{Scenarios: builtin(t), Log: lockedWriter{&log, &mu}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, "127.0.0.1:0") }()
	var url string
	for i := 0; i < 200 && url == ""; i++ {
		mu.Lock()
		line := log.String()
		mu.Unlock()
		if rest, ok := strings.CutPrefix(line, "conform serve: listening on "); ok {
			url = strings.TrimSpace(rest)
			break
		}
		waitABit()
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		cancel()
		t.Fatalf("start line: %q", log.String())
	}
	resp, err := http.Get(url + ScenariosPath)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	json.NewDecoder(resp.Body).Decode(&names)
	resp.Body.Close()
	if len(names) != len(s.Names()) {
		t.Errorf("GET %s listed %d names, want %d", ScenariosPath, len(names), len(s.Names()))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "example.com:0", "10.0.0.1:0"} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen on %s succeeded; want loopback only", addr)
		}
	}
	for _, addr := range []string{"[::1]:0", "127.0.0.2:0", "localhost:0", ":0"} {
		ln, err := Listen(addr)
		if err != nil {
			t.Errorf("Listen on %s: %v", addr, err)
			continue
		}
		if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
			t.Errorf("Listen on %s listens on %s", addr, ip)
		}
		ln.Close()
	}
}

func waitABit() { <-timeAfter(5) }

// selfDecodes reports whether the protocol's adapter decodes the
// scenario's own provider bytes, a precondition of checking serve on it.
func selfDecodes(protocol string, sc *scenarios.Scenario) error {
	if len(sc.Body) == 0 || sc.Want.ExpectsError() {
		return nil
	}
	a, err := providers.Lookup(protocol)
	if err != nil {
		return err
	}
	if sc.Kind == scenarios.KindResponse {
		_, err = a.DecodeResponse(sc.Body)
		return err
	}
	_, err = core.Collect(a.DecodeStream(bytes.NewReader(sc.Body)))
	return err
}

// reverseResults reverses the parts of the last message of a follow-up
// body, where the protocols that demand call order (G05) put the results:
// the adapters write them in call order, so the fault is planted in the
// bytes.
func reverseResults(t testing.TB, protocol string, body []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	list, field := "messages", "content"
	if protocol == "gemini" {
		list, field = "contents", "parts"
	}
	msgs, _ := m[list].([]any)
	if len(msgs) == 0 {
		return body
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if parts, ok := last[field].([]any); ok {
		slices.Reverse(parts)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// optInServerToolsBody is an Anthropic body that declares optInServerTools.
var optInServerToolsBody = func() []byte {
	b, _ := json.Marshal(map[string]any{"tools": optInServerTools})
	return b
}()
