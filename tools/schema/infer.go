package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrUnsupportedType is wrapped by every TypeError.
var ErrUnsupportedType = errors.New("type cannot be described by a JSON Schema")

// TypeError reports a Go type that cannot be turned into a tool schema. Path
// is the Go field path from the root, such as "In.Filters.Callback" (slice
// and array elements add "[]", map values "[value]").
type TypeError struct {
	Path   string
	Type   string
	Reason string
	Hint   string
}

func (e *TypeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "infer schema: %s (%s): %s", e.Path, e.Type, e.Reason)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns ErrUnsupportedType.
func (e *TypeError) Unwrap() error { return ErrUnsupportedType }

// Mode says what an inferred schema describes.
type Mode int

const (
	// Input is a tool's parameters: the top level must be a struct and
	// interface types are rejected, since a model cannot be told what to
	// put there.
	Input Mode = iota
	// Output is a tool's result: interfaces are allowed (they are
	// described by the empty schema) because encoding/json can encode
	// them.
	Output
)

// leafSchemas are types described by a fixed schema rather than by their
// Go structure. Their fields are never walked.
var leafSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
	reflect.TypeFor[[]byte]():          {Type: "string", ContentEncoding: "base64"},
	reflect.TypeFor[json.Number]():     {Type: "number"},
	reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
	reflect.TypeFor[time.Duration]():   {Type: "integer", Description: "nanoseconds"},
	reflect.TypeFor[slog.Level]():      {Type: "string"},
	reflect.TypeFor[big.Int]():         {Type: "string"},
	reflect.TypeFor[big.Rat]():         {Type: "string"},
	reflect.TypeFor[big.Float]():       {Type: "string"},
}

// wordPrefix matches jsonschema tags that jsonschema-go reserves ("WORD=").
var wordPrefix = regexp.MustCompile(`^[^ \t\n]*=`)

// Infer returns the JSON Schema of t as compact JSON. root names the type in
// error paths ("In", "Out"). In Input mode t (after pointers) must be a
// struct; in Output mode a non-struct type is checked but has no schema, and
// Infer returns nil and no error.
func Infer(t reflect.Type, root string, mode Mode) (json.RawMessage, error) {
	if t == nil {
		return nil, &TypeError{Path: root, Type: "nil", Reason: "no type", Hint: "use a struct type"}
	}
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	isStruct := base.Kind() == reflect.Struct && leafSchemas[base] == nil
	if !isStruct && mode == Input {
		return nil, &TypeError{Path: root, Type: t.String(), Reason: "a tool's input must be a struct",
			Hint: "declare a struct whose fields are the parameters"}
	}
	w := walker{mode: mode, stack: map[reflect.Type]bool{}}
	if err := w.walk(t, root); err != nil {
		return nil, err
	}
	if !isStruct {
		return nil, nil // Output mode: checked, but no schema
	}
	s, err := jsonschema.ForType(base, &jsonschema.ForOptions{TypeSchemas: leafSchemas})
	if err != nil {
		// The walk above rejects everything jsonschema-go rejects; reaching
		// here means the two disagree, which is reported rather than hidden.
		return nil, fmt.Errorf("infer schema: %s: %w", root, err)
	}
	if err := applyEnums(base, s, root); err != nil {
		return nil, err
	}
	out, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("infer schema: %s: encode: %w", root, err)
	}
	return out, nil
}

type walker struct {
	mode  Mode
	stack map[reflect.Type]bool
}

func (w *walker) walk(t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if leafSchemas[t] != nil {
		return nil
	}
	fail := func(reason, hint string) error {
		return &TypeError{Path: path, Type: t.String(), Reason: reason, Hint: hint}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Complex64, reflect.Complex128:
		return fail("complex numbers have no JSON form", "use two float64 fields or a string")
	case reflect.Chan:
		return fail("a channel cannot be sent as JSON", `remove the field or tag it json:"-"`)
	case reflect.Func:
		return fail("a function cannot be sent as JSON", `remove the field or tag it json:"-"`)
	case reflect.UnsafePointer:
		return fail("an unsafe pointer cannot be sent as JSON", `remove the field or tag it json:"-"`)
	case reflect.Interface:
		if w.mode == Output {
			return nil
		}
		return fail("an interface has no schema", "use a concrete type, or json.RawMessage for a free-form JSON value")
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fail("map keys must be strings to be JSON object keys", "use map[string]T")
		}
		return w.walk(t.Elem(), path+"[value]")
	case reflect.Slice, reflect.Array:
		return w.walk(t.Elem(), path+"[]")
	case reflect.Struct:
		if w.stack[t] {
			return fail("recursive type", "schema inference cannot describe a recursive type; break the cycle with json.RawMessage")
		}
		w.stack[t] = true
		defer delete(w.stack, t)
		for _, f := range reflect.VisibleFields(t) {
			fpath := path + "." + f.Name
			if f.Anonymous {
				if err := checkEmbedded(f, fpath); err != nil {
					return err
				}
				continue // its promoted fields follow in VisibleFields
			}
			if _, ok := jsonName(f); !ok {
				continue
			}
			if tag, ok := f.Tag.Lookup("jsonschema"); ok {
				if tag == "" {
					return &TypeError{Path: fpath, Type: f.Type.String(), Reason: "empty jsonschema tag",
						Hint: "write the field's description in the tag or remove it"}
				}
				if wordPrefix.MatchString(tag) {
					return &TypeError{Path: fpath, Type: f.Type.String(), Reason: fmt.Sprintf("jsonschema tag %q starts with WORD=", tag),
						Hint: `the jsonschema tag is a plain description; use the enum:"a,b" tag for enumerations`}
				}
			}
			if err := w.walk(f.Type, fpath); err != nil {
				return err
			}
		}
		return nil
	}
	return fail("unsupported kind "+t.Kind().String(), "")
}

// checkEmbedded rejects embedded fields that encoding/json and jsonschema-go
// would read differently: jsonschema-go only promotes the fields of an
// embedded struct, while encoding/json treats an embedded non-struct, or an
// embedded struct with a json name, as one named field.
func checkEmbedded(f reflect.StructField, path string) error {
	ft := f.Type
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if tag, ok := f.Tag.Lookup("json"); ok {
		if n, _, _ := strings.Cut(tag, ","); n != "" {
			return &TypeError{Path: path, Type: f.Type.String(), Reason: "embedded field with a json name",
				Hint: "declare it as a named field"}
		}
	}
	if ft.Kind() != reflect.Struct && (f.IsExported() || ft.Kind() == reflect.Interface) {
		return &TypeError{Path: path, Type: f.Type.String(), Reason: "embedded field that is not a struct",
			Hint: "declare it as a named field"}
	}
	return nil
}

// jsonName returns the JSON name of a struct field and whether encoding/json
// encodes it at all.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name := f.Name
	if tag, ok := f.Tag.Lookup("json"); ok {
		n, _, found := strings.Cut(tag, ",")
		if n == "-" && !found {
			return "", false
		}
		if n != "" {
			name = n
		}
	}
	return name, true
}

// applyEnums walks t and its schema s together and sets the enumerations
// given by enum struct tags.
func applyEnums(t reflect.Type, s *jsonschema.Schema, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil || leafSchemas[t] != nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyEnums(t.Elem(), s.Items, path+"[]")
	case reflect.Map:
		return applyEnums(t.Elem(), s.AdditionalProperties, path+"[value]")
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				continue
			}
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			fs := s.Properties[name]
			fpath := path + "." + f.Name
			if tag, ok := f.Tag.Lookup("enum"); ok {
				if err := setEnum(f.Type, fs, tag, fpath); err != nil {
					return err
				}
			}
			if err := applyEnums(f.Type, fs, fpath); err != nil {
				return err
			}
		}
	}
	return nil
}

func setEnum(t reflect.Type, s *jsonschema.Schema, tag, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		if leafSchemas[t] == nil {
			return setEnum(t.Elem(), s.Items, tag, path+"[]")
		}
	}
	fail := func(reason string) error {
		return &TypeError{Path: path, Type: t.String(), Reason: reason,
			Hint: `write enum:"a,b,c" on a string, number or boolean field (or a slice of one)`}
	}
	if tag == "" {
		return fail("empty enum tag")
	}
	var vals []any
	for _, v := range strings.Split(tag, ",") {
		var (
			x   any
			err error
		)
		switch t.Kind() {
		case reflect.String:
			x = v
		case reflect.Bool:
			x, err = strconv.ParseBool(v)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x, err = strconv.ParseInt(v, 10, t.Bits())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			x, err = strconv.ParseUint(v, 10, t.Bits())
		case reflect.Float32, reflect.Float64:
			x, err = strconv.ParseFloat(v, t.Bits())
		default:
			return fail("enum tag on a field that is not a string, number or boolean")
		}
		if err != nil {
			return fail(fmt.Sprintf("enum value %q is not a %s", v, t.Kind()))
		}
		vals = append(vals, x)
	}
	if slices.Contains(s.Types, "null") {
		vals = append(vals, nil) // a pointer field may still be null
	}
	s.Enum = vals
	return nil
}
