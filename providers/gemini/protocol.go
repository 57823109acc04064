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
	Grading:            protocol.Grading{MissingResult: "G04", ResultsInOrder: true, ResponseIDPrefix: "msg_"},
	Requirements:       requirements,
}
