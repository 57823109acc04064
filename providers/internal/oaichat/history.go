package oaichat

import (
	"errors"
	"fmt"

	"github.com/toolconform/conform/core"
)

// CheckHistory reports every problem Chat Completions servers reject in a
// conversation's history, one error per problem, joined: an assistant call
// without a tool result before the next assistant message (G03), a result
// without a call id (G06), a result whose id matches no earlier call, and,
// when maxIDLen > 0, a call id longer than maxIDLen (D04; OpenAI's limit is
// 40), and arguments kept as non-JSON text (G09). It returns nil for a clean history.
func CheckHistory(msgs []core.Message, maxIDLen int) error {
	var errs []error
	seen := map[string]bool{}
	type open struct {
		msg  int
		call core.Call
	}
	var pending []open
	flush := func() {
		for _, p := range pending {
			errs = append(errs, fmt.Errorf("check history: messages[%d]: call %q (%s) has no tool result before the next assistant message (G03)", p.msg, p.call.ID, p.call.Name))
		}
		pending = nil
	}
	for i, m := range msgs {
		if m.Role == core.RoleAssistant {
			flush()
		}
		for j, p := range m.Parts {
			switch {
			case p.Kind == core.PartToolCall && p.Call != nil:
				if maxIDLen > 0 && len(p.Call.ID) > maxIDLen {
					errs = append(errs, fmt.Errorf("check history: messages[%d].parts[%d]: call id %q is %d characters, over the limit of %d (D04)", i, j, p.Call.ID, len(p.Call.ID), maxIDLen))
				}
				if p.Call.Arguments == nil && p.Call.Original != "" {
					errs = append(errs, fmt.Errorf("check history: messages[%d].parts[%d]: call %q: %w: %q (G09)", i, j, p.Call.ID, ErrBadArguments, p.Call.Original))
				}
				seen[p.Call.ID] = true
				pending = append(pending, open{msg: i, call: *p.Call})
			case p.Kind == core.PartToolResult && p.Result != nil:
				id := p.Result.CallID
				if id == "" {
					errs = append(errs, fmt.Errorf("check history: messages[%d].parts[%d]: %w (G06)", i, j, ErrMissingCallID))
					continue
				}
				if !seen[id] {
					errs = append(errs, fmt.Errorf("check history: messages[%d].parts[%d]: result for %q answers no earlier call", i, j, id))
					continue
				}
				for k, o := range pending {
					if o.call.ID == id {
						pending = append(pending[:k], pending[k+1:]...)
						break
					}
				}
			}
		}
	}
	flush()
	return errors.Join(errs...)
}
