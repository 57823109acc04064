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

var intEnum = regexp.MustCompile(`"finishReason"\s*:\s*[0-9]`)

// requirements reads what a recorded Gemini response depends on: enums as
// numbers ("finishReason": 1) are sent only to a request with
// $alt=json;enum-encoding=int; partialArgs (call arguments streamed in
// pieces, a Vertex feature) only to a request whose
// toolConfig.functionCallingConfig.streamFunctionCallArguments is true.
func requirements(body []byte) []protocol.Requirement {
	var out []protocol.Requirement
	if intEnum.Match(body) {
		out = append(out, protocol.Requirement{What: "it was recorded with enums as numbers (\"finishReason\": 1), which Gemini sends only to a request with the query parameter $alt=json;enum-encoding=int", Carried: intEnums})
	}
	if bytes.Contains(body, []byte(`"partialArgs"`)) {
		out = append(out, protocol.Requirement{What: "it streams call arguments as partialArgs, which Gemini sends only to a request with toolConfig.functionCallingConfig.streamFunctionCallArguments true", Carried: streamsArguments})
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
