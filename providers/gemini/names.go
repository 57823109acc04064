package gemini

import "github.com/toolconform/conform/core"

// ToolNameRules returns Gemini's rule for FunctionDeclaration.name: "Must
// start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
// underscores, dots, colons and dashes, with a maximum length of 64"
// (google-genai FunctionDeclaration reference; the 400 "Invalid function
// name. Must start with a letter or an underscore…" quoted in
// google-gemini/gemini-cli #6704, and for the digit-leading
// 21st_magic_component_builder in SuperClaude-Org/SuperGemini_Framework
// #12). EncodeRequest refuses what it refuses.
func (a *Adapter) ToolNameRules() core.NameRules {
	return core.NameRules{Pattern: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", MaxLen: 64, Extra: ".:-", LetterFirst: true,
		Source: "Gemini API reference, FunctionDeclaration.name: starts with a letter or underscore; a-z, A-Z, 0-9, underscores, dots, colons and dashes; at most 64 (the 400 \"Invalid function name. Must start with a letter or an underscore\": google-gemini/gemini-cli #2966)"}
}
