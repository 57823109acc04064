package openaichat

import "github.com/toolconform/conform/core"

// ToolNameRules returns OpenAI's rule for function names,
// ^[a-zA-Z0-9_-]{1,64}$: "Must be a-z, A-Z, 0-9, or contain underscores and
// dashes, with a maximum length of 64" (API reference, tools[].function.name;
// the 400 "does not match '^[a-zA-Z0-9_-]{1,64}$'").
func (a *Adapter) ToolNameRules() core.NameRules { return nameRules }

var nameRules = core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
	Source: "OpenAI API reference, function.name: a-z, A-Z, 0-9, underscores and dashes, at most 64"}
