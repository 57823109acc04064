// Package rules holds the protocol rules that two adapters apply alike:
// InputConflict, the A18 rule for a tool_use whose start carries input and
// whose deltas follow (Anthropic, Bedrock InvokeModel), and
// ThinkingAfterCall, the G12 check that no thinking part follows a call in
// one assistant message (Anthropic, Bedrock).
package rules
