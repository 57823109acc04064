package openaichat

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/oaichat"
	"github.com/toolconform/conform/providers/protocol"
)

// Protocol describes the OpenAI Chat Completions protocol to the rest of conform:
// its endpoint, framing and what a fake provider needs to replay and grade
// it.
var Protocol = protocol.Protocol{
	Endpoint: protocol.MustLookup("openai-chat"),
	New:      func() core.Adapter { return New() },
	SSE:      protocol.SSE{Done: true, Events: protocol.EventsChatChunks},
	Grading:  protocol.Grading{Shape: protocol.ShapeChat, MissingResult: "G03", ReasoningReplayed: true, ResponseIDPrefix: "msg_", ResultForms: resultForms},
	// Chat Completions API reference, finish_reason.
	FinishReasons: []string{"stop", "length", "tool_calls", "content_filter", "function_call"},
	Errors:        oaichat.ErrorStatuses,
}
