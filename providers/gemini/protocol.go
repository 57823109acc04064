package gemini

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Gemini generateContent protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint:           protocol.MustLookup("gemini"),
	New:                func() core.Adapter { return New() },
	NewJSONArrayStream: func() core.Adapter { return New(WithJSONArrayStream()) },
	// functionResponse.response: "Callers can use any keys of their
	// choice that fit the function's syntax to return the function
	// output, e.g. "output", "result", etc. In particular, if the function
	// call failed to execute, the response can have an "error" key"
	// (Gemini API reference, v1beta FunctionResponse).
	Grading:      protocol.Grading{MissingResult: "G04", ResultsInOrder: true, ResponseIDPrefix: "msg_", ResultAnyKey: true},
	Requirements: requirements,
	// An error body carries its HTTP status as its code (google.rpc.Status);
	// without one, the status of its status name (Gemini API
	// documentation, "Troubleshooting", backend error codes).
	// Gemini API reference, Candidate.FinishReason.
	FinishReasons: []string{"FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_OTHER", "NO_IMAGE", "IMAGE_RECITATION", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "MISSING_THOUGHT_SIGNATURE"},
	Errors: protocol.ErrorStatuses{Types: map[string]int{
		"INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "PERMISSION_DENIED": 403,
		"NOT_FOUND": 404, "RESOURCE_EXHAUSTED": 429, "INTERNAL": 500,
		"UNAVAILABLE": 503, "DEADLINE_EXCEEDED": 504,
	}},
}
