package agent

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/sandbox"
)

// EntryKind says what a trace Entry records.
type EntryKind string

// The kinds of trace entries.
const (
	KindRequest  EntryKind = "request"
	KindResponse EntryKind = "response"
	KindCall     EntryKind = "call"
	KindRefused  EntryKind = "refused"
	// KindSandbox records what the sandbox of a program tool's call
	// enforced (tools/sandbox.Report), before the call's result.
	KindSandbox    EntryKind = "sandbox"
	KindResult     EntryKind = "result"
	KindMalformed  EntryKind = "malformed"
	KindScratchpad EntryKind = "scratchpad"
	KindAnswer     EntryKind = "answer"
)

// Entry is one thing that happened in a Run, at a step (1 for the first
// model call).
type Entry struct {
	Step       int               `json:"step"`
	Kind       EntryKind         `json:"kind"`
	Request    *core.Request     `json:"request,omitempty"`
	Removed    []string          `json:"removed,omitempty"`
	Response   *core.Response    `json:"response,omitempty"`
	Call       *core.Call        `json:"call,omitempty"`
	Validation *tools.Validation `json:"validation,omitempty"`
	Result     *core.Result      `json:"result,omitempty"`
	Sandbox    *sandbox.Report   `json:"sandbox,omitempty"`
	// Text is the answer, scratchpad or malformed text; on a call entry,
	// a note that the loop replaced the call's id (a duplicate); on a
	// refusal for want of a sandbox, the reason.
	Text string `json:"text,omitempty"`
	Err  string `json:"error,omitempty"`
}

// Trace is the record of a Run, in order. Its memory grows with the
// conversation, since each request entry holds the request as sent.
type Trace struct {
	Entries []Entry `json:"entries"`
}

func (t *Trace) add(e Entry) { t.Entries = append(t.Entries, e) }

// Kinds returns the kinds of the entries, in order.
func (t *Trace) Kinds() []EntryKind {
	out := make([]EntryKind, len(t.Entries))
	for i, e := range t.Entries {
		out[i] = e.Kind
	}
	return out
}

// Write prints the trace for people, one line per entry (requests list
// their messages and tools).
func (t *Trace) Write(w io.Writer) error {
	var b strings.Builder
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "step %d %s", e.Step, e.Kind)
		switch e.Kind {
		case KindRequest:
			r := e.Request
			fmt.Fprintf(&b, ": model %q, %d messages, %d tools", r.Model, len(r.Messages), len(r.Tools))
			if r.ResponseFormat != nil {
				fmt.Fprintf(&b, ", response_format %q", r.ResponseFormat.Name)
			}
			if r.Stream {
				b.WriteString(", streamed")
			}
			if len(e.Removed) > 0 {
				fmt.Fprintf(&b, ", left out %s", strings.Join(e.Removed, ", "))
			}
			if n := len(r.Messages); n > 0 {
				fmt.Fprintf(&b, "; last %s: %s", r.Messages[n-1].Role, oneLine(messageText(r.Messages[n-1])))
			}
		case KindResponse:
			fmt.Fprintf(&b, ": finish %s, %d calls, text %s", e.Response.Finish, len(e.Response.Calls()), oneLine(e.Response.Text()))
		case KindCall:
			fmt.Fprintf(&b, ": %s %s(%s)", e.Call.ID, e.Call.Name, e.Call.Arguments)
			if e.Validation != nil && !e.Validation.Valid {
				fmt.Fprintf(&b, " invalid: %s", e.Validation.Message)
			}
			if e.Text != "" {
				fmt.Fprintf(&b, " (%s)", e.Text)
			}
		case KindRefused:
			if e.Text != "" {
				fmt.Fprintf(&b, ": %s %s: %s", e.Call.ID, e.Call.Name, e.Text)
			} else {
				fmt.Fprintf(&b, ": %s %s not approved", e.Call.ID, e.Call.Name)
			}
		case KindSandbox:
			fmt.Fprintf(&b, ": %s %s", e.Call.ID, e.Sandbox)
		case KindResult:
			flag := ""
			if e.Result.IsError {
				flag = " error"
			}
			fmt.Fprintf(&b, ": %s%s %s", e.Result.CallID, flag, oneLine(e.Result.Text()))
		case KindMalformed:
			fmt.Fprintf(&b, ": %s: %s", e.Err, oneLine(e.Text))
		default:
			fmt.Fprintf(&b, ": %s", oneLine(e.Text))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// messageText renders a message's text, calls and results for the trace.
func messageText(m core.Message) string {
	var parts []string
	for _, p := range m.Parts {
		switch {
		case p.Kind == core.PartText:
			parts = append(parts, p.Text)
		case p.Call != nil:
			parts = append(parts, fmt.Sprintf("call %s %s(%s)", p.Call.ID, p.Call.Name, p.Call.Arguments))
		case p.Result != nil:
			parts = append(parts, fmt.Sprintf("result %s %s", p.Result.CallID, p.Result.Text()))
		}
	}
	return strings.Join(parts, " | ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		cut := 160
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}
