// Package textexec runs a text-format parser written in any language as a
// subprocess speaking docs/format-parser-protocol.md, and makes it a
// textcalls.Parser, so that textcallstest grades it as it grades conform's
// own parsers.
package textexec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/process"
	"github.com/toolconform/conform/textcalls"
)

// ProtocolVersion is the version of the protocol this package speaks.
const ProtocolVersion = 1

// Limits of the protocol.
const (
	// DefaultTimeout bounds the wait for each answer.
	DefaultTimeout = 10 * time.Second
	// StartTimeout bounds the wait for the hello answer of a new child,
	// which includes its start-up.
	StartTimeout = 30 * time.Second
	// MaxLine bounds one line of the child's output.
	MaxLine = 64 << 20
	// MaxEvents bounds the events one answer may hold.
	MaxEvents  = 1 << 20
	stderrTail = 4 << 10
)

// ErrTimeout is returned when the child does not answer in time.
var ErrTimeout = errors.New("no answer before the deadline")

// question is one line sent to the child.
type question struct {
	ID              int64            `json:"id"`
	Op              string           `json:"op"`
	ProtocolVersion int              `json:"protocol_version,omitempty"`
	Format          string           `json:"format,omitempty"`
	Tools           []textcalls.Tool `json:"tools,omitempty"`
	ThinkingOpen    bool             `json:"thinking_open,omitempty"`
	NoThinking      bool             `json:"no_thinking,omitempty"`
	Deltas          []string         `json:"deltas,omitempty"`
}

// answer is one line read from the child.
type answer struct {
	ID          int64          `json:"id"`
	Formats     []string       `json:"formats,omitempty"`
	Events      [][]core.Event `json:"events,omitempty"`
	Unsupported bool           `json:"unsupported,omitempty"`
	Error       *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Error is a failure of the child process itself: it crashed, hung or broke
// the protocol. It fails one question; the next question starts a new
// child, except after a timeout, when none is started again.
type Error struct {
	Command string
	Op      string
	Err     error
	// Stderr is the tail of what the child wrote to its standard error.
	Stderr string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("format parser %q: %s: %v", e.Command, e.Op, e.Err)
	if e.Stderr != "" {
		msg += "\nstderr:\n" + e.Stderr
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Program is a parser program, started with sh -c. Its methods may be
// called from several goroutines; questions are asked one at a time.
type Program struct {
	command string
	timeout time.Duration

	mu       sync.Mutex
	child    *child
	formats  []string
	timedOut error
	nextID   int64
}

// Start starts command and asks it hello. timeout bounds each answer
// (DefaultTimeout if zero).
func Start(command string, timeout time.Duration) (*Program, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	p := &Program{command: command, timeout: timeout}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.ensure(); err != nil {
		return nil, err
	}
	return p, nil
}

// Command is the command the program was started with.
func (p *Program) Command() string { return p.command }

// Formats are the formats the program said it parses, as its hello
// answer named them.
func (p *Program) Formats() []string { return slices.Clone(p.formats) }

// Close ends the child.
func (p *Program) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.child != nil {
		p.child.kill()
		p.child = nil
	}
}

// Parse asks the program to parse deltas in format and returns the events
// it gave after each delta and, last, after the end of the text. An
// answer {"unsupported": true} is reported as errors.ErrUnsupported.
func (p *Program) Parse(format string, opts textcalls.Options, deltas []string) ([][]core.Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := &question{Op: "parse", Format: format, Tools: opts.Tools, ThinkingOpen: opts.ThinkingOpen, NoThinking: opts.NoThinking, Deltas: deltas}
	if q.Deltas == nil {
		q.Deltas = []string{}
	}
	ans, err := p.ask(q, p.timeout)
	if err != nil {
		return nil, err
	}
	switch {
	case ans.Unsupported:
		return nil, fmt.Errorf("format parser %q: format %s: %w", p.command, format, errors.ErrUnsupported)
	case ans.Error != nil:
		return nil, fmt.Errorf("format parser %q: %s", p.command, ans.Error.Message)
	case len(ans.Events) != len(deltas)+1:
		return nil, &Error{Command: p.command, Op: "parse", Err: fmt.Errorf("answer has %d lists of events; want %d, one per delta and one for the end", len(ans.Events), len(deltas)+1)}
	}
	return ans.Events, nil
}

// ensure starts a child if none runs and checks its hello.
func (p *Program) ensure() error {
	if p.timedOut != nil {
		return p.timedOut
	}
	if p.child != nil {
		return nil
	}
	c, err := startChild(p.command)
	if err != nil {
		return &Error{Command: p.command, Op: "start", Err: err}
	}
	p.child = c
	ans, err := p.exchange(&question{Op: "hello", ProtocolVersion: ProtocolVersion}, StartTimeout)
	if err != nil {
		return err
	}
	if len(ans.Formats) == 0 {
		p.child.kill()
		p.child = nil
		return &Error{Command: p.command, Op: "hello", Err: errors.New(`the answer names no "formats"`)}
	}
	p.formats = ans.Formats
	return nil
}

func (p *Program) ask(q *question, timeout time.Duration) (*answer, error) {
	if err := p.ensure(); err != nil {
		return nil, err
	}
	return p.exchange(q, timeout)
}

// exchange writes q and reads its answer; a failure kills the child.
func (p *Program) exchange(q *question, timeout time.Duration) (*answer, error) {
	p.nextID++
	q.ID = p.nextID
	fail := func(err error) (*answer, error) {
		e := &Error{Command: p.command, Op: q.Op, Err: err, Stderr: p.child.stderr.String()}
		if errors.Is(err, ErrTimeout) {
			p.timedOut = e
		}
		p.child.kill()
		p.child = nil
		return nil, e
	}
	line, err := json.Marshal(q)
	if err != nil {
		return fail(err)
	}
	if _, err := p.child.stdin.Write(append(line, '\n')); err != nil {
		return fail(fmt.Errorf("writing the question: %w", err))
	}
	var got readResult
	select {
	case got = <-p.child.lines:
	case <-time.After(timeout):
		return fail(fmt.Errorf("%w (%v)", ErrTimeout, timeout))
	}
	if got.err != nil {
		return fail(got.err)
	}
	var ans answer
	dec := json.NewDecoder(bytes.NewReader(got.line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ans); err != nil {
		return fail(fmt.Errorf("answer %.200q is not an answer: %w", got.line, err))
	}
	if ans.ID != q.ID {
		return fail(fmt.Errorf("answer has id %d; the question was %d", ans.ID, q.ID))
	}
	n := 0
	for _, evs := range ans.Events {
		n += len(evs)
	}
	if n > MaxEvents {
		return fail(fmt.Errorf("answer holds %d events, more than %d", n, MaxEvents))
	}
	return &ans, nil
}

type readResult struct {
	line []byte
	err  error
}

type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan readResult
	stderr *tail
}

func startChild(command string) (*child, error) {
	cmd := exec.Command("sh", "-c", command)
	process.SetGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan readResult, 1), stderr: &tail{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := readLine(r)
			c.lines <- readResult{line, err}
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

// readLine reads one line of at most MaxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > MaxLine {
			return nil, fmt.Errorf("answer line %w: more than %d bytes", core.ErrTooLarge, MaxLine)
		}
		line = append(line, part...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, errors.New("the program exited (its standard output closed)")
		default:
			return nil, err
		}
	}
}

func (c *child) kill() {
	c.stdin.Close()
	if c.cmd.Process != nil {
		process.KillGroup(c.cmd.Process.Pid)
	}
	c.cmd.Wait()
}

// tail keeps the last stderrTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > stderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// Parser returns a textcalls.Parser of format whose work the program does:
// Feed keeps the deltas, Close asks the program for all of them at once and
// appends the events it gave, in order. A failure of the program is an
// error event, which textcalls.Stream reports at the end of the text.
func (p *Program) Parser(format string, opts textcalls.Options) textcalls.Parser {
	return &parser{p: p, format: format, opts: opts}
}

type parser struct {
	p       *Program
	format  string
	opts    textcalls.Options
	deltas  []string
	pending string
}

// Feed keeps delta. A JSON string holds no part of a UTF-8 character, so
// a delta that ends inside one (a byte split) is kept until the character
// is whole: the program is sent whole characters only.
func (x *parser) Feed(dst []core.Event, delta string) []core.Event {
	x.pending += delta
	n := len(x.pending)
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
		if utf8.RuneStart(x.pending[i]) {
			if !utf8.FullRuneInString(x.pending[i:]) {
				n = i
			}
			break
		}
	}
	if n > 0 {
		x.deltas = append(x.deltas, x.pending[:n])
		x.pending = x.pending[n:]
	}
	return dst
}

func (x *parser) Close(dst []core.Event) []core.Event {
	if x.pending != "" {
		x.deltas = append(x.deltas, x.pending)
	}
	lists, err := x.p.Parse(x.format, x.opts, x.deltas)
	if err != nil {
		return append(dst, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: textcalls.ErrorType, Message: err.Error()}})
	}
	for _, evs := range lists {
		for _, ev := range evs {
			if ev.Kind == core.EventError && ev.Error == nil {
				ev.Error = &core.ProviderError{Type: textcalls.ErrorType, Message: "error event without an error"}
			}
			if ev.Chunk == nil && (ev.Kind == core.EventCallStart || ev.Kind == core.EventCallDelta || ev.Kind == core.EventCallEnd) {
				ev = core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: textcalls.ErrorType, Message: fmt.Sprintf("%s event without a chunk", ev.Kind)}}
			}
			dst = append(dst, ev)
		}
	}
	return dst
}
