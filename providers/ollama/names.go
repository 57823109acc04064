package ollama

import "github.com/toolconform/conform/core"

// ToolNameRules returns the common rule ^[a-zA-Z0-9_-]{1,64}$: Ollama
// documents none and checks none, and keeping the common rule lets a tool
// set move between providers unchanged. It is the rule names are mapped to
// (tools/names), not one Ollama enforces, so EncodeRequest, alone of the
// adapters, refuses no name by it: a refusal would be one the real API
// never makes (E01 and E02 do not apply to Ollama).
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
		Source: "Ollama documents no rule; the common ^[a-zA-Z0-9_-]{1,64}$ is kept"}
}
