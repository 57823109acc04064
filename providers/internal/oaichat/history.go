package oaichat

import (
	"errors"
	"fmt"

	"github.com/toolconform/conform/core"
)

// HistoryChecks chooses the optional checks of CheckHistory.
type HistoryChecks struct {
	// Protocol names the protocol in the errors.
	Protocol string
	// MaxIDLen > 0 reports call ids longer than it (D04; OpenAI's limit
	// is 40).
	MaxIDLen int
	// Arguments reports calls whose arguments are kept as non-JSON text
	// (G09). Chat Completions carries arguments as a string, so servers
	// accept such a history; the model may not.
	Arguments bool
}

// CheckHistory reports every problem of a conversation's history, one
// *core.HistoryError per problem, joined, each naming the message and the
// call and wrapping core's sentinel of the rule:
//
//   - a call not answered by a result in the messages right after its
//     assistant message (G03, core.ErrMissingResult): Chat Completions
//     wants one tool message per call, before any other message;
//   - a result without a call id (G06, core.ErrResultWithoutID);
//   - a result that answers no call of the assistant message before it: an
//     orphan or a late answer (G02, core.ErrOrphanResult), or a second
//     answer (G03, core.ErrDuplicateResult);
//   - with the optional checks, over-long ids (D04, core.ErrTooLarge) and
//     non-JSON arguments (G09, core.ErrInvalidArguments).
//
// It returns nil for a clean history. EncodeRequest runs it without the
// optional checks and refuses a history it faults.
func CheckHistory(msgs []core.Message, checks HistoryChecks) error {
	var errs []error
	second := secondAnswers(msgs)
	bad := func(msg int, id, guard string, err error, format string, args ...any) {
		errs = append(errs, &core.HistoryError{Protocol: checks.Protocol, Message: msg, CallID: id, Guard: guard,
			Err: fmt.Errorf("%w: "+format, append([]any{err}, args...)...)})
	}
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
				bad(p.msg, p.call.ID, "G03", core.ErrMissingResult, "%s has no tool message before the end of the history", p.call.Name)
			} else {
				bad(p.msg, p.call.ID, "G03", core.ErrMissingResult, "%s has no tool message before messages[%d]", p.call.Name, at)
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
					bad(i, p.Call.ID, "D04", core.ErrTooLarge, "parts[%d]: call id of %d characters, over the limit of %d", j, len(p.Call.ID), checks.MaxIDLen)
				}
				if checks.Arguments && p.Call.Arguments == nil && p.Call.Original != "" {
					bad(i, p.Call.ID, "G09", core.ErrInvalidArguments, "parts[%d]: %q", j, p.Call.Original)
				}
				seen[p.Call.ID] = true
				pending = append(pending, open{msg: i, call: *p.Call})
			case p.Kind == core.PartToolResult && p.Result != nil:
				id := p.Result.CallID
				if id == "" {
					bad(i, "", "G06", core.ErrResultWithoutID, "parts[%d]: no tool_call_id", j)
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
				case second[id]:
					bad(i, id, "G03", core.ErrDuplicateResult, "parts[%d]: a second tool message for the call", j)
				case seen[id]:
					bad(i, id, "G02", core.ErrOrphanResult, "parts[%d]: the tool message does not follow its call's assistant message", j)
				default:
					bad(i, id, "G02", core.ErrOrphanResult, "parts[%d]: the tool message answers no earlier call", j)
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

// secondAnswers returns the call ids core.CheckHistory finds answered
// twice in one turn (G03).
func secondAnswers(msgs []core.Message) map[string]bool {
	out := map[string]bool{}
	err := core.CheckHistory(msgs)
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	for _, e := range list {
		if he, ok := e.(*core.HistoryError); ok && errors.Is(he, core.ErrDuplicateResult) {
			out[he.CallID] = true
		}
	}
	return out
}
