package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Errors of CheckHistory, each for one replay rule every provider enforces.
var (
	// ErrMissingResult: a call has no result before the next assistant
	// turn or the end of the conversation (G01, G03).
	ErrMissingResult = errors.New("tool call without a result")
	// ErrOrphanResult: a result answers no call of the assistant turn
	// before it (G02).
	ErrOrphanResult = errors.New("tool result without a call")
	// ErrResultWithoutID: a result names no call id (G06).
	ErrResultWithoutID = errors.New("tool result without a call id")
	// ErrDuplicateResult: two results answer one call.
	ErrDuplicateResult = errors.New("two results for one tool call")
	// ErrDuplicateCallID: two calls of one assistant turn share an id (D06).
	ErrDuplicateCallID = errors.New("two tool calls with one id")
)

// HistoryError is one broken replay rule, with where it is broken: the
// history error of CheckHistory and of every adapter. Err wraps one of the
// sentinels above, another of core's (ErrInvalidArguments, ErrTooLarge)
// for a rule on a call of the history, or an adapter's own for a rule in
// its terms (anthropic.ErrThinkingOrder, G12); an adapter's message around
// it says the rule in the protocol's words.
type HistoryError struct {
	// Protocol names the adapter whose rule it is; empty for CheckHistory.
	Protocol string
	// Message is the index of the message in Request.Messages.
	Message int
	// CallID is the call id concerned, if any.
	CallID string
	// Guard is the failure-mode id the rule guards, such as "G01".
	Guard string
	Err   error
}

func (e *HistoryError) Error() string {
	var b strings.Builder
	if e.Protocol != "" {
		b.WriteString(e.Protocol + ": ")
	}
	fmt.Fprintf(&b, "history: messages[%d]", e.Message)
	if e.CallID != "" {
		fmt.Fprintf(&b, ": call %q", e.CallID)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.Guard != "" {
		fmt.Fprintf(&b, " (%s)", e.Guard)
	}
	return b.String()
}

func (e *HistoryError) Unwrap() error { return e.Err }

// CheckHistory checks the replay rules that every provider enforces on a
// conversation with tool calls, and that providers reject with a 400 one
// turn after the fault: every call of an assistant turn has exactly one
// result before the next assistant turn or the end of the conversation
// (G01, G03); every result answers a call of the assistant turn before it
// (G02) and names it by id (G06); the calls of one turn have distinct ids
// (D06). It returns every broken rule, joined, each a *HistoryError; nil
// means the history is sound.
//
// The order of results is not checked here: protocols differ (Anthropic
// wants results in call order, G05, and its adapter reorders them), so that
// rule belongs to each adapter.
func CheckHistory(msgs []Message) error {
	var errs []error
	fail := func(i int, id, guard string, err error) {
		errs = append(errs, &HistoryError{Message: i, CallID: id, Guard: guard, Err: err})
	}
	var (
		turn     = -1               // index of the open assistant turn with calls
		pending  []string           // its call ids, in order
		answered = map[string]int{} // results per call id of the open turn
	)
	closeTurn := func() {
		for _, id := range pending {
			if answered[id] == 0 {
				fail(turn, id, "G01", ErrMissingResult)
			}
		}
		turn, pending = -1, nil
		clear(answered)
	}
	for i, m := range msgs {
		if m.Role == RoleAssistant {
			closeTurn()
			seen := map[string]bool{}
			for _, c := range m.Calls() {
				if seen[c.ID] {
					fail(i, c.ID, "D06", ErrDuplicateCallID)
					continue
				}
				seen[c.ID] = true
				pending = append(pending, c.ID)
			}
			if len(pending) > 0 {
				turn = i
			}
			continue
		}
		for _, r := range m.Results() {
			switch {
			case r.CallID == "":
				fail(i, "", "G06", ErrResultWithoutID)
			case turn < 0 || !slices.Contains(pending, r.CallID):
				fail(i, r.CallID, "G02", ErrOrphanResult)
			default:
				answered[r.CallID]++
				if answered[r.CallID] == 2 {
					fail(i, r.CallID, "G03", ErrDuplicateResult)
				}
			}
		}
	}
	closeTurn()
	return errors.Join(errs...)
}
