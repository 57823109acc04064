package ollama

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Ollama chat protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("ollama"),
	New:      func() core.Adapter { return New() },
	Grading:  protocol.Grading{Shape: protocol.ShapeChat, MissingResult: "G03", ToolResultText: true, ResponseIDPrefix: "msg_"},
}
