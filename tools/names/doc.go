// Package names holds each provider's rules for tool names and maps a set
// of names, qualified ones included ("github.create_issue", the tools of
// several MCP servers or plugins in one registry), to names one provider
// accepts, and back.
//
//	rules, _ := names.For("openai-chat")
//	m, err := names.Map(rules, []string{"github.create_issue", "fs.read_file", "a_b"})
//	wire, _ := m.Name("github.create_issue") // "github_create_issue"
//	orig, _ := m.Original(wire)              // "github.create_issue"
//
// The rules differ: Gemini accepts dots and colons but wants a letter or
// '_' first; Cohere accepts neither dashes nor a leading digit; OpenAI,
// Anthropic, Bedrock and Mistral share ^[a-zA-Z0-9_-]{1,64}$. Each rule
// names its source (Rules.Source).
//
// A Mapping is built from the whole set, so a valid name always maps to
// itself and no mapping depends on the order in which names were added:
// core.NameMapper, which maps names one at a time, gives a valid "a_b"
// another name when "a.b" took "a_b" first; Map never does.
package names
