package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
)

// The request parameters a Capability can mark as rejected.
const (
	ParamParallelToolCalls = "parallel_tool_calls"
	ParamToolChoice        = "tool_choice"
	ParamResponseFormat    = "response_format"
	ParamMaxTokens         = "max_tokens"
)

var knownParams = []string{ParamMaxTokens, ParamParallelToolCalls, ParamResponseFormat, ParamToolChoice}

// Capability is what conform knows of a family of models: the mode AUTO
// picks for them and the request parameters they reject.
type Capability struct {
	// Match is a case-insensitive prefix of the model name ("gpt-4o",
	// "openai/"). It is tried against the whole name (a leading "models/"
	// ignored), then against the name without its router path and its
	// Bedrock region and vendor prefixes (see Capabilities.Lookup).
	Match string `json:"match"`
	// Mode is the mode AUTO resolves to; it may not be auto.
	Mode Mode `json:"mode"`
	// Rejects lists request parameters the models refuse even when set
	// to their default (H04); the request builder leaves them out.
	Rejects []string `json:"rejects,omitempty"`
}

// builtinCapabilities is the table conform ships. Router prefixes name a
// gateway that speaks native tool calling for whatever it routes to.
var builtinCapabilities = []Capability{
	{Match: "gpt-4o", Mode: ModeStructured},
	{Match: "gpt-4.1", Mode: ModeStructured},
	{Match: "o1", Mode: ModeStructured, Rejects: []string{ParamParallelToolCalls}},
	{Match: "o3", Mode: ModeStructured, Rejects: []string{ParamParallelToolCalls}},
	{Match: "o4", Mode: ModeStructured, Rejects: []string{ParamParallelToolCalls}},
	{Match: "claude", Mode: ModeNative},
	{Match: "gemini", Mode: ModeNative},
	{Match: "llama", Mode: ModeNative},
	{Match: "qwen", Mode: ModeNative},
	{Match: "deepseek", Mode: ModeNative},
	{Match: "mistral", Mode: ModeNative},
	{Match: "open-mistral", Mode: ModeNative},
	{Match: "open-mixtral", Mode: ModeNative},
	{Match: "open-codestral", Mode: ModeNative},
	{Match: "mixtral", Mode: ModeNative},
	{Match: "ministral", Mode: ModeNative},
	{Match: "codestral", Mode: ModeNative},
	{Match: "devstral", Mode: ModeNative},
	{Match: "magistral", Mode: ModeNative},
	{Match: "pixtral", Mode: ModeNative},
	{Match: "openai/", Mode: ModeNative},
	{Match: "anthropic/", Mode: ModeNative},
	{Match: "google/", Mode: ModeNative},
	{Match: "meta-llama/", Mode: ModeNative},
	{Match: "mistralai/", Mode: ModeNative},
	{Match: "qwen/", Mode: ModeNative},
	{Match: "deepseek/", Mode: ModeNative},
	{Match: "openrouter/", Mode: ModeNative},
}

// FallbackMode is the mode of a model no entry matches.
const FallbackMode = ModeValidated

// Capabilities is a table of Capability entries: the user's entries, then
// the built-in ones. Lookup takes the longest matching prefix among the
// user's entries, and only when none matches, among the built-ins, so a
// user entry always overrides a built-in one (H05). A Capabilities is
// immutable once built and safe for concurrent use.
type Capabilities struct {
	user    []Capability
	builtin []Capability
}

// CapOption configures NewCapabilities.
type CapOption func(*capConfig) error

type capConfig struct {
	entries   []Capability
	noBuiltin bool
}

// WithEntries adds user entries. Later entries with the same Match
// replace earlier ones.
func WithEntries(entries ...Capability) CapOption {
	return func(c *capConfig) error {
		for i, e := range entries {
			if err := checkCapability(e); err != nil {
				return fmt.Errorf("entries[%d]: %w", i, err)
			}
		}
		c.entries = append(c.entries, entries...)
		return nil
	}
}

// WithFile adds the user entries of a JSON file of the form
// {"models": [{"match": "o3", "mode": "structured", "rejects": ["parallel_tool_calls"]}]}.
func WithFile(path string) CapOption {
	return func(c *capConfig) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		entries, err := ParseCapabilities(b)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c.entries = append(c.entries, entries...)
		return nil
	}
}

// WithoutBuiltins leaves the built-in table out.
func WithoutBuiltins() CapOption {
	return func(c *capConfig) error { c.noBuiltin = true; return nil }
}

// ErrBadCapability reports a capability entry or file that cannot be used.
var ErrBadCapability = errors.New("bad capability")

// CapabilityError is a problem in a capability file, at a JSON pointer or
// a byte offset (Offset is -1 when the place is a path).
type CapabilityError struct {
	Path   string
	Offset int64
	Msg    string
}

func (e *CapabilityError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("capabilities: at %s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("capabilities: at byte %d: %s", e.Offset, e.Msg)
}

func (e *CapabilityError) Unwrap() error { return ErrBadCapability }

// ParseCapabilities reads the entries of a capability file. Unknown fields,
// unknown modes and unknown parameters are errors naming their place.
func ParseCapabilities(b []byte) ([]Capability, error) {
	var f struct {
		Models []Capability `json:"models"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, &CapabilityError{Offset: se.Offset, Msg: se.Error()}
		case errors.As(err, &te):
			return nil, &CapabilityError{Offset: te.Offset, Msg: fmt.Sprintf("field %s: want %s, not %s", te.Field, jsonvalue.KindOf(te.Type), te.Value)}
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &CapabilityError{Offset: int64(len(b)), Msg: "unexpected end of file"}
		}
		return nil, &CapabilityError{Offset: d.InputOffset(), Msg: err.Error()}
	}
	if _, err := d.Token(); err != io.EOF {
		off := d.InputOffset()
		for off < int64(len(b)) && strings.ContainsRune(" \t\r\n", rune(b[off])) {
			off++
		}
		return nil, &CapabilityError{Offset: off, Msg: "data after the top-level object"}
	}
	for i, e := range f.Models {
		if err := checkCapability(e); err != nil {
			var ce *CapabilityError
			if errors.As(err, &ce) {
				ce.Path = fmt.Sprintf("/models/%d%s", i, ce.Path)
				return nil, ce
			}
			return nil, err
		}
	}
	return f.Models, nil
}

func checkCapability(e Capability) error {
	if strings.TrimSpace(e.Match) == "" {
		return &CapabilityError{Path: "/match", Offset: -1, Msg: "empty"}
	}
	if !slices.Contains(Modes, e.Mode) {
		return &CapabilityError{Path: "/mode", Offset: -1, Msg: fmt.Sprintf("mode %q is not one of native, structured, validated, parsed", e.Mode)}
	}
	for j, p := range e.Rejects {
		if !slices.Contains(knownParams, p) {
			return &CapabilityError{Path: fmt.Sprintf("/rejects/%d", j), Offset: -1,
				Msg: fmt.Sprintf("unknown parameter %q; known: %s", p, strings.Join(knownParams, ", "))}
		}
	}
	return nil
}

// NewCapabilities builds a table from the built-ins and the options' user
// entries.
//
//	caps, err := agent.NewCapabilities(agent.WithFile("models.json"))
func NewCapabilities(opts ...CapOption) (*Capabilities, error) {
	var cfg capConfig
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("new capabilities: %w", err)
		}
	}
	c := &Capabilities{user: slices.Clone(cfg.entries)}
	if !cfg.noBuiltin {
		c.builtin = slices.Clone(builtinCapabilities)
	}
	return c, nil
}

// DefaultCapabilities returns the built-in table alone.
func DefaultCapabilities() *Capabilities {
	return &Capabilities{builtin: slices.Clone(builtinCapabilities)}
}

// bedrockPrefixes are the leading dotted segments of Bedrock model ids:
// cross-region inference profiles (us., eu., apac., global., …) and model
// vendors (anthropic., meta., mistral., …). They say where a model is
// served, not what it is, so Lookup tries the name without them.
var bedrockPrefixes = []string{
	"us", "us-gov", "eu", "apac", "jp", "au", "ca", "global",
	"anthropic", "meta", "mistral", "cohere", "amazon", "ai21", "deepseek", "qwen", "openai", "writer", "twelvelabs", "stability",
}

// lookupNames returns the forms of a model name Lookup tries, in order:
// the whole name (lower case, a leading "models/" removed); the part
// after the last "/" (a router path such as "groq/" or
// "accounts/fireworks/models/", or a Bedrock ARN); and that part without
// its Bedrock region and vendor prefixes ("us.anthropic.claude-…" →
// "claude-…").
func lookupNames(model string) []string {
	name := strings.ToLower(strings.TrimPrefix(model, "models/"))
	names := []string{name}
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	base := name
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
		add(base)
	}
	for {
		seg, rest, ok := strings.Cut(base, ".")
		if !ok || !slices.Contains(bedrockPrefixes, seg) {
			break
		}
		base = rest
		add(base)
	}
	return names
}

// Lookup returns the entry for a model and whether one matched; with none,
// it returns an entry with FallbackMode.
//
// The user's entries are searched first, then the built-ins. Within a
// table, each form of the name from lookupNames is tried in turn and the
// first form that some entry matches decides, by the longest matching
// prefix: so "openai/gpt-4o" takes the router entry "openai/" while
// "groq/llama-3.1-8b", "us.anthropic.claude-3-7-sonnet-…" and
// "meta.llama3-1-70b-instruct-v1:0" fall back to the family entries.
func (c *Capabilities) Lookup(model string) (Capability, bool) {
	names := lookupNames(model)
	for _, table := range [][]Capability{c.user, c.builtin} {
		for _, name := range names {
			best, found := Capability{}, false
			for _, e := range table {
				m := strings.ToLower(e.Match)
				if strings.HasPrefix(name, m) && (!found || len(m) >= len(best.Match)) {
					best, found = e, true
				}
			}
			if found {
				return best, true
			}
		}
	}
	return Capability{Match: "", Mode: FallbackMode}, false
}

// Mode resolves m for a model: ModeAuto becomes the model's entry's mode,
// any other mode stays as it is.
func (c *Capabilities) Mode(m Mode, model string) Mode {
	if m != ModeAuto && m != "" {
		return m
	}
	e, _ := c.Lookup(model)
	return e.Mode
}

// Apply removes from req the parameters the model rejects and returns the
// names removed.
func (c *Capabilities) Apply(req *core.Request) []string {
	e, _ := c.Lookup(req.Model)
	var removed []string
	for _, p := range e.Rejects {
		switch p {
		case ParamParallelToolCalls:
			if req.ParallelToolCalls != nil {
				req.ParallelToolCalls = nil
				removed = append(removed, p)
			}
		case ParamToolChoice:
			if req.ToolChoice != nil {
				req.ToolChoice = nil
				removed = append(removed, p)
			}
		case ParamResponseFormat:
			if req.ResponseFormat != nil {
				req.ResponseFormat = nil
				removed = append(removed, p)
			}
		case ParamMaxTokens:
			if req.MaxTokens != 0 {
				req.MaxTokens = 0
				removed = append(removed, p)
			}
		}
	}
	return removed
}
