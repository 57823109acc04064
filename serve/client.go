package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/process"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// The environment a client program reads (docs/client-protocol.md is the
// contract).
const (
	EnvBaseURL  = "CONFORM_BASE_URL"
	EnvScenario = "CONFORM_SCENARIO"
	EnvProtocol = "CONFORM_PROTOCOL"
	EnvStream   = "CONFORM_STREAM"
	EnvModel    = "CONFORM_MODEL"
	EnvTools    = "CONFORM_TOOLS"
	EnvChaos    = "CONFORM_CHAOS"
	// ClientKey is the API key handed to clients; serve accepts any.
	ClientKey = "conform-test-key"
)

// ClientRun is the outcome of one run of a client program.
type ClientRun struct {
	// Name is the scenario's name, with the chaos variant in brackets
	// when there is one.
	Name     string `json:"name"`
	Scenario string `json:"scenario"`
	Protocol string `json:"protocol"`
	Chaos    string `json:"chaos"`
	// Severity is the scenario's: MUST, SHOULD or INFO.
	Severity scenarios.Severity `json:"severity"`
	// Status is pass or fail (callers may add known-failing).
	Status  string   `json:"status"`
	Reasons []string `json:"reasons,omitempty"`
	// Held says, for a run that passed, what was checked and held: the
	// follow-up graded, or why none was due, and how the program exited.
	Held []string `json:"held,omitempty"`
	// Counted is set by a caller that counts failures against a whole
	// run, on failed runs only: a failed SHOULD case may be reported
	// without failing the run.
	Counted *bool `json:"counted,omitempty"`
	// Kind is the scenario's kind: a stream or a whole response.
	Kind scenarios.Kind `json:"kind,omitempty"`
	// ByFailing marks a pass the client earned by failing: it stopped with
	// a non-zero exit on a stream broken on purpose, or on a call it could
	// not parse, and sent no follow-up. Such a pass counts only beside a
	// control the same client passed (ApplyControls); Control names it.
	ByFailing bool   `json:"by_failing,omitempty"`
	Control   string `json:"control,omitempty"`
	Exit      int    `json:"exit"`
	// Signal names the signal that ended the program ("signal: killed"),
	// when one did.
	Signal   string  `json:"signal,omitempty"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Verdict  Verdict `json:"verdict"`
	Stdout   string  `json:"stdout,omitempty"`
	Stderr   string  `json:"stderr,omitempty"`
	// Panic is the line of stderr that says why the program crashed (a
	// Go panic or fatal error, an uncaught JavaScript error, a Python
	// exception), which the stack after it pushes out of a short tail.
	Panic string `json:"panic,omitempty"`
	// Crash says how the program crashed (Crash), when it did: a crash
	// is never a pass.
	Crash string `json:"crash,omitempty"`
	// Reduction is what ReduceClient found for a failed run: the
	// simplifications that make it pass and those that keep it failing.
	Reduction *reduce.Result `json:"reduction,omitempty"`
	Elapsed   string         `json:"elapsed"`
}

// ClientSpec says what RunClient runs.
type ClientSpec struct {
	// Command is run with /bin/sh -c, in Dir when set.
	Command string
	Dir     string
	// Scenarios are the cases to serve from; Scenario names the one
	// served, protocol-qualified.
	Scenarios []*scenarios.Scenario
	Scenario  string
	Chaos     Chaos
	// Timeout bounds the run; 0 means 60 seconds.
	Timeout time.Duration
}

// ClientTools returns the tools a client declares for a scenario: its
// tools.json, else one permissive tool per call name the scenario serves,
// complete or not (want/calls.json, want/incomplete.json and the call
// starts of events.json), in that order. It is never nil, so that
// CONFORM_TOOLS is always a JSON array ("[]" for a scenario without calls,
// not "null", which client programs would have to special-case).
func ClientTools(sc *scenarios.Scenario) []core.ToolSpec {
	if len(sc.Tools) > 0 {
		return sc.Tools
	}
	out := []core.ToolSpec{}
	seen := map[string]bool{}
	add := func(name string) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, core.ToolSpec{Name: name, Description: "conform test tool " + name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	for _, c := range slices.Concat(sc.Want.Calls, sc.Want.Incomplete) {
		name, _ := c["name"].(string)
		add(name)
	}
	for _, e := range sc.Events {
		if e.Kind == core.EventCallStart && e.Chunk != nil {
			add(e.Chunk.Name)
		}
	}
	return out
}

// RunClient serves one scenario with one chaos variant on a fresh loopback
// server, runs the client program against it with the environment of
// docs/client-protocol.md and grades the run (GradeClient).
func RunClient(ctx context.Context, spec ClientSpec) (res ClientRun) {
	name, chaos, cmd := spec.Scenario, spec.Chaos, spec.Command
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	srv, err := New(Options{Scenarios: spec.Scenarios, Scenario: name, Chaos: chaos, Echo: true})
	if err != nil {
		return ClientRun{Name: name, Scenario: name, Status: "fail", Reasons: []string{err.Error()}, Exit: -1}
	}
	protocol, _ := srv.Protocol(name)
	sc := srv.index[name].sc
	res = ClientRun{Name: name, Scenario: name, Protocol: protocol, Chaos: chaos.String(), Severity: sc.Severity, Kind: sc.Kind, Exit: -1}
	if chaos != (Chaos{}) {
		res.Name = name + "[" + chaos.String() + "]"
	}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start).Round(time.Millisecond).String() }()
	fail := func(format string, args ...any) {
		res.Status = "fail"
		res.Reasons = append(res.Reasons, fmt.Sprintf(format, args...))
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		fail("%v", err)
		return res
	}
	base := URL(ln)
	sctx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(sctx, ln) }()
	defer func() {
		stopServe()
		<-served
	}()

	ep, _ := providers.HTTP(protocol)
	tools, _ := json.Marshal(ClientTools(sc))
	stream := "0"
	if sc.Kind == scenarios.KindStream {
		stream = "1"
	}
	env := append(clientEnviron(os.Environ()),
		EnvBaseURL+"="+base,
		EnvScenario+"="+name,
		EnvProtocol+"="+protocol,
		EnvStream+"="+stream,
		EnvModel+"="+ep.DefaultModel,
		EnvTools+"="+string(tools),
		EnvChaos+"="+chaos.String(),
		"OPENAI_BASE_URL="+base+"/v1",
		"ANTHROPIC_BASE_URL="+base,
		"GOOGLE_GEMINI_BASE_URL="+base,
		"GEMINI_BASE_URL="+base,
		"CO_API_URL="+base,
		"MISTRAL_SERVER_URL="+base,
		"OLLAMA_HOST="+base,
		"OPENAI_API_KEY="+ClientKey,
		"ANTHROPIC_API_KEY="+ClientKey,
		"GEMINI_API_KEY="+ClientKey,
		"GOOGLE_GENERATIVE_AI_API_KEY="+ClientKey,
		"CO_API_KEY="+ClientKey,
		"MISTRAL_API_KEY="+ClientKey,
	)
	stdout, stderr := process.NewOutput(4<<10, 12<<10), process.NewOutput(4<<10, 12<<10)
	p, err := process.Start(cmd, process.Options{Dir: spec.Dir, Env: env, Stdout: stdout, Stderr: stderr})
	if err != nil {
		res.Exit = -1
		fail("run %q: %v", cmd, err)
		return res
	}
	res.TimedOut = p.Wait(ctx, timeout)
	res.Exit = p.ExitCode()
	if res.Exit == -1 && !res.TimedOut {
		res.Signal = p.ExitStatus()
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Panic = process.PanicLine(res.Stderr)
	v, _ := srv.Verdict(name)
	res.Verdict = v
	GradeClient(&res, sc, chaos)
	return res
}

// GradeClient decides a run from its verdict, exit status and output: see
// docs/client-protocol.md, "Grading". A run that passes says in Held what
// was checked.
func GradeClient(res *ClientRun, sc *scenarios.Scenario, chaos Chaos) {
	v := res.Verdict
	res.ByFailing = false
	if notApplicable(res) {
		return
	}
	fail := func(format string, args ...any) {
		res.Reasons = append(res.Reasons, fmt.Sprintf(format, args...))
	}
	var held []string
	if res.TimedOut {
		fail("the client did not finish in time")
	}
	if res.Crash = Crash(*res); res.Crash != "" {
		fail("the client crashed (%s); a crash is never a pass", res.Crash)
	}
	if v.Served == 0 {
		fail("the client never sent its first request (errors: %s)", strings.Join(v.Errors, "; "))
	}
	for _, er := range v.Errors {
		fail("server refused a request: %s", er)
	}
	for _, p := range v.Problems {
		fail("follow-up: %s", p)
	}
	faulty := sc.Want.ExpectsError() || chaos.Disconnect || chaos.Error
	switch {
	case faulty:
		// The stream is broken on purpose: the client must not run a call
		// it did not receive whole (a B09 problem above), and should
		// report the failure rather than answer.
		if res.Exit == 0 && v.Graded && len(v.Incomplete) > 0 {
			fail("exit 0 after a broken stream with %d incomplete call(s)", len(v.Incomplete))
		}
		held = append(held, "broken stream: no incomplete call run")
		res.ByFailing = !v.Graded && res.Exit != 0
		if v.Graded {
			held = append(held, fmt.Sprintf("follow-up graded: %d complete call(s) answered, no problem", len(v.Calls)))
		}
		held = append(held, fmt.Sprintf("exit %d", res.Exit))
	case len(v.Calls) > 0 && !v.Graded && res.Exit != 0 && slices.ContainsFunc(v.Calls, func(c core.Call) bool { return c.Repaired }):
		// A call's arguments were not JSON as sent (B07, C09); conform
		// repairs them, but a client that reports such a call and stops
		// instead of running it does what the protocol asks (an
		// unparsable call must not be run), so it passes. A client that
		// runs it must send back the repaired arguments (G09 above).
		held = append(held, fmt.Sprintf("unparsable call not run: no follow-up, exit %d", res.Exit))
		res.ByFailing = true
	case len(v.Calls) > 0:
		if !v.Graded {
			fail("%s: served %d call(s) but no follow-up with tool results arrived", missingRule(res.Protocol), len(v.Calls))
		}
		if res.Exit != 0 {
			fail("exit status %d, want 0", res.Exit)
		}
		if !strings.Contains(res.Stdout, DefaultAnswer) {
			fail("stdout does not show the final answer %q", DefaultAnswer)
		}
		held = append(held, fmt.Sprintf("follow-up graded: %d call(s) answered, no problem", len(v.Calls)), "exit 0", "final answer on stdout")
	default:
		// No complete call was served (F03, F06): no follow-up is due.
		if v.Graded {
			fail("G02: sent a follow-up although no call was served")
		}
		if res.Exit != 0 {
			fail("exit status %d, want 0", res.Exit)
		}
		held = append(held, "no complete call served: no follow-up due, none sent", "exit 0")
	}
	if len(res.Reasons) == 0 {
		res.Status = "pass"
		res.Held = held
	} else {
		res.Status = "fail"
		res.Held, res.ByFailing = nil, false
	}
}

// MarshalJSON writes the run with its verdict. The verdict's own pass,
// which speaks of a follow-up alone, is written only when a follow-up was
// graded: a run without one passes or fails on other grounds, which
// status, reasons and held say.
func (r ClientRun) MarshalJSON() ([]byte, error) {
	type plain ClientRun
	var out struct {
		plain
		Verdict struct {
			Verdict
			Pass *bool `json:"pass,omitempty"`
		} `json:"verdict"`
	}
	out.plain = plain(r)
	out.Verdict.Verdict = r.Verdict
	if r.Verdict.Graded {
		out.Verdict.Pass = &r.Verdict.Pass
	}
	return json.Marshal(out)
}

// Scenario returns the named servable scenario.
func (s *Server) Scenario(name string) (*scenarios.Scenario, bool) {
	e, ok := s.index[name]
	return e.sc, ok
}

// ChaosChanges reports whether serving a scenario of the given protocol
// with chaos c sends anything other than the plain run: chaos reframes
// streams, so a scenario that is not a stream is never changed, nor a
// stream whose framing is not SSE by the options that only reframe SSE.
func ChaosChanges(c Chaos, sc *scenarios.Scenario, protocol string) bool {
	if c == (Chaos{}) || sc.Kind != scenarios.KindStream {
		return false
	}
	if c.Split || c.Delay > 0 || c.Disconnect || c.Error {
		return true
	}
	ep, err := providers.HTTP(protocol)
	return err == nil && strings.HasPrefix(ep.StreamContentType, "text/event-stream")
}

// clientEnviron returns env without GOOGLE_API_KEY: the Google Gen AI SDKs
// read it or GEMINI_API_KEY, which RunClient sets, and warn on every run
// when both are set.
func clientEnviron(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "GOOGLE_API_KEY=")
	})
}
