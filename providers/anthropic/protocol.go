package anthropic

import (
	"encoding/json"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Anthropic Messages protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("anthropic"),
	New:      func() core.Adapter { return New() },
	SSE:      protocol.SSE{NamedEvents: true, Events: protocol.EventsMessages},
	Grading: protocol.Grading{
		Shape: protocol.ShapeMessages, MissingResult: "G01", ResultsInOrder: true, ResultsNextMessage: true,
		SignedThinking: true, ThinkingEnabled: thinkingEnabled, ResponseIDPrefix: "msg_", Threads: true, ResultForms: resultForms,
	},
	Requirements: requirements,
	// Anthropic API documentation, "Errors": the status of each error type.
	// Messages API reference, stop_reason.
	FinishReasons: []string{"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded"},
	Errors: protocol.ErrorStatuses{Types: map[string]int{
		"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
		"permission_error": 403, "not_found_error": 404, "request_too_large": 413,
		"rate_limit_error": 429, "api_error": 500, "overloaded_error": 529,
	}},
}

// thinkingEnabled reports whether a Messages request turns extended
// thinking on ("thinking": {"type": "enabled"}, or "adaptive"): only then
// must the thinking blocks of the last assistant turn come back, signed
// and unchanged ("When using extended thinking with tool use … you must
// pass thinking blocks back to the API for the last assistant message",
// Anthropic documentation, "Building with extended thinking"; with
// thinking off, the API strips them).
func thinkingEnabled(body []byte) bool {
	var req struct {
		Thinking *struct {
			Type string `json:"type"`
		} `json:"thinking"`
	}
	return json.Unmarshal(body, &req) == nil && req.Thinking != nil && req.Thinking.Type != "" && req.Thinking.Type != "disabled"
}
