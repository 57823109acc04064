package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
)

// The defaults of ExecOptions.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxOutputBytes = 64 << 10
	DefaultConcurrency    = 4
)

// ExecOptions bounds the execution of calls. The zero value means the
// defaults. Options are a struct rather than functional options because
// every field is a plain limit a caller may want to read back or log.
type ExecOptions struct {
	// Concurrency is how many calls ExecuteAll runs at once; zero or less
	// means DefaultConcurrency.
	Concurrency int
	// Timeout bounds one call; zero means DefaultTimeout, a negative value
	// no timeout.
	Timeout time.Duration
	// MaxOutputBytes bounds the text of one result; zero means
	// DefaultMaxOutputBytes, a negative value no limit. Longer text is cut
	// on a UTF-8 boundary and marked with a trailing
	// "[output truncated: N of M bytes]" line, added after the limit.
	MaxOutputBytes int
	// OnPanic, if set, is called with the call, the panic value and the
	// stack of a handler that panicked; the model only sees the value.
	OnPanic func(call core.Call, value any, stack []byte)
}

func (o ExecOptions) timeout() time.Duration {
	if o.Timeout == 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o ExecOptions) maxOutput() int {
	if o.MaxOutputBytes == 0 {
		return DefaultMaxOutputBytes
	}
	return o.MaxOutputBytes
}

func (o ExecOptions) concurrency() int {
	if o.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return o.Concurrency
}

// Execute runs a call with the default ExecOptions. See ExecuteWith.
func (r *Registry) Execute(ctx context.Context, call core.Call) core.Result {
	return r.ExecuteWith(ctx, call, ExecOptions{})
}

// ExecuteWith validates a call and runs its tool's handler with a per-call
// timeout, an output limit and panic recovery. Every failure becomes an
// error Result (IsError true) whose text says what happened, fit to send
// back to the model: an unknown tool, arguments that are not JSON or do not
// match the schema (the Validation message), a timeout, a cancelled
// context, a panic, a handler error, or output that does not match the
// tool's output schema. ExecuteWith never panics because of a handler.
//
// On a timeout the handler's context is cancelled and ExecuteWith returns
// at once; a handler that ignores its context keeps running in its own
// goroutine until it returns, and its output is dropped.
func (r *Registry) ExecuteWith(ctx context.Context, call core.Call, opts ExecOptions) core.Result {
	res := r.execute(ctx, call, opts)
	res.CallID = call.ID
	res.Name = call.Name
	return res
}

func (r *Registry) execute(ctx context.Context, call core.Call, opts ExecOptions) core.Result {
	limit := opts.maxOutput()
	if err := ctx.Err(); err != nil {
		return errorResult(limit, "tool %q was not run: %v", call.Name, err)
	}
	t, ok := r.Lookup(call.Name)
	if !ok {
		r.mu.RLock()
		err := r.unknownLocked(call.Name)
		r.mu.RUnlock()
		return errorResult(limit, "%v", err)
	}
	v := t.Validate(call.Arguments)
	if !v.Valid {
		return errorResult(limit, "%s", v.Message)
	}
	for _, g := range guards(ctx) {
		if err := g(ctx, t); err != nil {
			return errorResult(limit, "tool %q was not run: %v", call.Name, err)
		}
	}

	var cctx context.Context
	var cancel context.CancelFunc
	timeout := opts.timeout()
	if timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		cctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	cctx = context.WithValue(cctx, callKey{}, call)
	cctx = context.WithValue(cctx, outputLimitKey{}, limit)

	type outcome struct {
		out      json.RawMessage
		err      error
		panicked bool
		value    any
		exited   bool // the handler called runtime.Goexit
	}
	done := make(chan outcome, 1) // buffered: a late handler never blocks
	go func() {
		returned := false
		defer func() {
			p := recover()
			switch {
			case p != nil:
				if opts.OnPanic != nil {
					opts.OnPanic(call, p, debug.Stack())
				}
				done <- outcome{panicked: true, value: p}
			case !returned:
				// Neither a return nor a panic: runtime.Goexit, as
				// t.FailNow calls, unwound the handler.
				done <- outcome{exited: true}
			}
		}()
		out, err := t.handler(cctx, v.Arguments)
		returned = true
		done <- outcome{out: out, err: err}
	}()

	var o outcome
	select {
	case o = <-done:
	case <-cctx.Done():
		select {
		case o = <-done: // finished at the same moment: keep its answer
		default:
			return stopped(ctx, limit, call.Name, timeout)
		}
	}
	switch {
	case o.panicked:
		return errorResult(limit, "tool %q panicked: %v", call.Name, o.value)
	case o.exited:
		return errorResult(limit, "tool %q: %v", call.Name, ErrHandlerExited)
	case o.err != nil:
		var big *outputTooLargeError
		if errors.As(o.err, &big) {
			return capped(call.Name, t, big.kept, big.size, limit)
		}
		if cctx.Err() != nil && errors.Is(o.err, cctx.Err()) {
			return stopped(ctx, limit, call.Name, timeout)
		}
		return errorResult(limit, "tool %q failed: %v", call.Name, o.err)
	}
	if limit >= 0 && len(o.out) > limit {
		return capped(call.Name, t, o.out[:limit+1], len(o.out), limit)
	}
	if t.outputCheck != nil {
		ps, err := t.outputCheck.Validate(o.out)
		if err != nil {
			return errorResult(limit, "tool %q returned output that is not JSON, but it has an output schema: %v", call.Name, err)
		}
		if len(ps) > 0 {
			parts := make([]string, len(ps))
			for i, p := range ps {
				parts[i] = p.String()
			}
			return errorResult(limit, "tool %q returned output that does not match its output schema: %s", call.Name, strings.Join(parts, "; "))
		}
	}
	return core.Result{Content: []core.Part{core.TextPart(string(o.out))}}
}

// A Guard decides, before a tool's handler runs, whether the tool may run
// in ctx; an error refuses the call, and its text is the result's.
type Guard func(ctx context.Context, t *Tool) error

type guardKey struct{}

// WithGuard returns a context in which ExecuteWith runs no handler that
// g, or a guard ctx already has, refuses. tools/command's WithConfig adds
// one that refuses a tool its Config requires to run sandboxed and that
// would not.
func WithGuard(ctx context.Context, g Guard) context.Context {
	gs := guards(ctx)
	return context.WithValue(ctx, guardKey{}, append(gs[:len(gs):len(gs)], g))
}

func guards(ctx context.Context) []Guard {
	gs, _ := ctx.Value(guardKey{}).([]Guard)
	return gs
}

// callKey is the context key of the call a handler runs.
type callKey struct{}

// CallFromContext returns the call whose handler got ctx from
// Registry.ExecuteWith (its id names the call in reports a handler makes).
func CallFromContext(ctx context.Context) (core.Call, bool) {
	c, ok := ctx.Value(callKey{}).(core.Call)
	return c, ok
}

// capped is the result of a tool whose output of size bytes is above the
// limit, of which kept holds the first limit+1 bytes. Nothing past the cap is
// read: no copy of the whole output, and no check of it against an output
// schema, which would parse all of it.
func capped(name string, t *Tool, kept []byte, size, limit int) core.Result {
	if t.outputCheck != nil {
		return errorResult(limit, "tool %q returned %d bytes of output, more than the limit of %d: %v", name, size, limit, ErrOutputTooLarge)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(kept[cut]) {
		cut--
	}
	return core.Result{Content: []core.Part{core.TextPart(fmt.Sprintf("%s\n[output truncated: %d of %d bytes]", kept[:cut], cut, size))}}
}

// outputLimitKey is the context key under which ExecuteWith passes
// MaxOutputBytes to a typed tool's handler, which stops keeping its
// encoded result at the cap.
type outputLimitKey struct{}

// OutputLimit returns the output limit, in bytes, that ExecuteWith gives
// a handler in its context, or -1 for no limit or a context that did not
// come from ExecuteWith. A handler that reads its output as it comes (a
// program's standard output) can stop reading there.
func OutputLimit(ctx context.Context) int { return outputLimit(ctx) }

// outputLimit returns the output limit ExecuteWith set in ctx, or -1 (no
// limit) for a handler called directly.
func outputLimit(ctx context.Context) int {
	if n, ok := ctx.Value(outputLimitKey{}).(int); ok {
		return n
	}
	return -1
}

// outputTooLargeError is returned by a typed tool's handler whose encoded
// result is above the limit: size bytes, of which it kept the first
// limit+1.
type outputTooLargeError struct {
	kept []byte
	size int
}

func (e *outputTooLargeError) Error() string {
	return fmt.Sprintf("encode result: %d bytes, more than the limit of %d", e.size, len(e.kept)-1)
}

// encodeCapped encodes v as JSON through a writer that keeps at most limit
// bytes (all of them for a negative limit). encoding/json builds the
// encoding whole before it writes, so what the cap saves is the copy
// json.Marshal makes and the output kept afterwards.
func encodeCapped(v any, limit int) (json.RawMessage, error) {
	w := &cappedWriter{limit: limit}
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	w.size-- // Encode ends with a newline; Marshal does not
	if limit >= 0 && w.size > limit {
		return nil, &outputTooLargeError{kept: w.kept, size: w.size}
	}
	return w.kept[:w.size], nil
}

// cappedWriter keeps the first limit+1 bytes written to it (every byte for
// a negative limit), enough to tell where a cut at limit falls, and counts
// them all.
type cappedWriter struct {
	limit int
	kept  []byte
	size  int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.size += len(p)
	room := len(p)
	if w.limit >= 0 {
		room = min(room, w.limit+1-len(w.kept))
	}
	w.kept = append(w.kept, p[:max(room, 0)]...)
	return len(p), nil
}

// ErrHandlerExited is the reason given for a handler that neither returned
// nor panicked: it called runtime.Goexit (t.FailNow and t.SkipNow do).
var ErrHandlerExited = errors.New("handler exited its goroutine without returning (runtime.Goexit)")

// ErrOutputTooLarge is the reason given for output above
// ExecOptions.MaxOutputBytes from a tool with an output schema: cut, it
// cannot match the schema, and it is not parsed to find out.
var ErrOutputTooLarge = errors.New("output too large to check against the output schema")

// stopped is the result of a call whose context ended before its handler
// returned.
func stopped(parent context.Context, limit int, name string, timeout time.Duration) core.Result {
	if err := parent.Err(); err != nil {
		return errorResult(limit, "tool %q was cancelled: %v", name, err)
	}
	return errorResult(limit, "tool %q timed out after %v", name, timeout)
}

func errorResult(limit int, format string, args ...any) core.Result {
	return core.Result{IsError: true, Content: []core.Part{core.TextPart(truncateOutput([]byte(fmt.Sprintf(format, args...)), limit))}}
}

// truncateOutput returns at most limit bytes of out, cut on a UTF-8
// boundary, and marks the cut. It copies only the bytes it keeps. A
// negative limit means no limit.
func truncateOutput(out []byte, limit int) string {
	if limit < 0 || len(out) <= limit {
		return string(out)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n[output truncated: %d of %d bytes]", out[:cut], cut, len(out))
}

// ExecuteAll runs calls in parallel, at most opts.Concurrency at a time, and
// returns their results in call order. Calls not yet started when ctx ends
// get an error result saying they were not run.
func (r *Registry) ExecuteAll(ctx context.Context, calls []core.Call, opts ExecOptions) []core.Result {
	results := make([]core.Result, len(calls))
	sem := make(chan struct{}, opts.concurrency())
	var wg sync.WaitGroup
	for i, c := range calls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			results[i] = r.ExecuteWith(ctx, c, opts) // reports "not run"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = r.ExecuteWith(ctx, c, opts)
		}()
	}
	wg.Wait()
	return results
}
