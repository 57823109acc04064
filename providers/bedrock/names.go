package bedrock

import "github.com/toolconform/conform/core"

// ToolNameRules returns Bedrock's rule for ToolSpecification.name: pattern
// [a-zA-Z0-9_-]+, length 1 to 64 (Amazon Bedrock API reference,
// API_runtime_ToolSpecification).
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, Extra: "-",
		Source: "Amazon Bedrock API reference, ToolSpecification.name: [a-zA-Z0-9_-]+, length 1 to 64"}
}
