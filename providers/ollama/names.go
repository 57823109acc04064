package ollama

import "github.com/toolconform/conform/core"

// ToolNameRules returns the common rule ^[a-zA-Z0-9_-]{1,64}$: Ollama
// documents none and checks none, and keeping the common rule lets a tool
// set move between providers unchanged.
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
		Source: "Ollama documents no rule; the common ^[a-zA-Z0-9_-]{1,64}$ is kept"}
}
