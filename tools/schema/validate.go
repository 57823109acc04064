package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/toolconform/conform/core"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrInvalidSchema is wrapped by every SchemaError.
var ErrInvalidSchema = errors.New("invalid schema")

// SchemaError reports a schema that cannot be compiled. Path is the JSON
// pointer of the fault inside the schema document ("" for the whole
// document), Offset the byte offset when the document is not JSON at all
// (-1 otherwise).
type SchemaError struct {
	Path   string
	Offset int64
	Msg    string
	// Err is the cause, when it is one callers branch on: an error
	// wrapping ErrTooDeep.
	Err error
}

func (e *SchemaError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("compile schema: at byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("compile schema: at %s: %s", displayPath(e.Path), e.Msg)
}

// Unwrap returns ErrInvalidSchema, and the cause when there is one (such
// as ErrTooDeep).
func (e *SchemaError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidSchema, e.Err}
	}
	return []error{ErrInvalidSchema}
}

// Problem is one way a value fails a schema: the JSON pointer of the value
// ("" for the whole value) and what is wrong with it.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// String returns "path: message", or the message alone at the root.
func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// MaxDepth is the deepest nesting of arrays and objects Decode accepts, in
// schemas and in values: core.MaxDepth.
const MaxDepth = core.MaxDepth

// ErrTooDeep is wrapped by the error for a value or schema nested deeper
// than MaxDepth; it is core.ErrTooDeep.
var ErrTooDeep = core.ErrTooDeep

// Validator is a compiled schema. It is safe for concurrent use.
type Validator struct {
	s *jsonschema.Schema
}

// noLoader refuses every reference outside the schema document.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %q not allowed", url)
}

const resourceURL = "urn:conform:schema"

var printer = message.NewPrinter(language.English)

// Compile compiles a schema document. Errors are *SchemaError values.
func Compile(doc []byte) (*Validator, error) {
	v, err := Decode(doc)
	if err != nil {
		return nil, decodeError(err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(resourceURL, v); err != nil {
		return nil, &SchemaError{Offset: -1, Msg: err.Error()}
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, compileError(err, v)
	}
	return &Validator{s: s}, nil
}

// compileError turns a compiler error into a SchemaError at the first
// problem's place.
func compileError(err error, doc any) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			ps := flatten(ve)
			if len(ps) > 0 {
				// The first problem gives the place; the others follow in Msg.
				first := ps[0]
				var rest []string
				for _, p := range ps[1:] {
					rest = append(rest, p.String())
				}
				msg := first.Message
				if len(rest) > 0 {
					msg += " (also " + strings.Join(rest, "; ") + ")"
				}
				return &SchemaError{Path: first.Path, Offset: -1, Msg: "not valid against the metaschema: " + msg}
			}
		}
	}
	// Other compiler errors: an unresolved or refused reference, named by
	// its target; the place is that of the $ref that names it.
	msg := strings.ReplaceAll(err.Error(), resourceURL+"#", "")
	path := ""
	var ire *jsonschema.InvalidRegexError
	if errors.As(err, &ire) {
		if _, frag, ok := strings.Cut(ire.URL, "#"); ok {
			if p, err := url.PathUnescape(frag); err == nil && strings.HasPrefix(p, "/") {
				path = p
			}
		}
	} else if at, ok := findRef(doc, "", func(ref string) bool { return refNamedIn(ref, err.Error()) || refNamedIn(ref, msg) }); ok {
		path = at
	}
	return &SchemaError{Path: path, Offset: -1, Msg: msg}
}

// FaultOffset returns the 0-based byte offset of the fault a
// *json.SyntaxError reports: the offending byte for an invalid character
// (encoding/json counts the bytes read, that byte included), the end of the
// text for a truncated value.
func FaultOffset(se *json.SyntaxError) int64 {
	if se.Offset > 0 && strings.HasPrefix(se.Error(), "invalid character") {
		return se.Offset - 1
	}
	return se.Offset
}

// CheckObject reports whether doc is an object schema: a JSON object whose
// "type" is "object". Tool input schemas must be (MCP, and every provider).
func CheckObject(doc []byte) error {
	v, err := Decode(doc)
	if err != nil {
		return decodeError(err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return &SchemaError{Offset: -1, Msg: fmt.Sprintf("a tool schema must be a JSON object, not %s", display(v))}
	}
	typ, ok := obj["type"]
	if !ok {
		return &SchemaError{Path: "/type", Offset: -1, Msg: `missing; a tool schema must have "type": "object"`}
	}
	if typ != "object" {
		return &SchemaError{Path: "/type", Offset: -1, Msg: fmt.Sprintf(`%s; a tool schema must have "type": "object"`, display(typ))}
	}
	return nil
}

// decodeError turns an error of Decode into a SchemaError at its offset.
func decodeError(err error) *SchemaError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &SchemaError{Offset: FaultOffset(se), Msg: se.Error()}
	}
	var de *core.DepthError
	if errors.As(err, &de) {
		return &SchemaError{Offset: int64(de.Offset), Msg: fmt.Sprintf("%v: more than %d levels", ErrTooDeep, MaxDepth), Err: err}
	}
	return &SchemaError{Offset: 0, Msg: err.Error()}
}

// Decode decodes one JSON value the way the validator expects it: numbers as
// json.Number, nothing after the value. Syntax errors are *json.SyntaxError
// carrying the byte offset. A value nested deeper than MaxDepth is refused
// before it is decoded, with an error wrapping ErrTooDeep (core.ErrTooDeep)
// that names the byte offset, so that neither the decoder nor the
// validator, both recursive, ever meets it.
func Decode(data []byte) (any, error) {
	if err := core.CheckDepth(data); err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		// json.Unmarshal reports the offset of the first fault, including
		// a truncated value and trailing data.
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw)
		if err == nil {
			err = &json.SyntaxError{Offset: 0}
		}
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Validate checks a JSON document and returns every problem, sorted by path.
// A document that is not JSON is an error (a *json.SyntaxError).
func (v *Validator) Validate(data []byte) ([]Problem, error) {
	x, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return v.ValidateValue(x), nil
}

// ValidateValue checks a decoded value (from Decode) and returns every
// problem, sorted by path.
func (v *Validator) ValidateValue(x any) []Problem {
	err := v.s.Validate(x)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	return flatten(ve)
}

// comparePointers orders JSON pointers token by token: array indexes by
// number (/a/2 before /a/10) and before other tokens, other tokens as
// strings. It is a total order.
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		x, y := ta[i], tb[i]
		if x == y {
			continue
		}
		ix, iy := isIndex(x), isIndex(y)
		switch {
		case ix && iy:
			if c := cmp.Compare(len(x), len(y)); c != 0 {
				return c
			}
		case ix:
			return -1
		case iy:
			return 1
		}
		return strings.Compare(x, y)
	}
	return cmp.Compare(len(ta), len(tb))
}

// isIndex reports whether a pointer token is an array index: digits, with
// no leading zero.
func isIndex(tok string) bool {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return false
		}
	}
	return true
}

// flatten returns the leaves of a validation error tree as problems, one per
// path and message, sorted by path.
func flatten(ve *jsonschema.ValidationError) []Problem {
	var ps []Problem
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				visit(c)
			}
			return
		}
		base := pointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				ps = append(ps, Problem{Path: base + "/" + escape(m), Message: "missing"})
			}
		case *kind.AdditionalProperties:
			for _, m := range k.Properties {
				ps = append(ps, Problem{Path: base + "/" + escape(m), Message: "unknown property, not allowed"})
			}
		case *kind.Type:
			ps = append(ps, Problem{Path: base, Message: fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))})
		case *kind.Enum:
			ps = append(ps, Problem{Path: base, Message: enumMessage(k.Want)})
		case *kind.Const:
			ps = append(ps, Problem{Path: base, Message: "value must be " + display(k.Want)})
		case *kind.FalseSchema:
			ps = append(ps, Problem{Path: base, Message: "not allowed"})
		default:
			ps = append(ps, Problem{Path: base, Message: e.ErrorKind.LocalizedString(printer)})
		}
	}
	visit(ve)
	slices.SortStableFunc(ps, func(a, b Problem) int { return comparePointers(a.Path, b.Path) })
	return slices.Compact(ps)
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func displayPath(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}

// findRef returns the JSON pointer of the first "$ref" (in sorted key
// order) whose value satisfies match.
func findRef(v any, at string, match func(string) bool) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok && match(r) {
			return at + "/$ref", true
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p, ok := findRef(v[k], at+"/"+escape(k), match); ok {
				return p, true
			}
		}
	case []any:
		for i, x := range v {
			if p, ok := findRef(x, fmt.Sprintf("%s/%d", at, i), match); ok {
				return p, true
			}
		}
	}
	return "", false
}

// refNamedIn reports whether an error message names the reference ref: the
// whole of it, or its fragment, plain or URL-escaped.
func refNamedIn(ref, msg string) bool {
	if ref == "" {
		return false
	}
	if strings.Contains(msg, ref) {
		return true
	}
	_, frag, ok := strings.Cut(ref, "#")
	if !ok || frag == "" {
		return false
	}
	return strings.Contains(msg, `"`+frag+`"`) ||
		strings.Contains(msg, `"`+(&url.URL{Path: frag}).EscapedPath()+`"`)
}

func enumMessage(want []any) string {
	if len(want) == 1 {
		return "value must be " + display(want[0])
	}
	vals := make([]string, len(want))
	for i, w := range want {
		vals[i] = display(w)
	}
	return "value must be one of " + strings.Join(vals, ", ")
}

// display returns a value as JSON text.
func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
