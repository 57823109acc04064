package openairesponses

import (
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/toolconform/conform/providers/protocol"
)

// reasoningSummary finds a reasoning summary: a summary_text part (whole
// body, output_item events) or a reasoning_summary_* stream event.
var reasoningSummary = regexp.MustCompile(`"type"\s*:\s*"(?:summary_text|response\.reasoning_summary_[a-z_.]+)"`)

// requirements reads what a recorded Responses body depends on: reasoning
// summaries only to a request that sets reasoning.summary. A reasoning
// item itself is not gated: a reasoning model returns one (with "summary":
// [] and encrypted or no content) to every request, recorded in the
// corpus for gpt-5 and o4-mini requests that set no reasoning option, and
// reasoning_text content comes from local engines (LM Studio, recorded)
// without one.
func requirements(body []byte) []protocol.Requirement {
	if !reasoningSummary.Match(body) {
		return nil
	}
	// API reference, reasoning.summary: a summary of the model's
	// reasoning, one of auto, concise or detailed, asked for by the
	// request. Recorded: every corpus response with summary_text answers
	// a request with "summary":"auto" or "detailed", and gpt-5 requests
	// without it get "summary":[].
	return []protocol.Requirement{{
		What:    "it holds reasoning summaries (summary_text), which OpenAI sends only to a request that sets reasoning.summary",
		Carried: asksSummary,
	}}
}

// asksSummary reports whether a request asks for reasoning summaries:
// reasoning.summary, or the deprecated reasoning.generate_summary.
func asksSummary(_ *http.Request, body []byte) bool {
	var w struct {
		Reasoning struct {
			Summary         string `json:"summary"`
			GenerateSummary string `json:"generate_summary"`
		} `json:"reasoning"`
	}
	return json.Unmarshal(body, &w) == nil && (w.Reasoning.Summary != "" || w.Reasoning.GenerateSummary != "")
}
