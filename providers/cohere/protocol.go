package cohere

import (
	"regexp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Cohere v2 Chat protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("cohere"),
	New:      func() core.Adapter { return New() },
	// A v2 stream ends with "data: [DONE]" after message-end (recorded in
	// testdata/corpus/cohere; cohere-python #730).
	SSE:          protocol.SSE{NamedEvents: true, Done: true},
	Grading:      protocol.Grading{Shape: protocol.ShapeCohere, MissingResult: "G03", Plans: true, ResponseIDPrefix: "msg_"},
	Requirements: requirements,
	// Cohere API documentation, "Errors": 401 for "no api key supplied"
	// and "invalid api token"; its other refusals are 400s.
	// Chat v2 API reference, finish_reason.
	FinishReasons: []string{"COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT"},
	Errors: protocol.ErrorStatuses{Bodies: []protocol.BodyStatus{
		{Body: regexp.MustCompile(`(?i)"(no api key supplied|invalid api token)"`), Status: 401},
	}},
}
