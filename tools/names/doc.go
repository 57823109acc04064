// Package names checks tool names against one provider's rules and maps a
// set of names, qualified ones included ("github.create_issue", the tools
// of several MCP servers or plugins in one registry), to names the
// provider accepts, and back. The rules are facts about each protocol:
// every built-in adapter declares its own (core.NameRuler), with the
// documentation it comes from.
//
//	rules, _ := names.For(openaichat.New())
//	m, err := names.Map(rules, []string{"github.create_issue", "fs.read_file", "a_b"})
//	wire, _ := m.Name("github.create_issue") // "github_create_issue"
//	orig, _ := m.Original(wire)              // "github.create_issue"
//
// The rules differ: Gemini accepts dots and colons but wants a letter or
// '_' first; Cohere accepts neither dashes nor a leading digit; OpenAI,
// Anthropic, Bedrock and Mistral share ^[a-zA-Z0-9_-]{1,64}$; Ollama
// documents none and keeps that one.
//
// A Mapping is built from the whole set, so a valid name always maps to
// itself and no mapping depends on the order in which names were added:
// tools.NameMapper, which maps names one at a time, gives a valid "a_b"
// another name when "a.b" took "a_b" first; Map never does.
package names
