package bedrock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/toolconform/conform/providers/protocol"
)

// requirements reads what a recorded Bedrock response depends on. An
// InvokeModel body (an Anthropic message) or InvokeModelWithResponseStream
// body ("chunk" frames) is what Bedrock sends to a request to
// /model/{model}/invoke or /invoke-with-response-stream; the protocol's
// endpoints are Converse and ConverseStream, so no request a fake provider
// takes is answered with it.
//
// A Converse body or stream holding toolUse blocks of "type":
// "server_tool_use" (a Nova system tool, such as nova_grounding, run by
// Bedrock) and their toolResult blocks is sent only to a request that
// declares that system tool (toolConfig.tools[].systemTool.name); the
// block types decide, whatever the scenario.
func requirements(body []byte) []protocol.Requirement {
	if isInvokeBody(body) {
		return []protocol.Requirement{{What: "it is an InvokeModel recording (/model/{model}/invoke or /invoke-with-response-stream), which Bedrock sends only to an InvokeModel request; the protocol's endpoints are Converse and ConverseStream, and a Converse request is never answered with InvokeModel bytes"}}
	}
	var out []protocol.Requirement
	var names []string
	for _, m := range systemToolUse.FindAllSubmatch(body, -1) {
		name := string(m[1]) + string(m[2])
		if slices.Contains(names, name) {
			continue
		}
		names = append(names, name)
		out = append(out, protocol.Requirement{
			What:    fmt.Sprintf("it holds toolUse blocks of type server_tool_use of the system tool %q, which Bedrock sends only to a request that declares that system tool (toolConfig.tools[].systemTool)", name),
			Carried: func(_ *http.Request, b []byte) bool { return declaresSystemTool(b, name) },
		})
	}
	if len(names) == 0 && serverToolType.Match(body) {
		out = append(out, protocol.Requirement{
			What:    "it holds toolUse blocks of type server_tool_use, which Bedrock sends only to a request that declares a system tool (toolConfig.tools[].systemTool)",
			Carried: func(_ *http.Request, b []byte) bool { return declaresSystemTool(b, "") },
		})
	}
	return out
}

var (
	// systemToolUse finds the name of a server_tool_use toolUse block,
	// whichever of its keys comes first, in a body or in the JSON payloads
	// of an event stream.
	systemToolUse  = regexp.MustCompile(`"type"\s*:\s*"server_tool_use"[^{}]*?"name"\s*:\s*"([^"]+)"|"name"\s*:\s*"([^"]+)"[^{}]*?"type"\s*:\s*"server_tool_use"`)
	serverToolType = regexp.MustCompile(`"type"\s*:\s*"server_tool_use"`)
)

// declaresSystemTool reports whether a Converse request declares the named
// system tool (any, when name is "").
func declaresSystemTool(body []byte, name string) bool {
	var w struct {
		ToolConfig *struct {
			Tools []struct {
				SystemTool *struct {
					Name string `json:"name"`
				} `json:"systemTool"`
			} `json:"tools"`
		} `json:"toolConfig"`
	}
	if json.Unmarshal(body, &w) != nil || w.ToolConfig == nil {
		return false
	}
	for _, t := range w.ToolConfig.Tools {
		if t.SystemTool != nil && (name == "" || t.SystemTool.Name == name) {
			return true
		}
	}
	return false
}

// isInvokeBody reports whether a recorded body is InvokeModel's: a JSON
// object with content and no output (decoded as an Anthropic message by
// DecodeResponse), or an event stream whose first frame is a "chunk".
func isInvokeBody(body []byte) bool {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
		var probe map[string]json.RawMessage
		if json.Unmarshal(t, &probe) != nil {
			return false
		}
		_, output := probe["output"]
		_, content := probe["content"]
		return content && !output
	}
	msg, err := eventstream.NewDecoder().Decode(bytes.NewReader(body), nil)
	if err != nil {
		return false
	}
	et := msg.Headers.Get(hdrEventType)
	return et != nil && et.String() == "chunk"
}
