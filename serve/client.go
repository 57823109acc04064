package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
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
	// Status is pass or fail (callers may add known-failing and fixed).
	Status   string   `json:"status"`
	Reasons  []string `json:"reasons,omitempty"`
	Exit     int      `json:"exit"`
	TimedOut bool     `json:"timed_out,omitempty"`
	Verdict  Verdict  `json:"verdict"`
	Stdout   string   `json:"stdout,omitempty"`
	Stderr   string   `json:"stderr,omitempty"`
	Elapsed  string   `json:"elapsed"`
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

// limitedBuffer keeps the last max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
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
	srv, err := New(Options{Scenarios: spec.Scenarios, Scenario: name, Chaos: chaos})
	if err != nil {
		return ClientRun{Name: name, Scenario: name, Status: "fail", Reasons: []string{err.Error()}, Exit: -1}
	}
	protocol, _ := srv.Protocol(name)
	sc := srv.index[name].sc
	res = ClientRun{Name: name, Scenario: name, Protocol: protocol, Chaos: chaos.String(), Exit: -1}
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
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(cctx, "/bin/sh", "-c", cmd)
	c.Dir = spec.Dir
	c.Env = append(os.Environ(),
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
		"GOOGLE_API_KEY="+ClientKey,
		"GOOGLE_GENERATIVE_AI_API_KEY="+ClientKey,
		"CO_API_KEY="+ClientKey,
		"MISTRAL_API_KEY="+ClientKey,
	)
	stdout := &limitedBuffer{max: 16 << 10}
	stderr := &limitedBuffer{max: 16 << 10}
	c.Stdout, c.Stderr = stdout, stderr
	// After the program exits, its output may still be in flight, or a
	// child it left may hold the pipes: wait for them a while, long enough
	// for a loaded machine (2 s was not, in the client matrix).
	c.WaitDelay = 10 * time.Second
	err = c.Run()
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Exit = c.ProcessState.ExitCode()
	if cctx.Err() != nil && ctx.Err() == nil {
		res.TimedOut = true
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !res.TimedOut {
		fail("run %q: %v", cmd, err)
		return res
	}
	v, _ := srv.Verdict(name)
	res.Verdict = v
	GradeClient(&res, sc, chaos)
	return res
}

// GradeClient decides a run from its verdict, exit status and output: see
// docs/client-protocol.md, "Grading".
func GradeClient(res *ClientRun, sc *scenarios.Scenario, chaos Chaos) {
	v := res.Verdict
	fail := func(format string, args ...any) {
		res.Reasons = append(res.Reasons, fmt.Sprintf(format, args...))
	}
	if res.TimedOut {
		fail("the client did not finish in time")
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
	faulty := sc.Want.Error != nil || chaos.Disconnect || chaos.Error
	switch {
	case faulty:
		// The stream is broken on purpose: the client must not run a call
		// it did not receive whole (a B09 problem above), and should
		// report the failure rather than answer.
		if res.Exit == 0 && v.Graded && len(v.Incomplete) > 0 {
			fail("exit 0 after a broken stream with %d incomplete call(s)", len(v.Incomplete))
		}
	case len(v.Calls) > 0 && !v.Graded && res.Exit != 0 && slices.ContainsFunc(v.Calls, func(c core.Call) bool { return c.Repaired }):
		// A call's arguments were not JSON as sent (B07, C09); conform
		// repairs them, but a client that reports such a call and stops
		// instead of running it does what the protocol asks (an
		// unparsable call must not be run), so it passes. A client that
		// runs it must send back the repaired arguments (G09 above).
	case len(v.Calls) > 0:
		if !v.Graded {
			fail("served %d call(s) but no follow-up with tool results arrived", len(v.Calls))
		}
		if res.Exit != 0 {
			fail("exit status %d, want 0", res.Exit)
		}
		if !strings.Contains(res.Stdout, DefaultAnswer) {
			fail("stdout does not show the final answer %q", DefaultAnswer)
		}
	default:
		// No complete call was served (F03, F06): no follow-up is due.
		if v.Graded {
			fail("sent a follow-up although no call was served")
		}
		if res.Exit != 0 {
			fail("exit status %d, want 0", res.Exit)
		}
	}
	if len(res.Reasons) == 0 {
		res.Status = "pass"
	} else {
		res.Status = "fail"
	}
}
