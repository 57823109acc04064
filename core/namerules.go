package core

// NameRules is one provider's rule for tool names: the bytes a name may
// hold, the bytes that may start it, and its length. Adapters declare
// their provider's rules (NameRuler); tools/names checks names against
// them and maps names to them.
type NameRules struct {
	// Pattern is the rule as a regular expression, for messages.
	Pattern string
	// MaxLen is the longest name, in bytes.
	MaxLen int
	// Extra lists the bytes allowed besides ASCII letters, digits and '_'.
	Extra string
	// LetterFirst says the first byte must be a letter or '_'.
	LetterFirst bool
	// Source says where the rule is documented.
	Source string
}

// NameRuler is implemented by adapters that declare their provider's
// tool-name rules.
type NameRuler interface {
	Adapter
	// ToolNameRules returns the provider's rules for tool names.
	ToolNameRules() NameRules
}
