package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/toolconform/conform/core"

	"github.com/toolconform/conform/tools/schema"
)

// ErrInvalidSchema is wrapped by the error of a tool whose schema cannot be
// compiled or is not an object schema. The error carries the JSON pointer of
// the fault (a *schema.SchemaError).
var ErrInvalidSchema = schema.ErrInvalidSchema

// ErrUnsupportedType is wrapped by the error of NewTool when a Go type
// cannot be a tool parameter. The error carries the Go field path (a
// *schema.TypeError).
var ErrUnsupportedType = schema.ErrUnsupportedType

// MaxSchemaBytes is the largest input or output schema a tool may have.
const MaxSchemaBytes = 1 << 20

// ErrSchemaTooLarge is wrapped by the error of a constructor given a schema
// longer than MaxSchemaBytes.
var ErrSchemaTooLarge = errors.New("schema too large")

// ErrInvalidDefinition is wrapped by the errors of FromMCP for a definition
// that is not JSON or lacks a required field.
var ErrInvalidDefinition = errors.New("invalid tool definition")

// Risk is how much harm running a tool can do. The agent loop uses it to
// decide what needs confirmation.
type Risk int

// The risk levels, from least to most harmful.
const (
	// RiskReadOnly tools only read.
	RiskReadOnly Risk = iota + 1
	// RiskSideEffects tools change things, but only additively.
	RiskSideEffects
	// RiskDestructive tools may delete or overwrite. It is the default, as
	// in MCP, where destructiveHint defaults to true.
	RiskDestructive
)

// String returns "read-only", "side-effects" or "destructive".
func (r Risk) String() string {
	switch r {
	case RiskReadOnly:
		return "read-only"
	case RiskSideEffects:
		return "side-effects"
	case RiskDestructive:
		return "destructive"
	}
	return fmt.Sprintf("Risk(%d)", int(r))
}

// Handler runs a tool. It receives the validated, normalised arguments (a
// compact JSON object) and returns the result, usually JSON, which becomes
// the text of the result. A handler error becomes an error result.
type Handler func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// ToolOption configures a Tool at construction.
type ToolOption func(*toolConfig)

type toolConfig struct {
	risk         Risk
	mapper       *NameMapper
	origin       string
	source       string
	outputSchema json.RawMessage
	program      any
}

// WithRisk sets the tool's risk level. For FromMCP it overrides the
// definition's annotations.
func WithRisk(r Risk) ToolOption { return func(c *toolConfig) { c.risk = r } }

// WithNameMapper accepts a name that providers reject by mapping it through
// m (E01, E02). Every name goes through m, a valid one too, which maps to
// itself unless an earlier tool of m already holds it; so the tools built
// with one mapper never share a Name, whatever their order. The tool's Name
// is the mapped name and OriginalName the given one. Without a mapper an
// invalid name is an error.
func WithNameMapper(m *NameMapper) ToolOption { return func(c *toolConfig) { c.mapper = m } }

// WithOrigin says where the tool comes from (a package, an MCP server), for
// messages such as the duplicate-name error of Registry.Add.
func WithOrigin(origin string) ToolOption { return func(c *toolConfig) { c.origin = origin } }

// WithSource qualifies the tool's name by its source (an MCP server, a
// plugin): the tool's QualifiedName is "<source>.<name>", and its Name is
// made from the qualified name, so that tools of two sources never share
// one. The dot is outside most providers' alphabet, so a tool with a source
// needs WithNameMapper too (or a per-provider mapping, tools/names).
func WithSource(source string) ToolOption { return func(c *toolConfig) { c.source = source } }

// WithOutputSchema sets the JSON Schema the handler's output must match; it
// replaces an inferred or MCP output schema. It must be an object schema.
func WithOutputSchema(s json.RawMessage) ToolOption {
	return func(c *toolConfig) { c.outputSchema = bytes.Clone(s) }
}

// WithProgram records what a tool runs outside this process for each call
// (a command line, a server), for the layers above that fence or
// report such tools; tools/command sets it. A tool without one runs its
// handler in-process.
func WithProgram(p any) ToolOption { return func(c *toolConfig) { c.program = p } }

// Tool is a tool a model can call: a name, a description, the JSON Schema of
// its input, an optional output schema, a handler and a risk level. A Tool is
// immutable once built and safe to share; accessors return copies.
type Tool struct {
	name        string
	original    string
	source      string
	description string
	origin      string
	input       json.RawMessage
	output      json.RawMessage
	inputCheck  *schema.Validator
	outputCheck *schema.Validator
	handler     Handler
	risk        Risk
	program     any
}

// Name returns the name the model sees and calls.
func (t *Tool) Name() string { return t.name }

// OriginalName returns the name the tool was defined with; it differs from
// Name only when a NameMapper sanitised it.
func (t *Tool) OriginalName() string { return t.original }

// Source returns the tool's source (WithSource), or "".
func (t *Tool) Source() string { return t.source }

// QualifiedName returns "<source>.<original name>", or the original name
// for a tool without a source.
func (t *Tool) QualifiedName() string { return qualify(t.source, t.original) }

func qualify(source, name string) string {
	if source == "" {
		return name
	}
	return source + "." + name
}

// Description returns the tool's description.
func (t *Tool) Description() string { return t.description }

// Origin says where the tool was defined.
func (t *Tool) Origin() string { return t.origin }

// Risk returns the tool's risk level.
func (t *Tool) Risk() Risk { return t.risk }

// Program returns what the tool runs outside this process, as given to
// WithProgram, or nil for a tool whose handler runs in-process.
func (t *Tool) Program() any { return t.program }

// InputSchema returns a copy of the input JSON Schema.
func (t *Tool) InputSchema() json.RawMessage { return bytes.Clone(t.input) }

// OutputSchema returns a copy of the output JSON Schema, or nil.
func (t *Tool) OutputSchema() json.RawMessage { return bytes.Clone(t.output) }

// Spec returns the tool as it travels in a request.
func (t *Tool) Spec() core.ToolSpec {
	return core.ToolSpec{Name: t.name, Description: t.description, InputSchema: bytes.Clone(t.input)}
}

// NewTool builds a tool from a Go function. The input schema is inferred
// from In, which must be a struct (or a pointer to one): field descriptions
// come from `jsonschema:"..."` tags, enumerations from `enum:"a,b,c"` tags
// (see tools/schema). Fields without omitempty or omitzero in their json
// tag are required; unknown fields are not allowed. The output schema is
// inferred from Out when Out is a struct. A type that cannot be a
// parameter (channel, func, complex, map with non-string keys, interface,
// recursive type) is rejected with an error naming its Go field path, such
// as In.Filters.Callback.
//
// The handler decodes the arguments into In, rejecting unknown fields, and
// encodes Out as the result JSON. When Out is a pointer to a struct, a nil
// result does not match the output schema and becomes an error result.
func NewTool[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...ToolOption) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("new tool %q: nil function", name)
	}
	in, err := schema.Infer(reflect.TypeFor[In](), "In", schema.Input)
	if err != nil {
		return nil, fmt.Errorf("new tool %q: %w", name, err)
	}
	out, err := schema.Infer(reflect.TypeFor[Out](), "Out", schema.Output)
	if err != nil {
		return nil, fmt.Errorf("new tool %q: %w", name, err)
	}
	origin := "Go function"
	if f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()); f != nil {
		origin = "Go function " + f.Name()
	}
	handler := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var v In
		d := json.NewDecoder(bytes.NewReader(args))
		d.DisallowUnknownFields()
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("decode arguments: %w", err)
		}
		res, err := fn(ctx, v)
		if err != nil {
			return nil, err
		}
		return encodeCapped(res, outputLimit(ctx))
	}
	return buildTool("new tool", name, description, origin, in, out, handler, opts)
}

// NewRawTool builds a tool from a JSON Schema and a handler. The schema must
// be an object schema ("type": "object"); it is compiled here, and a bad
// schema is rejected with the JSON pointer of the fault.
func NewRawTool(name, description string, inputSchema json.RawMessage, handler Handler, opts ...ToolOption) (*Tool, error) {
	return buildTool("new raw tool", name, description, "raw schema", bytes.Clone(inputSchema), nil, handler, opts)
}

const opFromMCP = "tool from mcp"

// mcpDefinition is the part of an MCP tool definition conform reads.
type mcpDefinition struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  *struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
	} `json:"annotations"`
}

// FromMCP builds a tool from an MCP tool definition, {name, description,
// inputSchema, outputSchema?, annotations?}. The input schema must be an
// object schema. The risk comes from the annotations, with MCP's defaults:
// readOnlyHint true is RiskReadOnly; otherwise destructiveHint false is
// RiskSideEffects and anything else RiskDestructive. Unknown fields of the
// definition (title, icons, _meta) are ignored. MCP names may contain dots
// and slashes; pass WithNameMapper to accept them.
func FromMCP(def json.RawMessage, handler Handler, opts ...ToolOption) (*Tool, error) {
	var d mcpDefinition
	if err := json.Unmarshal(def, &d); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("tool from mcp: at byte %d: %w: %w", schema.FaultOffset(se), ErrInvalidDefinition, err)
		case errors.As(err, &te):
			at := "the top level"
			if te.Field != "" {
				at = "/" + strings.ReplaceAll(te.Field, ".", "/")
			}
			return nil, fmt.Errorf("tool from mcp: at %s: %w: %s is not a %s", at, ErrInvalidDefinition, te.Value, te.Type)
		}
		return nil, fmt.Errorf("tool from mcp: %w: %w", ErrInvalidDefinition, err)
	}
	if d.Name == "" {
		return nil, fmt.Errorf("tool from mcp: at /name: %w: missing", ErrInvalidDefinition)
	}
	if len(d.InputSchema) == 0 || string(d.InputSchema) == "null" {
		return nil, fmt.Errorf("tool from mcp %q: at /inputSchema: %w: missing", d.Name, ErrInvalidDefinition)
	}
	risk := RiskDestructive
	if a := d.Annotations; a != nil {
		switch {
		case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
			risk = RiskReadOnly
		case a.DestructiveHint != nil && !*a.DestructiveHint:
			risk = RiskSideEffects
		}
	}
	if string(d.OutputSchema) == "null" {
		d.OutputSchema = nil
	}
	opts = append([]ToolOption{WithRisk(risk)}, opts...)
	return buildTool(opFromMCP, d.Name, d.Description, "MCP tool definition", d.InputSchema, d.OutputSchema, handler, opts)
}

// buildTool checks and compiles everything the constructors share. op names
// the constructor in errors.
func buildTool(op, name, description, origin string, in, out json.RawMessage, handler Handler, opts []ToolOption) (*Tool, error) {
	cfg := toolConfig{risk: RiskDestructive, origin: origin}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if handler == nil {
		return nil, fmt.Errorf("%s %q: nil handler", op, name)
	}
	if cfg.risk < RiskReadOnly || cfg.risk > RiskDestructive {
		return nil, fmt.Errorf("%s %q: unknown risk level %d", op, name, int(cfg.risk))
	}
	if strings.Contains(cfg.source, ".") {
		return nil, fmt.Errorf("%s %q: source %q holds a dot, which separates source and name", op, name, cfg.source)
	}
	t := &Tool{name: qualify(cfg.source, name), original: name, source: cfg.source, description: description, origin: cfg.origin, handler: handler, risk: cfg.risk, program: cfg.program}
	// With a mapper every name goes through it, valid ones too: a valid
	// name maps to itself and so holds its slot, and a later name that
	// sanitises to the same text gets another (E01–E03).
	if cfg.mapper != nil {
		t.name = cfg.mapper.Sanitize(t.name)
	} else if err := core.CommonNameRules.Check(t.name); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	inPrefix, outPrefix := "", ""
	if op == opFromMCP {
		inPrefix, outPrefix = "/inputSchema", "/outputSchema"
	}
	var err error
	if t.input, t.inputCheck, err = compileObjectSchema(in, inPrefix); err != nil {
		return nil, fmt.Errorf("%s %q: input schema: %w", op, name, err)
	}
	if cfg.outputSchema != nil {
		out = cfg.outputSchema
	}
	if out != nil {
		if t.output, t.outputCheck, err = compileObjectSchema(out, outPrefix); err != nil {
			return nil, fmt.Errorf("%s %q: output schema: %w", op, name, err)
		}
	}
	return t, nil
}

// compileObjectSchema compacts and compiles an object schema. prefix is
// added to the JSON pointer of a fault, so that an error about an MCP
// definition points into the definition ("/inputSchema/type").
func compileObjectSchema(doc json.RawMessage, prefix string) (json.RawMessage, *schema.Validator, error) {
	if len(doc) > MaxSchemaBytes {
		return nil, nil, fmt.Errorf("%w: %d bytes, limit %d", ErrSchemaTooLarge, len(doc), MaxSchemaBytes)
	}
	err := schema.CheckObject(doc)
	var v *schema.Validator
	if err == nil {
		v, err = schema.Compile(doc)
	}
	if err != nil {
		var se *schema.SchemaError
		if prefix != "" && errors.As(err, &se) && se.Offset < 0 {
			return nil, nil, &schema.SchemaError{Path: prefix + se.Path, Offset: -1, Msg: se.Msg}
		}
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		return nil, nil, err // unreachable: Compile accepted doc as JSON
	}
	return b.Bytes(), v, nil
}
