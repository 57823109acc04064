package subprocess

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/process"
)

// ProtocolVersion is the version of the adapter protocol this package speaks.
const ProtocolVersion = 1

// The operations a child may support. A child lists those it supports in its
// hello answer; the others fail with errors.ErrUnsupported.
const (
	OpEncodeRequest  = "encode_request"
	OpDecodeRequest  = "decode_request"
	OpEncodeResponse = "encode_response"
	OpDecodeResponse = "decode_response"
	OpDecodeStream   = "decode_stream"
	OpEncodeStream   = "encode_stream"
)

// Ops lists every operation of the protocol.
var Ops = []string{OpEncodeRequest, OpDecodeRequest, OpEncodeResponse, OpDecodeResponse, OpDecodeStream, OpEncodeStream}

// Limits and defaults.
const (
	// DefaultTimeout bounds the wait for each answer.
	DefaultTimeout = 10 * time.Second
	// DefaultStartTimeout bounds the wait for the hello answer of a new
	// child, which includes its start-up (an interpreter, say).
	DefaultStartTimeout = 30 * time.Second
	// MaxLine bounds one line of the child's output.
	MaxLine = 64 << 20
)

// ErrTimeout is returned when the child does not answer in time.
var ErrTimeout = errors.New("no answer before the deadline")

// ErrLineTooLong is returned when the child writes a line longer than
// MaxLine; it wraps core.ErrTooLarge.
var ErrLineTooLong = fmt.Errorf("answer line %w", core.ErrTooLarge)

// question is one line sent to the child.
type question struct {
	ID              int64          `json:"id"`
	Op              string         `json:"op"`
	ProtocolVersion int            `json:"protocol_version,omitempty"`
	Body            *string        `json:"body,omitempty"`
	BodyBase64      []byte         `json:"body_base64,omitempty"`
	Request         *core.Request  `json:"request,omitempty"`
	Response        *core.Response `json:"response,omitempty"`
	Events          []core.Event   `json:"events,omitempty"`
}

// answer is one line read from the child.
type answer struct {
	ID          int64          `json:"id"`
	Name        string         `json:"name,omitempty"`
	Ops         []string       `json:"ops,omitempty"`
	Body        *string        `json:"body,omitempty"`
	BodyBase64  []byte         `json:"body_base64,omitempty"`
	Request     *core.Request  `json:"request,omitempty"`
	Response    *core.Response `json:"response,omitempty"`
	Events      []core.Event   `json:"events,omitempty"`
	Unsupported bool           `json:"unsupported,omitempty"`
	Error       *AnswerError   `json:"error,omitempty"`
}

// AnswerError is an error the child reported for a question, such as a body
// it could not decode.
type AnswerError struct {
	Message string `json:"message"`
	// Offset is the byte offset of the fault in the body, when known.
	Offset *int64 `json:"offset,omitempty"`
}

func (e *AnswerError) Error() string {
	if e.Offset != nil {
		return fmt.Sprintf("at byte %d: %s", *e.Offset, e.Message)
	}
	return e.Message
}

// Error is a failure of the child process itself: it crashed, hung or broke
// the protocol. It fails one question; the next question starts a new child.
type Error struct {
	Command string
	Op      string
	Err     error
	// Stderr is the tail of what the child wrote to its standard error.
	Stderr string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("adapter %q: %s: %v", e.Command, e.Op, e.Err)
	if e.Stderr != "" {
		msg += "\nstderr:\n" + e.Stderr
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Adapter is a core.Adapter whose work is done by a child process.
type Adapter struct {
	command      string
	timeout      time.Duration
	startTimeout time.Duration

	// after gives the channel a deadline fires on; tests replace it, so
	// that they wait on an event rather than a clock.
	after func(time.Duration) <-chan time.Time

	mu     sync.Mutex
	child  *child
	nextID int64
	name   string
	ops    []string
	// hung is the first timeout: a child that hung once is not asked
	// again, so that a hanging adapter costs one deadline, not one per
	// question.
	hung *Error
}

var _ core.Adapter = (*Adapter)(nil)

// Option configures an Adapter.
type Option func(*Adapter)

// WithTimeout sets the deadline for each answer.
func WithTimeout(d time.Duration) Option { return func(a *Adapter) { a.timeout = d } }

// WithStartTimeout sets the deadline for a new child's hello answer.
func WithStartTimeout(d time.Duration) Option { return func(a *Adapter) { a.startTimeout = d } }

// Start starts the child given by command, run with "sh -c", and asks it who
// it is. The returned adapter must be closed.
func Start(command string, opts ...Option) (*Adapter, error) {
	a := &Adapter{command: command, timeout: DefaultTimeout, startTimeout: DefaultStartTimeout, after: time.After}
	for _, opt := range opts {
		opt(a)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.startLocked(); err != nil {
		return nil, err
	}
	return a, nil
}

// Name returns the protocol name the child gave in its hello answer.
func (a *Adapter) Name() string { return a.name }

// Supports reports whether the child said it supports op.
func (a *Adapter) Supports(op string) bool { return slices.Contains(a.ops, op) }

// coreOps maps the operations of core.Adapter to the protocol's names.
var coreOps = map[core.Operation]string{
	core.OpEncodeRequest:  OpEncodeRequest,
	core.OpDecodeRequest:  OpDecodeRequest,
	core.OpEncodeResponse: OpEncodeResponse,
	core.OpDecodeResponse: OpDecodeResponse,
	core.OpDecodeStream:   OpDecodeStream,
	core.OpEncodeStream:   OpEncodeStream,
}

// Implements reports whether the child listed op in its hello answer
// (core.Implementer): an operation it did not list fails with
// core.NotImplementedError, and a case that needs it is not graded.
func (a *Adapter) Implements(op core.Operation) bool { return a.Supports(coreOps[op]) }

// Close stops the child.
func (a *Adapter) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.child != nil {
		a.child.kill()
		a.child = nil
	}
	return nil
}

func (a *Adapter) startLocked() error {
	c, err := startChild(a.command)
	if err != nil {
		return &Error{Command: a.command, Op: "start", Err: err}
	}
	a.child = c
	ans, err := a.askLocked(&question{Op: "hello", ProtocolVersion: ProtocolVersion}, a.startTimeout)
	if err != nil {
		return err
	}
	if ans.Name == "" {
		a.child.kill()
		a.child = nil
		return &Error{Command: a.command, Op: "hello", Err: errors.New(`the hello answer has no "name"`)}
	}
	for _, op := range ans.Ops {
		if !slices.Contains(Ops, op) {
			a.child.kill()
			a.child = nil
			return &Error{Command: a.command, Op: "hello", Err: fmt.Errorf("unknown operation %q; known: %v", op, Ops)}
		}
	}
	a.name, a.ops = ans.Name, ans.Ops
	return nil
}

// ask sends one question and waits for its answer, starting a fresh child
// when the previous one failed. An answer that reports an error is
// returned with the error.
func (a *Adapter) ask(q *question) (*answer, error) {
	if !a.Supports(q.Op) {
		for op, name := range coreOps {
			if name == q.Op {
				return nil, fmt.Errorf("adapter %q: %s: %w", a.command, q.Op, &core.NotImplementedError{Op: op})
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hung != nil {
		return nil, &Error{Command: a.command, Op: q.Op, Err: fmt.Errorf("not asked: the adapter hung earlier (%s: %w)", a.hung.Op, a.hung.Err)}
	}
	if a.child == nil {
		if err := a.startLocked(); err != nil {
			return nil, err
		}
	}
	ans, err := a.askLocked(q, a.timeout)
	if err != nil {
		return nil, err
	}
	if ans.Unsupported {
		return nil, fmt.Errorf("adapter %q: %s: %w", a.command, q.Op, errors.ErrUnsupported)
	}
	if ans.Error != nil {
		// The child's own error reads as a decoder's does ("decode
		// stream: at byte 691: ..."); the answer is kept, for the events a
		// stream decoded before its fault.
		return ans, fmt.Errorf("adapter %q: %s: %w", a.command, strings.ReplaceAll(q.Op, "_", " "), ans.Error)
	}
	return ans, nil
}

func (a *Adapter) askLocked(q *question, timeout time.Duration) (*answer, error) {
	a.nextID++
	q.ID = a.nextID
	fail := func(err error) (*answer, error) {
		stderr := a.child.kill()
		a.child = nil
		e := &Error{Command: a.command, Op: q.Op, Err: err, Stderr: stderr}
		if errors.Is(err, ErrTimeout) {
			a.hung = e
		}
		return nil, e
	}
	line, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("adapter %q: %s: encoding the question: %w", a.command, q.Op, err)
	}
	if _, err := a.child.stdin.Write(append(line, '\n')); err != nil {
		// A child that exits before it reads its question breaks the
		// pipe; say that it exited, as the read would have.
		if a.child.exited(time.Second) {
			return fail(fmt.Errorf("the adapter exited without answering (%v); writing the question: %w", a.child.exitStatus(), err))
		}
		return fail(fmt.Errorf("writing the question: %w", err))
	}
	deadline := a.after(timeout)
	select {
	case r, ok := <-a.child.lines:
		if !ok {
			return fail(fmt.Errorf("the adapter exited without answering (%v)", a.child.exitStatus()))
		}
		if r.err != nil {
			return fail(r.err)
		}
		var ans answer
		dec := json.NewDecoder(bytes.NewReader(r.line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ans); err != nil {
			return fail(fmt.Errorf("the answer is not valid: %w; line: %.200q", err, r.line))
		}
		if ans.ID != q.ID {
			return fail(fmt.Errorf("the answer is for question %d, want %d", ans.ID, q.ID))
		}
		return &ans, nil
	case <-deadline:
		return fail(fmt.Errorf("%w (%v); the adapter is not asked again", ErrTimeout, timeout))
	}
}

// body returns the answer's body from whichever field carries it.
func (ans *answer) body(op string) ([]byte, error) {
	switch {
	case ans.Body != nil && ans.BodyBase64 != nil:
		return nil, fmt.Errorf("%s: the answer has both body and body_base64", op)
	case ans.Body != nil:
		return []byte(*ans.Body), nil
	case ans.BodyBase64 != nil:
		return ans.BodyBase64, nil
	}
	return nil, fmt.Errorf("%s: the answer has no body", op)
}

// bodyQuestion returns a question carrying body as text when it is valid
// UTF-8 and as base64 otherwise.
func bodyQuestion(op string, body []byte) *question {
	if utf8.Valid(body) {
		s := string(body)
		return &question{Op: op, Body: &s}
	}
	return &question{Op: op, BodyBase64: body}
}

// EncodeRequest asks the child to encode req.
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	ans, err := a.ask(&question{Op: OpEncodeRequest, Request: req})
	if err != nil {
		return nil, err
	}
	return ans.body(OpEncodeRequest)
}

// DecodeRequest asks the child to decode body.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	ans, err := a.ask(bodyQuestion(OpDecodeRequest, body))
	if err != nil {
		return nil, err
	}
	if ans.Request == nil {
		return nil, fmt.Errorf("adapter %q: %s: the answer has no request", a.command, OpDecodeRequest)
	}
	return ans.Request, nil
}

// EncodeResponse asks the child to encode resp.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	ans, err := a.ask(&question{Op: OpEncodeResponse, Response: resp})
	if err != nil {
		return nil, err
	}
	return ans.body(OpEncodeResponse)
}

// DecodeResponse asks the child to decode body.
func (a *Adapter) DecodeResponse(body []byte) (*core.Response, error) {
	ans, err := a.ask(bodyQuestion(OpDecodeResponse, body))
	if err != nil {
		return nil, err
	}
	if ans.Response == nil {
		return nil, fmt.Errorf("adapter %q: %s: the answer has no response", a.command, OpDecodeResponse)
	}
	return ans.Response, nil
}

// DecodeStream reads the whole stream, asks the child to decode it, and
// yields the events of its answer. The protocol is one question, one answer,
// so a child sees a stream whole; split-independence is the child's own
// business.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	body, err := io.ReadAll(r)
	if err != nil {
		return &eventStream{err: fmt.Errorf("adapter %q: %s: reading the stream: %w", a.command, OpDecodeStream, err)}
	}
	ans, err := a.ask(bodyQuestion(OpDecodeStream, body))
	if err != nil {
		// An error answer may carry the events decoded before the fault.
		var events []core.Event
		if ans != nil {
			events = ans.Events
		}
		return &eventStream{events: events, err: err}
	}
	return &eventStream{events: ans.Events}
}

// EncodeStream asks the child to encode events and writes the answer's body.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	ans, err := a.ask(&question{Op: OpEncodeStream, Events: events})
	if err != nil {
		return err
	}
	body, err := ans.body(OpEncodeStream)
	if err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}

// eventStream yields a fixed list of events, then err or io.EOF.
type eventStream struct {
	events []core.Event
	err    error
}

func (s *eventStream) Next() (core.Event, error) {
	if len(s.events) == 0 {
		if s.err != nil {
			return core.Event{}, s.err
		}
		return core.Event{}, io.EOF
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

// lineResult is one line of the child's output, or the error that ended it.
type lineResult struct {
	line []byte
	err  error
}

// child is one running adapter process.
type child struct {
	proc   *process.Process
	stdin  io.WriteCloser
	lines  chan lineResult
	stderr *process.Output
}

// stderrHead and stderrTail bound what is kept of a child's standard
// error: its start-up messages and its last words.
const (
	stderrHead = 1 << 10
	stderrTail = 4 << 10
)

func startChild(command string) (*child, error) {
	stderr := process.NewOutput(stderrHead, stderrTail)
	// The child's own children (sh -c runs one) share its process group, so
	// that a kill reaches all of them.
	proc, err := process.Start(command, process.Options{Env: os.Environ(), Stdin: true, Stderr: stderr})
	if err != nil {
		return nil, err
	}
	c := &child{proc: proc, stdin: proc.Stdin(), lines: make(chan lineResult), stderr: stderr}
	go func() {
		defer close(c.lines)
		r := bufio.NewReaderSize(proc.Stdout(), 64<<10)
		for {
			line, err := readLine(r)
			if err == io.EOF {
				return
			}
			c.lines <- lineResult{line: line, err: err}
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

// readLine reads one line without its line end, bounded by MaxLine.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, MaxLine)
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// kill stops the child and everything it started, waits for it, and returns
// what was kept of its standard error.
func (c *child) kill() string {
	// Drain lines so that the reader goroutine can finish.
	go func() {
		for range c.lines {
		}
	}()
	c.proc.Kill()
	return c.stderr.String()
}

// exited reports whether the child exits within d.
func (c *child) exited(d time.Duration) bool {
	select {
	case <-c.proc.Exited():
		return true
	case <-time.After(d):
		return false
	}
}

func (c *child) exitStatus() string {
	select {
	case <-c.proc.Exited():
	case <-time.After(time.Second):
	}
	return c.proc.ExitStatus()
}
