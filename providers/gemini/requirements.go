package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/toolconform/conform/providers/protocol"
)

var (
	intEnum     = regexp.MustCompile(`"finishReason"\s*:\s*[0-9]`)
	thoughtPart = regexp.MustCompile(`"thought"\s*:\s*true`)
)

// requirements reads what a recorded Gemini response depends on: enums as
// numbers ("finishReason": 1) are sent only to a request with
// $alt=json;enum-encoding=int; partialArgs (call arguments streamed in
// pieces, a Vertex feature) only to a request whose
// toolConfig.functionCallingConfig.streamFunctionCallArguments is true;
// thought parts ("thought": true) only to a request whose
// generationConfig.thinkingConfig.includeThoughts is true. A
// thoughtSignature alone is not gated: Gemini signs calls of thinking
// models whether or not thoughts are included.
func requirements(body []byte) []protocol.Requirement {
	var out []protocol.Requirement
	if intEnum.Match(body) {
		out = append(out, protocol.Requirement{What: "it was recorded with enums as numbers (\"finishReason\": 1), which Gemini sends only to a request with the query parameter $alt=json;enum-encoding=int", Carried: intEnums})
	}
	if bytes.Contains(body, []byte(`"partialArgs"`)) {
		out = append(out, protocol.Requirement{What: "it streams call arguments as partialArgs, which Gemini sends only to a request with toolConfig.functionCallingConfig.streamFunctionCallArguments true", Carried: streamsArguments})
	}
	if thoughtPart.Match(body) {
		// API reference, ThinkingConfig.includeThoughts: "Indicates whether
		// to include thoughts in the response. If true, thoughts are
		// returned only when available." Recorded: every corpus response
		// with a thought part answers a request with includeThoughts true.
		out = append(out, protocol.Requirement{What: "it holds thought parts (\"thought\": true), which Gemini sends only to a request whose generationConfig.thinkingConfig.includeThoughts is true", Carried: includesThoughts})
	}
	return out
}

// intEnums reports whether a request asks for enums as numbers. The query
// is read raw: Go's query parser drops a pair holding ';', which the
// unescaped form of the parameter has.
func intEnums(r *http.Request, _ []byte) bool {
	q, err := url.QueryUnescape(r.URL.RawQuery)
	return err == nil && strings.Contains(q, "$alt=json;enum-encoding=int")
}

// streamsArguments reports whether a request opts in to partialArgs.
func streamsArguments(_ *http.Request, body []byte) bool {
	var w struct {
		ToolConfig struct {
			FunctionCallingConfig struct {
				StreamFunctionCallArguments bool `json:"streamFunctionCallArguments"`
			} `json:"functionCallingConfig"`
		} `json:"toolConfig"`
	}
	return json.Unmarshal(body, &w) == nil && w.ToolConfig.FunctionCallingConfig.StreamFunctionCallArguments
}

// includesThoughts reports whether a request asks for thought parts. The
// API reads proto JSON, so the snake_case field names are accepted too.
func includesThoughts(_ *http.Request, body []byte) bool {
	type thinking struct {
		Camel *bool `json:"includeThoughts"`
		Snake *bool `json:"include_thoughts"`
	}
	type generation struct {
		Camel thinking `json:"thinkingConfig"`
		Snake thinking `json:"thinking_config"`
	}
	var w struct {
		Camel generation `json:"generationConfig"`
		Snake generation `json:"generation_config"`
	}
	if json.Unmarshal(body, &w) != nil {
		return false
	}
	for _, g := range []generation{w.Camel, w.Snake} {
		for _, t := range []thinking{g.Camel, g.Snake} {
			if (t.Camel != nil && *t.Camel) || (t.Snake != nil && *t.Snake) {
				return true
			}
		}
	}
	return false
}
