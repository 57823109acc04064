package cohere

import "github.com/toolconform/conform/core"

// ToolNameRules returns Cohere's rule for tool names: "Valid names contain
// only the characters a-z, A-Z, 0-9, _ and must not begin with a digit"
// (Cohere's tool reference, as reproduced in Oracle's OCI CohereTool and
// CohereToolV2 docs). No length is documented; 64, the bound of every
// other provider, is kept. EncodeRequest refuses what it refuses; a dash
// alone made Cohere refuse a tool (lobehub/lobehub PR #4216), and no
// recorded Cohere request carries a dash or a leading digit.
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$", MaxLen: 64, LetterFirst: true,
		Source: "Cohere tool reference (Oracle OCI CohereTool, CohereToolV2), name: a-z, A-Z, 0-9 and _, not starting with a digit (no length documented; 64 kept)"}
}
