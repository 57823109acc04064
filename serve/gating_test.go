package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// providerRunBlock finds the type of a block a provider-run tool wrote:
// server_tool_use (Anthropic content blocks, Bedrock toolUse), a
// *_tool_result, an MCP connector block.
var providerRunBlock = regexp.MustCompile(`"type"\s*:\s*"(?:server_tool_use|[a-z_]+_tool_result|mcp_tool_use|mcp_tool_result)"`)

// thinkingBlock finds, per protocol, a block of the model's thinking that
// the API sends only to a request asking for it: an Anthropic thinking or
// redacted_thinking block, a Gemini thought part, a Responses reasoning
// summary.
var thinkingBlock = map[string]*regexp.Regexp{
	"anthropic":        regexp.MustCompile(`"type"\s*:\s*"(?:redacted_)?thinking"`),
	"gemini":           regexp.MustCompile(`"thought"\s*:\s*true`),
	"openai-responses": regexp.MustCompile(`"type"\s*:\s*"(?:summary_text|response\.reasoning_summary_[a-z_.]+)"`),
}

// asksThinking reports whether a request asks for the thinking blocks of
// its protocol: Anthropic thinking.type enabled or adaptive, Gemini
// generationConfig.thinkingConfig.includeThoughts, Responses
// reasoning.summary.
func asksThinking(protocol string, body []byte) bool {
	var w struct {
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
		GenerationConfig struct {
			ThinkingConfig struct {
				IncludeThoughts bool `json:"includeThoughts"`
			} `json:"thinkingConfig"`
		} `json:"generationConfig"`
		Reasoning struct {
			Summary string `json:"summary"`
		} `json:"reasoning"`
	}
	if json.Unmarshal(body, &w) != nil {
		return false
	}
	switch protocol {
	case "anthropic":
		return w.Thinking.Type == "enabled" || w.Thinking.Type == "adaptive"
	case "gemini":
		return w.GenerationConfig.ThinkingConfig.IncludeThoughts
	case "openai-responses":
		return w.Reasoning.Summary != ""
	}
	return false
}

// declaresProviderTool reports whether a request declares a tool the
// provider runs: a tools entry of a type other than a client tool's
// ("custom", "function"), a Converse systemTool, or MCP servers.
func declaresProviderTool(body []byte) bool {
	var w struct {
		Tools []struct {
			Type string `json:"type"`
		} `json:"tools"`
		ToolConfig struct {
			Tools []struct {
				SystemTool json.RawMessage `json:"systemTool"`
			} `json:"tools"`
		} `json:"toolConfig"`
		MCPServers []json.RawMessage `json:"mcp_servers"`
	}
	if json.Unmarshal(body, &w) != nil {
		return false
	}
	for _, t := range w.Tools {
		if t.Type != "" && t.Type != "custom" && t.Type != "function" {
			return true
		}
	}
	for _, t := range w.ToolConfig.Tools {
		if len(t.SystemTool) > 0 {
			return true
		}
	}
	return len(w.MCPServers) > 0
}

// TestNoUnaskedBlocksServed sends every servable scenario's first request,
// whole and streamed, without the request options scenarios depend on and
// with them, and reads each answer served with status 200 by the rule that
// gates serving (the protocol's Requirements over the bytes actually
// sent, by the block types they hold): no answer may hold a block whose
// enabling option (a declared server or system tool, mcp_servers, an
// enum encoding, thinking) its request lacks.
func TestNoUnaskedBlocksServed(t *testing.T) {
	s, ts := newServer(t, Options{})
	served, gated, thinking := 0, 0, 0
	for _, name := range s.Names() {
		protocol, _ := s.Protocol(name)
		sc := s.index[name].sc
		if len(s.index[name].requires) > 0 {
			gated++
		}
		for _, stream := range []bool{false, true} {
			for _, optIn := range []bool{false, true} {
				c := &client{base: ts.URL, name: name, protocol: protocol, stream: stream, tools: sc.Tools, optIn: optIn}
				a, _ := providers.Lookup(protocol)
				req := &core.Request{Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("conform: please call the tools")}}}, Tools: c.tools, MaxTokens: 1024, Stream: stream}
				body, err := a.EncodeRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				url := c.url(t)
				if optIn {
					url, body = optInRequest(t, protocol, url, body)
				}
				hr, _ := http.NewRequest("POST", url, bytes.NewReader(body))
				resp, err := http.DefaultClient.Do(hr)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				s.mu.Lock()
				delete(s.verdicts, name)
				s.mu.Unlock()
				if resp.StatusCode != http.StatusOK {
					continue
				}
				served++
				var reqs []requirement
				if rule := descriptor(protocol).Requirements; rule != nil {
					reqs = rule(got)
				}
				if why := unmet(reqs, hr, body); why != "" {
					t.Errorf("%s (stream %v, options %v): served a body its request did not ask for: %s", name, stream, optIn, why)
				}
				// The same, read independently of the rule: a provider-run
				// tool's block goes only to a request that declares one.
				if m := providerRunBlock.Find(got); m != nil && !declaresProviderTool(body) {
					t.Errorf("%s (stream %v, options %v): served a %s block to a request that declares no server or system tool", name, stream, optIn, m)
				}
				// Thinking goes only to a request that asks for it.
				if re := thinkingBlock[protocol]; re != nil && !asksThinking(protocol, body) {
					if m := re.Find(got); m != nil {
						t.Errorf("%s (stream %v, options %v): served %s to a request that does not ask for thinking", name, stream, optIn, m)
					}
				} else if re != nil && optIn && re.Match(got) {
					thinking++
				}
			}
		}
	}
	t.Logf("%d answers read; %d scenarios gated by a request option; %d answers with thinking served to requests asking for it", served, gated, thinking)
	if gated < 20 {
		t.Errorf("only %d scenarios gated; want the server tool, system tool and Gemini option recordings (20+)", gated)
	}
	if thinking == 0 {
		t.Error("no answer with thinking was served to a request asking for it: the thinking scan read nothing")
	}
}
