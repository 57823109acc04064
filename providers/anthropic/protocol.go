package anthropic

import (
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
		SignedThinking: true, ResponseIDPrefix: "msg_", Threads: true,
	},
	Requirements: requirements,
	// Anthropic API documentation, "Errors": the status of each error type.
	Errors: protocol.ErrorStatuses{Types: map[string]int{
		"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
		"permission_error": 403, "not_found_error": 404, "request_too_large": 413,
		"rate_limit_error": 429, "api_error": 500, "overloaded_error": 529,
	}},
}
