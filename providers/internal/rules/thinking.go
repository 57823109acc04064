package rules

import "github.com/toolconform/conform/core"

// ThinkingAfterCall finds the first thinking part (signed, unsigned or
// redacted) that follows a tool call in the parts of one assistant
// message, which Anthropic's Messages API and Claude on Bedrock refuse
// (G12) and no encoder may fix by moving a signed block. part is its index
// in parts and callID the id of the nearest call before it; ok is false
// when no thinking part follows a call. A call part without a Call does
// not count as a call.
//
// Anthropic and Bedrock report it as a *core.HistoryError (guard G12), each
// wrapping its own ErrThinkingOrder, worded in the protocol's terms
// (tool_use or toolUse, thinking or reasoning).
func ThinkingAfterCall(parts []core.Part) (part int, callID string, ok bool) {
	seen := false
	for j, p := range parts {
		switch {
		case p.Kind == core.PartToolCall && p.Call != nil:
			callID, seen = p.Call.ID, true
		case p.Kind == core.PartThinking && seen:
			return j, callID, true
		}
	}
	return 0, "", false
}
