package bedrock

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Amazon Bedrock Converse protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("bedrock"),
	New:      func() core.Adapter { return New() },
	Grading: protocol.Grading{
		Shape: protocol.ShapeConverse, MissingResult: "G01", ResultsInOrder: true, ResultsNextMessage: true,
		SignedThinking: true, ResponseIDPrefix: "msg_",
	},
	Requirements: requirements,
}
