package ollama

import (
	"regexp"

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
	// Ollama API documentation, "Errors": {"error": "..."} with 404 for a
	// model it does not have, 400 for a request it refuses.
	// Ollama API documentation, done_reason.
	FinishReasons: []string{"stop", "length", "load", "unload"},
	Errors: protocol.ErrorStatuses{Bodies: []protocol.BodyStatus{
		{Body: regexp.MustCompile(`"error"\s*:\s*"model .* not found`), Status: 404},
	}},
}
