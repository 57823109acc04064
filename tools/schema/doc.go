// Package schema infers JSON Schemas from Go types and validates JSON values
// against compiled schemas. It is the only package of conform that imports a
// JSON Schema library: inference uses github.com/google/jsonschema-go (the
// dialect of the official MCP Go SDK) and validation uses
// github.com/santhosh-tekuri/jsonschema/v6.
//
// # Inference
//
// [Infer] walks the Go type itself before it asks jsonschema-go for a
// schema, so that a type that cannot be a tool parameter is rejected with a
// [TypeError] naming the Go field path (In.Filters.Callback) and what to do
// instead. Rejected: channels, functions, complex numbers, unsafe pointers,
// maps whose keys are not strings, interfaces (in input types), recursive
// types, and a top level that is not a struct.
//
// Field descriptions come from the `jsonschema:"..."` struct tag, as in
// jsonschema-go. Enumerations come from an `enum:"a,b,c"` struct tag of
// this package's design: a comma-separated list of values, parsed according
// to the field's kind (strings as is, integers, floats and booleans parsed
// with strconv). A value cannot contain a comma. On a slice or array field
// the enumeration applies to the elements; on a pointer field null is added
// to it. An enum value that does not parse
// as the field's kind is a [TypeError].
//
// json.RawMessage is described by a schema that allows any JSON value
// (written as an object, {"description": "any JSON value"}, not as the
// boolean schema true, which some providers reject) and
// []byte by a base64 string, which is how encoding/json encodes them;
// jsonschema-go would otherwise describe both as arrays of integers.
//
// # Validation
//
// [Compile] compiles a schema document (any draft; 2020-12 when the schema
// names none) with remote and file references disabled, so that a schema
// from an untrusted MCP server cannot make conform read files or fetch URLs.
// A schema that is not valid against its metaschema is a [SchemaError]
// carrying the JSON pointer of the fault inside the schema.
//
// [Validator.Validate] returns every problem, not the first: the library's
// error tree is flattened to its leaves, one [Problem] per instance
// location, with "required" and "additionalProperties" failures split into
// one problem per property so that each names its own path.
package schema
