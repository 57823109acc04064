package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/toolconform/conform/providers/protocol"
)

var (
	serverToolUse = regexp.MustCompile(`"type"\s*:\s*"server_tool_use"[^{}]*?"name"\s*:\s*"([^"]+)"`)
	serverCaller  = regexp.MustCompile(`"caller"\s*:\s*\{[^{}]*"type"\s*:\s*"code_execution`)
)

// requirements reads what a recorded Anthropic response depends on:
// server tool blocks (server_tool_use and their results) are sent only to
// a request that declares that server tool (a tools entry with its name
// and a type); a response whose calls were made by code execution
// (programmatic tool calling) and answered inside it, ending with
// end_turn, is a whole exchange recorded as one body: no follow-up can
// answer those calls, so no request makes it applicable.
func requirements(body []byte) []protocol.Requirement {
	var out []protocol.Requirement
	seen := map[string]bool{}
	for _, m := range serverToolUse.FindAllSubmatch(body, -1) {
		name := string(m[1])
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, protocol.Requirement{
			What:    fmt.Sprintf("it holds blocks of the server tool %q, which Anthropic sends only to a request that declares that tool", name),
			Carried: func(_ *http.Request, b []byte) bool { return declaresServerTool(b, name) },
		})
	}
	if serverCaller.Match(body) && bytes.Contains(body, []byte("end_turn")) {
		out = append(out, protocol.Requirement{What: "it is a whole programmatic tool-calling exchange recorded as one response (calls made and answered inside code execution, then end_turn): no request is answered with it and no follow-up can answer its calls"})
	}
	return out
}

// declaresServerTool reports whether a request declares the named server
// tool: a tools entry with that name and a type other than custom.
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
