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
// optional checks and refuses a history it faults.
func CheckHistory(msgs []core.Message, checks HistoryChecks) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrBadHistory}, args...)...))
	}
	seen := map[string]bool{}
	type open struct {
		msg  int
		call core.Call
	}
	var pending []open
	flush := func(at int) {
		for _, p := range pending {
			if at < 0 {
				bad("messages[%d]: call %q (%s) has no tool result at the end of the history (G03)", p.msg, p.call.ID, p.call.Name)
			} else {
				bad("messages[%d]: call %q (%s) has no tool result before messages[%d] (G01, G03)", p.msg, p.call.ID, p.call.Name, at)
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
					bad("messages[%d].parts[%d]: call %q: %w: %q (G09)", i, j, p.Call.ID, ErrBadArguments, p.Call.Original)
				}
				seen[p.Call.ID] = true
				pending = append(pending, open{msg: i, call: *p.Call})
			case p.Kind == core.PartToolResult && p.Result != nil:
				id := p.Result.CallID
				if id == "" {
					bad("messages[%d].parts[%d]: %w (G06)", i, j, ErrMissingCallID)
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
					bad("messages[%d].parts[%d]: result for %q does not follow its call's assistant message, or answers it twice (G02)", i, j, id)
				default:
					bad("messages[%d].parts[%d]: result for %q answers no earlier call (G02)", i, j, id)
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
