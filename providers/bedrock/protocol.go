package bedrock

import (
	"encoding/json"
	"regexp"

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
		SignedThinking: true, ThinkingEnabled: thinkingEnabled, ResponseIDPrefix: "msg_",
	},
	Requirements: requirements,
	// Amazon Bedrock API reference, Converse, "Errors" (the exception is
	// the x-amzn-ErrorType header or the body's __type), and AWS "Common
	// Errors" for a request whose credentials AWS does not know
	// (UnrecognizedClientException, "The security token included in the
	// request is invalid.", 403).
	// Converse API reference, StopReason.
	FinishReasons: []string{"end_turn", "tool_use", "max_tokens", "stop_sequence", "guardrail_intervened", "content_filtered", "model_context_window_exceeded"},
	Errors: protocol.ErrorStatuses{
		Types: map[string]int{
			"ValidationException": 400, "ServiceQuotaExceededException": 400,
			"AccessDeniedException": 403, "UnrecognizedClientException": 403,
			"ResourceNotFoundException": 404, "ModelTimeoutException": 408,
			"ModelErrorException": 424, "ThrottlingException": 429, "ModelNotReadyException": 429,
			"InternalServerException": 500, "ServiceUnavailableException": 503,
		},
		Bodies: []protocol.BodyStatus{
			{Body: regexp.MustCompile(`The security token included in the request is invalid`), Status: 403},
		},
	},
}

// thinkingEnabled reports whether a Converse request turns reasoning on
// for the model, in additionalModelRequestFields: Claude's "thinking":
// {"type": "enabled"} or "reasoning_config" of other models. Only then must
// the reasoningContent of the last assistant turn come back with its
// signature (Amazon Bedrock User Guide, "Extended thinking": the thinking
// blocks of the last assistant turn are passed back in a tool-use loop, as
// Anthropic's API requires when thinking is enabled).
func thinkingEnabled(body []byte) bool {
	type on struct {
		Type string `json:"type"`
	}
	var req struct {
		Fields struct {
			Thinking  *on `json:"thinking"`
			Reasoning *on `json:"reasoning_config"`
		} `json:"additionalModelRequestFields"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	for _, t := range []*on{req.Fields.Thinking, req.Fields.Reasoning} {
		if t != nil && t.Type != "" && t.Type != "disabled" {
			return true
		}
	}
	return false
}
