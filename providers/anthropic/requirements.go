package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/toolconform/conform/providers/protocol"
)

var (
	serverToolUse = regexp.MustCompile(`"type"\s*:\s*"server_tool_use"[^{}]*?"name"\s*:\s*"([^"]+)"`)
	// resultBlock finds the type of every server tool result block, in a
	// whole body or in a stream's content_block_start events.
	resultBlock  = regexp.MustCompile(`"type"\s*:\s*"([a-z_]+)_tool_result"`)
	mcpBlock     = regexp.MustCompile(`"type"\s*:\s*"mcp_tool_(?:use|result)"`)
	serverCaller = regexp.MustCompile(`"caller"\s*:\s*\{[^{}]*"type"\s*:\s*"code_execution`)
	// thinkingBlock finds a thinking or redacted_thinking content block
	// (not its thinking_delta or signature_delta events).
	thinkingBlock = regexp.MustCompile(`"type"\s*:\s*"(?:redacted_)?thinking"`)
)

// requirements reads what a recorded Anthropic response depends on, by the
// block types it holds: server tool blocks (server_tool_use, and every
// *_tool_result block, with or without its server_tool_use) are sent only
// to a request that declares that server tool (a tools entry with its name
// and a type); MCP blocks (mcp_tool_use, mcp_tool_result) only to a
// request with mcp_servers; a response whose calls were made by code
// execution (programmatic tool calling) and answered inside it, ending
// with end_turn, is a whole exchange recorded as one body: no follow-up can
// answer those calls, so no request makes it applicable; thinking and
// redacted_thinking blocks only to a request that enables thinking.
func requirements(body []byte) []protocol.Requirement {
	var out []protocol.Requirement
	var names []string
	for _, m := range serverToolUse.FindAllSubmatch(body, -1) {
		name := string(m[1])
		if slices.Contains(names, name) {
			continue
		}
		names = append(names, name)
		out = append(out, protocol.Requirement{
			What: fmt.Sprintf("it holds blocks of the server tool %q, which Anthropic sends only to a request that declares that tool", name),
			Carried: func(_ *http.Request, b []byte) bool {
				return declaresServerTool(b, func(n string) bool { return n == name })
			},
		})
	}
	var stems []string
	for _, m := range resultBlock.FindAllSubmatch(body, -1) {
		stem := string(m[1])
		if stem == "" || slices.Contains(stems, stem) || slices.ContainsFunc(names, func(n string) bool { return resultOf(stem, n) }) {
			continue // a result of a server_tool_use block already required
		}
		stems = append(stems, stem)
		out = append(out, protocol.Requirement{
			What: fmt.Sprintf("it holds a %s_tool_result block, which Anthropic sends only to a request that declares the server tool it comes from", stem),
			Carried: func(_ *http.Request, b []byte) bool {
				return declaresServerTool(b, func(n string) bool { return resultOf(stem, n) })
			},
		})
	}
	if mcpBlock.Match(body) {
		out = append(out, protocol.Requirement{
			What:    "it holds MCP connector blocks (mcp_tool_use, mcp_tool_result), which Anthropic sends only to a request with mcp_servers",
			Carried: func(_ *http.Request, b []byte) bool { return hasMCPServers(b) },
		})
	}
	if thinkingBlock.Match(body) {
		// Messages API reference, the thinking parameter: thinking content
		// blocks come with a request that enables extended thinking, and
		// with none that does not. Recorded: every corpus response with a
		// thinking block answers a request with "thinking":{"type":"enabled"}.
		out = append(out, protocol.Requirement{
			What:    "it holds thinking blocks, which Anthropic sends only to a request that enables thinking (thinking.type enabled or adaptive)",
			Carried: func(_ *http.Request, b []byte) bool { return enablesThinking(b) },
		})
	}
	if serverCaller.Match(body) && bytes.Contains(body, []byte("end_turn")) {
		out = append(out, protocol.Requirement{What: "it is a whole programmatic tool-calling exchange recorded as one response (calls made and answered inside code execution, then end_turn): no request is answered with it and no follow-up can answer its calls"})
	}
	return out
}

// resultOf reports whether a result block named stem_tool_result comes
// from the server tool name: web_search_tool_result from web_search,
// tool_search_tool_result from tool_search_tool_regex or _bm25,
// bash_code_execution_tool_result from code_execution.
func resultOf(stem, name string) bool {
	return name == stem || strings.HasPrefix(name, stem+"_") || strings.HasSuffix(stem, "_"+name)
}

// declaresServerTool reports whether a request declares a server tool
// whose name is(name): a tools entry with a type other than custom.
func declaresServerTool(body []byte, is func(string) bool) bool {
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
		if is(t.Name) && t.Type != "" && t.Type != "custom" {
			return true
		}
	}
	return false
}

// hasMCPServers reports whether a request lists MCP servers.
func hasMCPServers(body []byte) bool {
	var w struct {
		MCPServers []json.RawMessage `json:"mcp_servers"`
	}
	return json.Unmarshal(body, &w) == nil && len(w.MCPServers) > 0
}

// enablesThinking reports whether a request turns extended thinking on:
// thinking.type "enabled" (with a budget) or "adaptive".
func enablesThinking(body []byte) bool {
	var w struct {
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
	}
	return json.Unmarshal(body, &w) == nil && (w.Thinking.Type == "enabled" || w.Thinking.Type == "adaptive")
}
