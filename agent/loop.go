package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/sandbox"
)

// Defaults of a Loop.
const (
	DefaultMaxSteps   = 8
	DefaultMaxRetries = 2
)

// ErrStepLimit reports a conversation that reached the loop's step limit
// without an answer.
var ErrStepLimit = errors.New("step limit reached without an answer")

// ErrRetryLimit reports a model that kept sending calls that fail
// validation, or call-shaped text that cannot be read, past the retry limit.
var ErrRetryLimit = errors.New("retry limit reached")

// ErrSandboxRequired is in the result of a call refused because its tool's
// risk level requires a sandbox and the tool would run without one.
var ErrSandboxRequired = command.ErrSandboxRequired

// ErrIncomplete reports a response with calls that were cut off (B09–B11);
// they are never run.
var ErrIncomplete = errors.New("response has incomplete calls")

// ApprovalPolicy says which risk levels need approval before a call runs.
type ApprovalPolicy map[tools.Risk]bool

// DefaultPolicy asks for approval of destructive calls only.
func DefaultPolicy() ApprovalPolicy { return ApprovalPolicy{tools.RiskDestructive: true} }

// ApproveFunc is asked before a call whose tool's risk the policy names.
// It returns false to refuse; the refusal is sent to the model as an error
// result. An error ends the loop.
type ApproveFunc func(ctx context.Context, call core.Call, risk tools.Risk) (bool, error)

// Loop runs a conversation with a model and a registry of tools: it calls
// the model, runs the calls it asks for, sends the results back, and
// repeats until the model answers or a limit is reached.
//
//	loop := &agent.Loop{Adapter: openaichat.New(), Endpoint: agent.Endpoint{BaseURL: url},
//		Registry: reg, Model: "gpt-4o"}
//	out, err := loop.Run(ctx, []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}})
type Loop struct {
	Adapter  core.Adapter
	Endpoint Endpoint
	Registry *tools.Registry
	Model    string
	// Mode is how tools are offered; "" means ModeAuto.
	Mode Mode
	// TextFormat, with a text mode (validated or parsed), is the format
	// the model writes its calls in when it is served without native
	// tools (see NewTextStrategy); nil means conform's own tag form.
	TextFormat *textcalls.Format
	// Capabilities resolves ModeAuto and the parameters a model rejects;
	// nil means DefaultCapabilities.
	Capabilities *Capabilities
	// Stream asks for streamed responses.
	Stream bool
	// ToolChoice and ParallelToolCalls are sent as given, unless the
	// model rejects them.
	ToolChoice        *core.ToolChoice
	ParallelToolCalls *bool
	MaxTokens         int
	// MaxSteps bounds the model calls; 0 means DefaultMaxSteps.
	MaxSteps int
	// MaxRetries bounds consecutive turns with a failed validation or an
	// unreadable call; 0 means DefaultMaxRetries, negative means none.
	MaxRetries int
	// Exec configures Registry.ExecuteAll. The calls of a turn run at
	// once (up to Exec.Concurrency) when all are read-only and
	// ParallelToolCalls is not false; otherwise one at a time, in order.
	// Results are always in call order.
	Exec tools.ExecOptions
	// Policy names the risk levels that need approval; nil means
	// DefaultPolicy. Approve is asked for those calls; a nil Approve
	// refuses them all.
	Policy  ApprovalPolicy
	Approve ApproveFunc
	// Sandbox fences the tools that run programs (tools/command): a
	// default policy for those without their own, and the risk levels
	// that require a sandbox. A call at such a level whose tool would run
	// unsandboxed, a Go function tool included, is refused with
	// ErrSandboxRequired and never runs. What each sandbox enforced goes
	// into the trace (KindSandbox) and to Sandbox.Observe, if set.
	Sandbox command.Config
}

// textFormat is the text format for mode m: TextFormat with a text mode,
// else none.
func (l *Loop) textFormat(m Mode) *textcalls.Format {
	if m == ModeValidated || m == ModeParsed {
		return l.TextFormat
	}
	return nil
}

// Outcome is the end of a Run: the answer, the whole canonical
// conversation and the trace.
type Outcome struct {
	Mode   Mode   `json:"mode"`
	Answer string `json:"answer"`
	// Finish is the finish reason of the last response; an answer whose
	// finish is length was cut by the token limit.
	Finish   core.FinishReason `json:"finish,omitempty"`
	Messages []core.Message    `json:"messages"`
	Trace    *Trace            `json:"trace"`
}

// Run runs the loop from the conversation msgs. It returns an Outcome in
// every case, with the trace up to the failure when there is an error.
// Cancelling ctx stops the model request, the stream and the running
// tools, and Run returns ctx's error.
func (l *Loop) Run(ctx context.Context, msgs []core.Message) (*Outcome, error) {
	caps := l.Capabilities
	if caps == nil {
		caps = DefaultCapabilities()
	}
	out := &Outcome{Messages: slices.Clone(msgs), Trace: &Trace{}}
	out.Mode = caps.Mode(l.Mode, l.Model)
	if l.Adapter == nil || l.Registry == nil {
		return out, errors.New("agent run: loop needs an adapter and a registry")
	}
	strat, err := NewTextStrategy(out.Mode, l.textFormat(out.Mode))
	if err != nil {
		return out, fmt.Errorf("agent run: %w", err)
	}
	maxSteps := l.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	maxRetries := l.MaxRetries
	if maxRetries == 0 {
		maxRetries = DefaultMaxRetries
	} else if maxRetries < 0 {
		maxRetries = 0
	}
	policy := l.Policy
	if policy == nil {
		policy = DefaultPolicy()
	}
	// A protocol with no place for a response format gets ModeStructured
	// through one forced tool whose input is the step (see doc.go).
	viaTool := out.Mode == ModeStructured && !carriesResponseFormat(l.Adapter)
	tr := out.Trace
	retries := 0
	// Tool names the provider's rules refuse travel under mapped names
	// (tools/names); the trace shows the request and response as sent.
	wire := wireNames(l.Adapter, l.Registry)
	for step := 1; step <= maxSteps; step++ {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("agent step %d: %w", step, err)
		}
		creq := &core.Request{Model: l.Model, Messages: out.Messages, Tools: l.Registry.Specs(),
			ToolChoice: l.ToolChoice, ParallelToolCalls: l.ParallelToolCalls, MaxTokens: l.MaxTokens, Stream: l.Stream}
		wreq, err := strat.Format(creq)
		if err != nil {
			return out, fmt.Errorf("agent step %d: %w", step, err)
		}
		if viaTool {
			wreq = stepToolRequest(wreq)
		}
		removed := caps.Apply(wreq)
		wreq = toWire(wreq, wire)
		tr.add(Entry{Step: step, Kind: KindRequest, Request: wreq, Removed: removed})
		resp, err := send(ctx, l.Adapter, l.Endpoint, wreq)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
				err = fmt.Errorf("%w (%v)", cerr, err)
			}
			return out, fmt.Errorf("agent step %d: %w", step, err)
		}
		tr.add(Entry{Step: step, Kind: KindResponse, Response: resp})
		if wire != nil {
			c := *resp
			c.Message.Parts = slices.Clone(resp.Message.Parts)
			c.Incomplete = slices.Clone(resp.Incomplete)
			fromWire(&c, wire)
			resp = &c
		}
		out.Finish = resp.Finish
		if resp.Error != nil {
			return out, fmt.Errorf("agent step %d: %w", step, resp.Error)
		}
		if len(resp.Incomplete) > 0 {
			return out, fmt.Errorf("agent step %d: %w: %d cut off (finish %q)", step, ErrIncomplete, len(resp.Incomplete), resp.ProviderFinish)
		}
		if viaTool {
			resp = stepToolResponse(resp)
			out.Finish = resp.Finish
		}
		ex, err := strat.Extract(creq, resp)
		if err != nil {
			return out, fmt.Errorf("agent step %d: %w", step, err)
		}
		idNotes := assignIDs(out.Messages, ex.Calls, step)
		asst := assistantTurn(resp, ex)
		out.Messages = append(out.Messages, asst)
		if ex.Answer {
			out.Answer = ex.Text
			tr.add(Entry{Step: step, Kind: KindAnswer, Text: ex.Text})
			return out, nil
		}
		if len(ex.Calls) == 0 && len(ex.Malformed) == 0 {
			// A scratchpad step (possibly empty): nothing to run, so ask
			// for more rather than send the same request again.
			tr.add(Entry{Step: step, Kind: KindScratchpad, Text: ex.Scratchpad})
			out.Messages = append(out.Messages, userText("Go on: call a tool or give the answer."))
			continue
		}
		results, failed, err := l.runCalls(ctx, step, strat, policy, ex.Calls, idNotes, tr)
		if err != nil {
			return out, err
		}
		var notes []string
		for _, m := range ex.Malformed {
			failed = true
			tr.add(Entry{Step: step, Kind: KindMalformed, Text: m.Text, Err: m.Error()})
			notes = append(notes, fmt.Sprintf("Your tool call at byte %d could not be read and was not run: %v. Write it again.", m.Offset, m.Err))
		}
		if len(results) > 0 {
			parts := make([]core.Part, len(results))
			for i, r := range results {
				parts[i] = core.ResultPart(r)
			}
			out.Messages = append(out.Messages, core.Message{Role: core.RoleTool, Parts: parts})
		}
		if len(notes) > 0 {
			out.Messages = append(out.Messages, userText(strings.Join(notes, "\n")))
		}
		if failed {
			retries++
			if retries > maxRetries {
				return out, fmt.Errorf("agent step %d: %w: %d turns in a row with calls that failed validation or could not be read", step, ErrRetryLimit, retries)
			}
		} else {
			retries = 0
		}
	}
	return out, fmt.Errorf("agent run: %w (%d steps)", ErrStepLimit, maxSteps)
}

// assignIDs gives each call an id no other call in the conversation has:
// a call without an id, or with one already used in msgs or earlier in
// calls, gets call_<step>_<n> (with a further _<k> if that too is taken).
// Providers that send no ids and adapters that number them per response
// (Ollama: ollama_call_0 on every turn; some streamed Chat Completions
// servers) would otherwise leave two calls in the history under one id,
// and a result could not say which call it answers. Gemini's generated
// ids, gemini_call_<12 hex>_<k>, are unique per response, but a response
// without a responseId that repeats an earlier one's calls repeats their
// ids too. It returns, per call, a
// note for the trace when the id was replaced ("" when kept or filled in).
func assignIDs(msgs []core.Message, calls []core.Call, step int) []string {
	used := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Call != nil:
				used[p.Call.ID] = true
			case p.Result != nil:
				used[p.Result.CallID] = true
			}
		}
	}
	notes := make([]string, len(calls))
	for i := range calls {
		id := calls[i].ID
		if id != "" && !used[id] {
			used[id] = true
			continue
		}
		fresh := fmt.Sprintf("call_%d_%d", step, i+1)
		for k := 2; used[fresh]; k++ {
			fresh = fmt.Sprintf("call_%d_%d_%d", step, i+1, k)
		}
		if id != "" {
			notes[i] = fmt.Sprintf("id %q was already used in the conversation; renamed %q", id, fresh)
		}
		calls[i].ID = fresh
		used[fresh] = true
	}
	return notes
}

// runCalls validates the calls, asks for approval where the policy says,
// runs the rest together and returns one result per call, in call order.
// failed reports a failed validation. idNotes, one per call, say which
// call ids assignIDs replaced; they go into the trace.
func (l *Loop) runCalls(ctx context.Context, step int, strat Strategy, policy ApprovalPolicy, calls []core.Call, idNotes []string, tr *Trace) ([]core.Result, bool, error) {
	results := make([]core.Result, len(calls))
	var run []core.Call
	var at []int
	failed := false
	var mu sync.Mutex
	reports := map[string]sandbox.Report{}
	cfg := l.Sandbox
	cfg.Observe = func(c core.Call, r sandbox.Report) {
		mu.Lock()
		reports[c.ID] = r
		mu.Unlock()
		if l.Sandbox.Observe != nil {
			l.Sandbox.Observe(c, r)
		}
	}
	ctx = command.WithConfig(ctx, cfg)
	for i, c := range calls {
		v := strat.Validate(l.Registry, c)
		tr.add(Entry{Step: step, Kind: KindCall, Call: &calls[i], Validation: &v, Text: idNotes[i]})
		if !v.Valid {
			failed = true
			results[i] = errorResult(c, v.Message+". Fix the call and send it again.")
			tr.add(Entry{Step: step, Kind: KindResult, Result: &results[i]})
			continue
		}
		c.Arguments = v.Arguments
		if t, ok := l.Registry.Lookup(c.Name); ok && policy[t.Risk()] {
			approved := false
			if l.Approve != nil {
				var err error
				approved, err = l.Approve(ctx, c, t.Risk())
				if err != nil {
					return nil, failed, fmt.Errorf("agent step %d: approve %q: %w", step, c.Name, err)
				}
			}
			if !approved {
				results[i] = errorResult(c, fmt.Sprintf("the user refused to run %q (risk: %s); do not call it again for this request", c.Name, t.Risk()))
				tr.add(Entry{Step: step, Kind: KindRefused, Call: &calls[i], Result: &results[i]})
				continue
			}
		}
		if t, ok := l.Registry.Lookup(c.Name); ok && cfg.Require[t.Risk()] && !command.Sandboxed(ctx, t) {
			results[i] = errorResult(c, fmt.Sprintf("%v: %q (risk: %s) would run without a sandbox, which this agent requires for %s tools; it was not run", ErrSandboxRequired, c.Name, t.Risk(), t.Risk()))
			tr.add(Entry{Step: step, Kind: KindRefused, Call: &calls[i], Result: &results[i], Text: ErrSandboxRequired.Error()})
			continue
		}
		run = append(run, c)
		at = append(at, i)
	}
	if len(run) > 0 {
		opts := l.Exec
		if !l.parallel(run) {
			opts.Concurrency = 1
		}
		done := l.Registry.ExecuteAll(ctx, run, opts)
		for j, r := range done {
			results[at[j]] = r
		}
		if err := ctx.Err(); err != nil {
			return nil, failed, fmt.Errorf("agent step %d: run tools: %w", step, err)
		}
		for j, i := range at {
			if r, ok := reports[run[j].ID]; ok {
				tr.add(Entry{Step: step, Kind: KindSandbox, Call: &calls[i], Sandbox: &r})
			}
			tr.add(Entry{Step: step, Kind: KindResult, Result: &results[i]})
		}
	}
	return results, failed, nil
}

// parallel reports whether calls may run at once: only when the request
// did not set parallel_tool_calls to false and every call is read-only.
// Calls with side effects run one at a time in the model's order, since
// the model may have ordered them on purpose (write, then read).
func (l *Loop) parallel(calls []core.Call) bool {
	if l.ParallelToolCalls != nil && !*l.ParallelToolCalls {
		return false
	}
	for _, c := range calls {
		if t, ok := l.Registry.Lookup(c.Name); !ok || t.Risk() != tools.RiskReadOnly {
			return false
		}
	}
	return true
}

func errorResult(c core.Call, msg string) core.Result {
	return core.Result{CallID: c.ID, Name: c.Name, IsError: true, Content: []core.Part{core.TextPart(msg)}}
}

// assistantTurn is the canonical assistant message of a response: its
// thinking and plan parts, the text around the calls, the text of
// unreadable calls (kept so the model sees what it wrote) and the calls.
//
// When the extraction is the response as the provider sent it (native
// calls, or an answer), the provider's parts are kept in their order, with
// their item ids and signatures, and only the call ids filled in.
func assistantTurn(resp *core.Response, ex Extraction) core.Message {
	m := core.Message{Role: core.RoleAssistant}
	if native := resp.Calls(); len(native) == len(ex.Calls) && ex.Text == resp.Text() && len(ex.Malformed) == 0 && ex.Scratchpad == "" {
		k := 0
		for _, p := range resp.Message.Parts {
			if p.Kind == core.PartToolCall && p.Call != nil {
				p = core.CallPart(ex.Calls[k])
				k++
			}
			m.Parts = append(m.Parts, p)
		}
		return m
	}
	for _, p := range resp.Message.Parts {
		if p.Kind == core.PartThinking || p.Kind == core.PartPlan {
			m.Parts = append(m.Parts, p)
		}
	}
	text := ex.Text
	if ex.Scratchpad != "" || (len(ex.Malformed) > 0 && text == "") {
		text = resp.Text()
	}
	if text != "" {
		m.Parts = append(m.Parts, core.TextPart(text))
	}
	for _, mc := range ex.Malformed {
		if !strings.Contains(text, mc.Text) {
			m.Parts = append(m.Parts, core.TextPart(mc.Text))
		}
	}
	for _, c := range ex.Calls {
		m.Parts = append(m.Parts, core.CallPart(c))
	}
	return m
}

func userText(s string) core.Message {
	return core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(s)}}
}
