package oaichat

import (
	"errors"
	"fmt"

	"github.com/toolconform/conform/core"
)

// ErrBadHistory reports a conversation history Chat Completions servers
// reject with a 400.
var ErrBadHistory = errors.New("history the provider rejects")

// HistoryChecks chooses the optional checks of CheckHistory.
type HistoryChecks struct {
	// MaxIDLen > 0 reports call ids longer than it (D04; OpenAI's limit
	// is 40).
	MaxIDLen int
	// Arguments reports calls whose arguments are kept as non-JSON text
	// (G09). Chat Completions carries arguments as a string, so servers
	// accept such a history; the model may not.
	Arguments bool
}

// CheckHistory reports every problem of a conversation's history, one
// error per problem, joined, each wrapping ErrBadHistory and naming the
// message and the call:
//
//   - a call not answered by a result in the messages right after its
//     assistant message (G01, G03): Chat Completions wants one tool message
//     per call, before any other message;
//   - a result without a call id (G06);
//   - a result that answers no call of the assistant message before it: an
//     orphan, a late answer or a second answer (G02);
//   - with the optional checks, over-long ids (D04) and non-JSON arguments
//     (G09).
//
// It returns nil for a clean history. EncodeRequest runs it without the
// optional checks and refuses a history it faults. A problem of a rule
// core.CheckHistory shares (G01, G02, G03, G06) also wraps its
// *core.HistoryError; the Chat Completions extras (results right after
// their calls, D04, G09) wrap only ErrBadHistory.
func CheckHistory(msgs []core.Message, checks HistoryChecks) error {
	var errs []error
	shared := sharedProblems(msgs)
	// badAs records a problem; when core.CheckHistory found the same
	// broken rule (guard, id), the problem wraps its *core.HistoryError too.
	badAs := func(guard, id, format string, args ...any) {
		err := fmt.Errorf("%w: "+format, append([]any{ErrBadHistory}, args...)...)
		if he := shared[guard+"\x00"+id]; he != nil {
			err = &sharedRule{err: err, core: he}
		}
		errs = append(errs, err)
	}
	bad := func(format string, args ...any) { badAs("", "", format, args...) }
	// Two calls of one turn with one id (D06), which core.CheckHistory
	// finds, are not refused here yet: the round-trip properties of
	// openaichat and mistral draw such histories.
	seen := map[string]bool{}
	type open struct {
		msg  int
		call core.Call
	}
	var pending []open
	flush := func(at int) {
		for _, p := range pending {
			if at < 0 {
				badAs("G01", p.call.ID, "messages[%d]: call %q (%s) has no tool result at the end of the history (G03)", p.msg, p.call.ID, p.call.Name)
			} else {
				badAs("G01", p.call.ID, "messages[%d]: call %q (%s) has no tool result before messages[%d] (G01, G03)", p.msg, p.call.ID, p.call.Name, at)
			}
		}
		pending = nil
	}
	for i, m := range msgs {
		hasResult, hasOther := false, false
		for _, p := range m.Parts {
			if p.Kind == core.PartToolResult {
				hasResult = true
			} else {
				hasOther = true
			}
		}
		if m.Role == core.RoleAssistant || !hasResult {
			flush(i)
		}
		for j, p := range m.Parts {
			switch {
			case p.Kind == core.PartToolCall && p.Call != nil:
				if checks.MaxIDLen > 0 && len(p.Call.ID) > checks.MaxIDLen {
					bad("messages[%d].parts[%d]: call id %q is %d characters, over the limit of %d (D04)", i, j, p.Call.ID, len(p.Call.ID), checks.MaxIDLen)
				}
				if checks.Arguments && p.Call.Arguments == nil && p.Call.Original != "" {
					bad("messages[%d].parts[%d]: call %q: %w: %q (G09)", i, j, p.Call.ID, core.ErrInvalidArguments, p.Call.Original)
				}
				seen[p.Call.ID] = true
				pending = append(pending, open{msg: i, call: *p.Call})
			case p.Kind == core.PartToolResult && p.Result != nil:
				id := p.Result.CallID
				if id == "" {
					badAs("G06", "", "messages[%d].parts[%d]: %w (G06)", i, j, ErrMissingCallID)
					continue
				}
				k := -1
				for n, o := range pending {
					if o.call.ID == id {
						k = n
						break
					}
				}
				switch {
				case k >= 0:
					pending = append(pending[:k], pending[k+1:]...)
				case seen[id]:
					guard := "G02" // a late answer
					if shared["G03\x00"+id] != nil {
						guard = "G03" // a second answer
					}
					badAs(guard, id, "messages[%d].parts[%d]: result for %q does not follow its call's assistant message, or answers it twice (G02)", i, j, id)
				default:
					badAs("G02", id, "messages[%d].parts[%d]: result for %q answers no earlier call (G02)", i, j, id)
				}
			}
		}
		if m.Role != core.RoleAssistant && hasResult && hasOther {
			flush(i) // text after results ends the tool messages
		}
	}
	flush(-1)
	return errors.Join(errs...)
}

// sharedProblems runs core.CheckHistory and indexes its problems by guard
// and call id (the first of each).
func sharedProblems(msgs []core.Message) map[string]*core.HistoryError {
	out := map[string]*core.HistoryError{}
	err := core.CheckHistory(msgs)
	if err == nil {
		return out
	}
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	for _, e := range list {
		var he *core.HistoryError
		if errors.As(e, &he) {
			if k := he.Guard + "\x00" + he.CallID; out[k] == nil {
				out[k] = he
			}
		}
	}
	return out
}

// sharedRule is a problem of CheckHistory that core.CheckHistory also
// finds: it reads as err and wraps both err and the *core.HistoryError.
type sharedRule struct {
	err  error
	core *core.HistoryError
}

func (e *sharedRule) Error() string   { return e.err.Error() }
func (e *sharedRule) Unwrap() []error { return []error{e.err, e.core} }
