package openairesponses

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/oaichat"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the OpenAI Responses protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("openai-responses"),
	New:      func() core.Adapter { return New() },
	SSE:      protocol.SSE{NamedEvents: true},
	Grading:  protocol.Grading{MissingResult: "G07", ResponseIDPrefix: "resp_", StoredResponses: true},
	// OpenAI's error types and codes, which Responses shares.
	// Responses API reference: status, and incomplete_details.reason for an
	// incomplete response.
	FinishReasons: []string{"completed", "failed", "cancelled", "max_output_tokens", "content_filter"},
	Errors:        oaichat.ErrorStatuses,
	Requirements:  requirements,
}
