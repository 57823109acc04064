package openairesponses

import "github.com/toolconform/conform/core"

// ToolNameRules returns OpenAI's rule for function names,
// ^[a-zA-Z0-9_-]{1,64}$, the same for the Responses API's function tools
// as for Chat Completions (API reference, tools[].name).
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
		Source: "OpenAI API reference, function.name: a-z, A-Z, 0-9, underscores and dashes, at most 64"}
}
