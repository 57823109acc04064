package wire

import "github.com/toolconform/conform/core"

// ThinkingAfterCall finds the first thinking part (signed, unsigned or
// redacted) that follows a tool call in the parts of one assistant
// message, which Anthropic's Messages API and Claude on Bedrock refuse
// (G12) and no encoder may fix by moving a signed block. part is its index
// in parts and callID the id of the nearest call before it; ok is false
// when no thinking part follows a call. A call part without a Call does
// not count as a call.
//
// The check is shared; the error is not. Anthropic and Bedrock each keep
// their own ErrThinkingOrder and ThinkingOrderError, because their
// messages differ in the words of the protocol (tool_use or toolUse,
// thinking or reasoning) and in how they name the place ("message 1: part
// 2" or "messages[1].parts[2]"); one error type here would have to carry
// those as fields that every caller's struct literal and comparison would
// then see, or change one adapter's text.
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
