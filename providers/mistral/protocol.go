package mistral

import (
	"regexp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/oaichat"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the Mistral chat completions protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("mistral"),
	New:      func() core.Adapter { return New() },
	SSE:      protocol.SSE{Done: true, Events: protocol.EventsChatChunks},
	Grading: protocol.Grading{
		Shape: protocol.ShapeChat, MissingResult: "G03", ResponseIDPrefix: "msg_",
		// Mistral accepts only nine-character ids (D05): a client may send
		// back such an id in place of a longer served one.
		TranslatedID: regexp.MustCompile(`^[A-Za-z0-9]{9}$`),
	},
	// Mistral chat completion API reference, finish_reason.
	FinishReasons: []string{"stop", "length", "model_length", "error", "tool_calls"},
	Errors:        mistralErrors,
}

// mistralErrors are OpenAI's error statuses (Mistral's error bodies use
// its types), FastAPI's 422 for a body it cannot validate, and 401 for
// the FastAPI body Mistral answers a bad key with, {"detail": "Invalid API
// Key"} (Mistral API documentation: 401 for an invalid key).
var mistralErrors = protocol.ErrorStatuses{
	Types: oaichat.ErrorStatuses.Types,
	Bodies: append([]protocol.BodyStatus{
		{Body: regexp.MustCompile(`(?i)"detail"\s*:\s*"invalid api key"`), Status: 401},
	}, oaichat.ErrorStatuses.Bodies...),
}
