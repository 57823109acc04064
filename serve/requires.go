package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/toolconform/conform/scenarios"
)

// requirement is a request option a scenario's recorded bytes depend on:
// the provider sends those bytes only to a request that carries it. A
// request without it is not answered with them; the scenario is not
// applicable to that client (Verdict.NotApplicable).
type requirement struct {
	// what the request must carry, as a reason a reader understands.
	what string
	// carried reports whether the request carries it; nil means no
	// request can (the recording is not one response to one request).
	carried func(r *http.Request, body []byte) bool
}

var (
	intEnum       = regexp.MustCompile(`"finishReason"\s*:\s*[0-9]`)
	serverToolUse = regexp.MustCompile(`"type"\s*:\s*"server_tool_use"[^{}]*?"name"\s*:\s*"([^"]+)"`)
	serverCaller  = regexp.MustCompile(`"caller"\s*:\s*\{[^{}]*"type"\s*:\s*"code_execution`)
)

// requirementsOf reads what a protocol's recorded response depends on:
//
//   - Gemini enums as numbers ("finishReason": 1) are sent only to a
//     request with $alt=json;enum-encoding=int;
//   - Gemini partialArgs (function call arguments streamed in pieces, a
//     Vertex feature) only to a request whose
//     toolConfig.functionCallingConfig.streamFunctionCallArguments is true;
//   - Anthropic server tool blocks (server_tool_use and their results)
//     only to a request that declares that server tool (a tools entry with
//     its name and a type);
//   - an Anthropic response whose calls were made by code execution
//     (programmatic tool calling) and answered inside it, ending with
//     end_turn, is a whole exchange recorded as one body: no follow-up can
//     answer those calls, so no request makes it applicable.
func requirementsOf(protocol string, sc *scenarios.Scenario) []requirement {
	body := sc.Body
	if len(body) == 0 {
		return nil
	}
	var out []requirement
	switch protocol {
	case "gemini":
		if intEnum.Match(body) {
			out = append(out, requirement{what: "it was recorded with enums as numbers (\"finishReason\": 1), which Gemini sends only to a request with the query parameter $alt=json;enum-encoding=int", carried: intEnums})
		}
		if bytes.Contains(body, []byte(`"partialArgs"`)) {
			out = append(out, requirement{what: "it streams call arguments as partialArgs, which Gemini sends only to a request with toolConfig.functionCallingConfig.streamFunctionCallArguments true", carried: streamsArguments})
		}
	case "anthropic":
		seen := map[string]bool{}
		for _, m := range serverToolUse.FindAllSubmatch(body, -1) {
			name := string(m[1])
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, requirement{what: fmt.Sprintf("it holds blocks of the server tool %q, which Anthropic sends only to a request that declares that tool", name), carried: func(_ *http.Request, b []byte) bool { return declaresServerTool(b, name) }})
		}
		if serverCaller.Match(body) && bytes.Contains(body, []byte("end_turn")) {
			out = append(out, requirement{what: "it is a whole programmatic tool-calling exchange recorded as one response (calls made and answered inside code execution, then end_turn): no request is answered with it and no follow-up can answer its calls"})
		}
	}
	return out
}

// intEnums reports whether a Gemini request asks for enums as numbers.
// The query is read raw: Go's query parser drops a pair holding ';', which
// the unescaped form of the parameter has.
func intEnums(r *http.Request, _ []byte) bool {
	q, err := url.QueryUnescape(r.URL.RawQuery)
	return err == nil && strings.Contains(q, "$alt=json;enum-encoding=int")
}

// streamsArguments reports whether a Gemini request opts in to partialArgs.
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

// declaresServerTool reports whether an Anthropic request declares the
// named server tool: a tools entry with that name and a type other than
// custom.
func declaresServerTool(body []byte, name string) bool {
	var w struct {
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if json.Unmarshal(body, &w) != nil {
		return false
	}
	for _, t := range w.Tools {
		if t.Name == name && t.Type != "" && t.Type != "custom" {
			return true
		}
	}
	return false
}

// unmet returns why the scenario is not applicable to the request, or ""
// when the request carries everything it needs.
func unmet(reqs []requirement, r *http.Request, body []byte) string {
	var missing []string
	for _, q := range reqs {
		if q.carried == nil || !q.carried(r, body) {
			missing = append(missing, q.what)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return strings.Join(missing, "; ")
}

// StatusNotApplicable is the status of a client run whose scenario was
// not served, because its recorded bytes depend on a request option the
// client did not send: neither a pass nor a failure, counted apart.
const StatusNotApplicable = "not-applicable"

// notApplicable marks a run not applicable when no first request was
// served for that reason, with the reason; it reports whether it did.
func notApplicable(res *ClientRun) bool {
	v := res.Verdict
	if v.NotApplicable == "" || v.Served > 0 {
		return false
	}
	res.Status = StatusNotApplicable
	res.Reasons = []string{"not applicable: " + v.NotApplicable}
	return true
}
