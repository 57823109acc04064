package mistral

import "github.com/toolconform/conform/core"

// ToolNameRules returns Mistral's rule for function names: "must be a-z,
// A-Z, 0-9, or contain underscores and dashes, with a maximum length of
// 64" (its 400, quoted in Kochava-Studios/witsy PR #164).
func (a *Adapter) ToolNameRules() core.NameRules { return nameRules }

var nameRules = core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
	Source: "Mistral API 400: a-z, A-Z, 0-9, underscores and dashes, at most 64"}
