package anthropic

import "github.com/toolconform/conform/core"

// ToolNameRules returns Anthropic's rule for tool names,
// ^[a-zA-Z0-9_-]{1,64}$ (Messages API, tools[].name; the 400 quoted in
// loopwork-ai/iMCP PR #71).
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
		Source: "Anthropic Messages API, tools[].name: ^[a-zA-Z0-9_-]{1,64}$"}
}
