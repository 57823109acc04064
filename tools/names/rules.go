package names

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Rules is one provider's rule for tool names: which bytes a name may
// hold, which may start it, and how long it may be.
type Rules struct {
	// Protocol is the conform protocol name ("openai-chat", "gemini", …).
	Protocol string
	// Pattern is the rule as a regular expression, for messages.
	Pattern string
	// MaxLen is the longest name, in bytes.
	MaxLen int
	// Source says where the rule is documented.
	Source string
	// extra holds the bytes allowed besides letters, digits and '_'.
	extra string
	// letterFirst: the first byte must be a letter or '_'.
	letterFirst bool
}

// The rule sets, each checked against the provider's documentation (the
// Source field names it). Providers that share a rule share a value.
var (
	// ^[a-zA-Z0-9_-]{1,64}$: OpenAI's function name ("Must be a-z, A-Z,
	// 0-9, or contain underscores and dashes, with a maximum length of
	// 64", API reference, chat.completions tools[].function.name, and the
	// 400 "does not match '^[a-zA-Z0-9_-]{1,64}$'").
	openAI = Rules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, extra: "-",
		Source: "OpenAI API reference, function.name: a-z, A-Z, 0-9, underscores and dashes, at most 64"}
	// Anthropic's tool name: ^[a-zA-Z0-9_-]{1,64}$ (Messages API, tools[].name;
	// the 400 quoted in loopwork-ai/iMCP PR #71).
	anthropic = Rules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, extra: "-",
		Source: "Anthropic Messages API, tools[].name: ^[a-zA-Z0-9_-]{1,64}$"}
	// Gemini's FunctionDeclaration.name: "Must start with a letter or an
	// underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots,
	// colons and dashes, with a maximum length of 64" (google-genai
	// FunctionDeclaration reference; the 400 "Invalid function name. Must
	// start with a letter or an underscore…" in google-gemini/gemini-cli
	// #6704).
	gemini = Rules{Pattern: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", MaxLen: 64, extra: ".:-", letterFirst: true,
		Source: "Gemini API reference, FunctionDeclaration.name: starts with a letter or underscore; a-z, A-Z, 0-9, underscores, dots, colons and dashes; at most 64"}
	// Bedrock Converse ToolSpecification.name: pattern [a-zA-Z0-9_-]+,
	// length 1 to 64 (Amazon Bedrock API reference, API_runtime_ToolSpecification).
	bedrock = Rules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, extra: "-",
		Source: "Amazon Bedrock API reference, ToolSpecification.name: [a-zA-Z0-9_-]+, length 1 to 64"}
	// Cohere's tool name: "Valid names contain only the characters a-z,
	// A-Z, 0-9, _ and must not begin with a digit" (Cohere tool reference,
	// as reproduced in the OCI CohereTool/CohereToolV2 docs). No length is
	// documented; 64, the bound of every other provider, is kept.
	cohere = Rules{Pattern: "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$", MaxLen: 64, letterFirst: true,
		Source: "Cohere tool reference, name: a-z, A-Z, 0-9 and _, not starting with a digit (no length documented; 64 kept)"}
	// Mistral: "must be a-z, A-Z, 0-9, or contain underscores and dashes,
	// with a maximum length of 64" (its 400, quoted in
	// Kochava-Studios/witsy PR #164).
	mistral = Rules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, extra: "-",
		Source: "Mistral API 400: a-z, A-Z, 0-9, underscores and dashes, at most 64"}
	// Ollama documents no rule and does not check names; the common rule
	// is kept so that a tool set moves between providers unchanged.
	ollama = Rules{Pattern: "^[a-zA-Z0-9_-]{1,64}$", MaxLen: 64, extra: "-",
		Source: "Ollama documents no rule; the common ^[a-zA-Z0-9_-]{1,64}$ is kept"}
)

var byProtocol = map[string]Rules{
	"openai-chat":      openAI,
	"openai-responses": openAI,
	"anthropic":        anthropic,
	"gemini":           gemini,
	"bedrock":          bedrock,
	"cohere":           cohere,
	"mistral":          mistral,
	"ollama":           ollama,
}

// Protocols returns the protocols with rules, sorted.
func Protocols() []string {
	out := make([]string, 0, len(byProtocol))
	for p := range byProtocol {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// For returns the rules of protocol.
func For(protocol string) (Rules, error) {
	r, ok := byProtocol[protocol]
	if !ok {
		return Rules{}, fmt.Errorf("tool name rules: unknown protocol %q; known: %s", protocol, strings.Join(Protocols(), ", "))
	}
	r.Protocol = protocol
	return r, nil
}

// ErrInvalidName is wrapped by every *NameError.
var ErrInvalidName = errors.New("invalid tool name")

// NameError is a name a provider's rules refuse. Offset is the byte offset
// of the first bad byte, or -1 when the fault is the length.
type NameError struct {
	Protocol, Name, Pattern, Reason string
	Offset                          int
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%s: tool name %q: %s; names must match %s", e.Protocol, e.Name, e.Reason, e.Pattern)
}

// Unwrap returns ErrInvalidName.
func (e *NameError) Unwrap() error { return ErrInvalidName }

func (r Rules) byteOK(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || strings.IndexByte(r.extra, c) >= 0
}

func (r Rules) firstOK(c byte) bool {
	if r.letterFirst {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	return r.byteOK(c)
}

// Check returns a *NameError when name breaks the rules.
func (r Rules) Check(name string) error {
	bad := func(off int, reason string) error {
		return &NameError{Protocol: r.Protocol, Name: name, Pattern: r.Pattern, Reason: reason, Offset: off}
	}
	if name == "" {
		return bad(-1, "empty")
	}
	if !r.firstOK(name[0]) {
		if r.byteOK(name[0]) {
			return bad(0, fmt.Sprintf("starts with %q, not a letter or '_'", name[0]))
		}
		return bad(0, fmt.Sprintf("character %q at byte 0 not allowed", firstRune(name)))
	}
	for i := 1; i < len(name); i++ {
		if !r.byteOK(name[i]) {
			return bad(i, fmt.Sprintf("character %q at byte %d not allowed", firstRune(name[i:]), i))
		}
	}
	if len(name) > r.MaxLen {
		return bad(-1, fmt.Sprintf("%d bytes long, more than %d", len(name), r.MaxLen))
	}
	return nil
}

func firstRune(s string) rune {
	for _, c := range s {
		return c
	}
	return 0
}

// clean replaces each run of bytes the rules refuse with one '_' and puts
// '_' before a first byte that may not start a name; the result may be
// longer than MaxLen. An empty result becomes "tool".
func (r Rules) clean(s string) string {
	var b strings.Builder
	under := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; r.byteOK(c) {
			b.WriteByte(c)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := b.String()
	if out == "" {
		out = "tool"
	}
	if !r.firstOK(out[0]) {
		out = "_" + out
	}
	return out
}
