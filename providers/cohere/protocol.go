package cohere

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Cohere v2 Chat protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint:     protocol.MustLookup("cohere"),
	New:          func() core.Adapter { return New() },
	SSE:          protocol.SSE{NamedEvents: true},
	Grading:      protocol.Grading{Shape: protocol.ShapeCohere, MissingResult: "G03", Plans: true, ResponseIDPrefix: "msg_"},
	Requirements: requirements,
}
