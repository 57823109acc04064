package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools/schema"
)

// MaxProblemsInMessage is how many problems Validation.Message lists; the
// rest are counted ("and 3 more problems"). Validation.Problems has them
// all.
const MaxProblemsInMessage = 20

// Validation is the outcome of checking a call against its tool.
type Validation struct {
	// Valid reports that the call names a registered tool and its
	// arguments match the tool's input schema.
	Valid bool `json:"valid"`
	// Message is empty when Valid; otherwise one text, fit to send back
	// to the model, that names every problem (up to
	// MaxProblemsInMessage of them, then a count of the rest).
	Message string `json:"message,omitempty"`
	// Problems lists the schema problems one by one, sorted by path: the
	// JSON pointer of a value ("" for the arguments as a whole) and what is
	// wrong with it.
	Problems []schema.Problem `json:"problems,omitempty"`
	// Arguments are the normalised arguments: compact JSON, with empty,
	// whitespace-only, "" and null arguments replaced by {} (C01, C06).
	// When the arguments are not JSON they are kept as received.
	Arguments json.RawMessage `json:"arguments"`
	// Err is the failure for callers that branch on it: it wraps
	// ErrUnknownTool, ErrArgumentsTooLarge, ErrTooDeep,
	// ErrMalformedArguments or ErrSchemaMismatch. It is nil when Valid.
	Err error `json:"-"`
}

// ErrMalformedArguments is wrapped by Validation.Err for arguments that are
// not JSON; the error is an *ArgumentsError carrying the byte offset.
var ErrMalformedArguments = errors.New("malformed arguments")

// ErrSchemaMismatch is wrapped by Validation.Err for arguments that are
// JSON but do not match the tool's input schema (or are double-encoded).
var ErrSchemaMismatch = errors.New("invalid arguments")

// Validate checks a call: the tool must be registered (an unknown name gets
// a message naming the available tools and the closest match, E04) and the
// arguments must match its schema, as (*Tool).Validate checks them.
func (r *Registry) Validate(call core.Call) Validation {
	t, ok := r.Lookup(call.Name)
	if !ok {
		r.mu.RLock()
		err := r.unknownLocked(call.Name)
		r.mu.RUnlock()
		args, _ := normaliseArguments(call.Arguments)
		return Validation{Message: err.Error(), Arguments: args, Err: fmt.Errorf("validate call: %w", err)}
	}
	return t.Validate(call.Arguments)
}

// Validate checks arguments against the tool's input schema and returns
// every problem at once.
//
// Empty arguments, whitespace, the JSON string "" and null all mean "no
// arguments" and are normalised to {} before the check (C01, C06); a tool
// with required parameters then reports each of them missing.
//
// Arguments that are not JSON are invalid with a message naming the byte
// offset of the fault. Arguments larger than core.DefaultMaxArgBytes, or nested
// deeper than MaxDepth, are invalid.
//
// Arguments that are a JSON string holding a JSON object (double-encoded,
// C05) are invalid, not silently unwrapped: the message says so and asks
// for the object itself. Unwrapping would hide a provider or adapter bug
// that conform exists to report, and the model, told plainly, sends the
// object on the next turn. The same hint is added to a parameter whose
// schema wants an object or array and which holds one encoded as a string.
func (t *Tool) Validate(args json.RawMessage) Validation {
	norm, err := normaliseArguments(args)
	if t.inputCheck == nil {
		msg := fmt.Sprintf("tool %q has no compiled input schema; build it with NewTool, NewRawTool or FromMCP", t.name)
		return Validation{Message: msg, Arguments: norm, Err: errors.New("validate: " + msg)}
	}
	if err != nil {
		msg := fmt.Sprintf("arguments of %q are not valid JSON: %v", t.name, err)
		var de *core.DepthError
		switch {
		case errors.Is(err, core.ErrArgumentsTooLarge):
			msg = fmt.Sprintf("arguments of %q are %d bytes, more than the limit of %d", t.name, len(args), core.DefaultMaxArgBytes)
		case errors.As(err, &de):
			msg = fmt.Sprintf("arguments of %q are nested more than %d levels deep (at byte %d)", t.name, core.MaxDepth, de.Offset)
		}
		return Validation{Message: msg, Problems: []schema.Problem{{Message: msg}}, Arguments: norm,
			Err: fmt.Errorf("validate %q: %w", t.name, err)}
	}
	v, err := schema.Decode(norm)
	if err != nil {
		// normaliseArguments accepted the text, so this is a bug; it is
		// reported rather than passed.
		msg := fmt.Sprintf("arguments of %q: %v", t.name, err)
		return Validation{Message: msg, Problems: []schema.Problem{{Message: msg}}, Arguments: norm,
			Err: fmt.Errorf("validate %q: %w: %w", t.name, ErrMalformedArguments, err)}
	}
	if s, ok := v.(string); ok && isEncodedContainer(s) {
		what := "an object"
		if strings.TrimSpace(s)[0] == '[' {
			what = "an array"
		}
		msg := fmt.Sprintf("arguments of %q are a string holding %s encoded as JSON, not an object; send the object itself", t.name, what)
		return Validation{Message: msg, Problems: []schema.Problem{{Message: msg}}, Arguments: norm,
			Err: fmt.Errorf("validate %q: %w: double-encoded (C05)", t.name, ErrSchemaMismatch)}
	}
	sp := t.inputCheck.ValidateValue(v)
	if len(sp) == 0 {
		return Validation{Valid: true, Arguments: norm}
	}
	ps := make([]schema.Problem, len(sp))
	parts := make([]string, len(sp))
	for i, p := range sp {
		msg := p.Message
		if strings.HasPrefix(msg, "got string, want ") {
			if x, ok := valueAtPointer(v, p.Path); ok {
				if s, ok := x.(string); ok && isEncodedContainer(s) {
					msg += " (it is JSON encoded as a string; send the value itself)"
				}
			}
		}
		ps[i] = schema.Problem{Path: p.Path, Message: msg}
		if p.Path == "" {
			parts[i] = msg
		} else {
			parts[i] = p.Path + ": " + msg
		}
	}
	shown := parts
	if len(shown) > MaxProblemsInMessage {
		shown = append(shown[:MaxProblemsInMessage:MaxProblemsInMessage], fmt.Sprintf("and %d more problems", len(parts)-MaxProblemsInMessage))
	}
	msg := fmt.Sprintf("arguments do not match the schema of %q: %s", t.name, strings.Join(shown, "; "))
	return Validation{
		Message:   msg,
		Problems:  ps,
		Arguments: norm,
		Err:       fmt.Errorf("validate %q: %w: %s", t.name, ErrSchemaMismatch, strings.Join(shown, "; ")),
	}
}

// ArgumentsError reports arguments that are not JSON, at the 0-based byte
// offset of the fault in the text as received (leading whitespace
// included): the offending byte, or the end of a truncated text.
type ArgumentsError struct {
	Offset int64
	Msg    string
}

func (e *ArgumentsError) Error() string {
	return fmt.Sprintf("at byte %d: %s", e.Offset, e.Msg)
}

// Unwrap returns ErrMalformedArguments.
func (e *ArgumentsError) Unwrap() error { return ErrMalformedArguments }

// normaliseArguments returns compact arguments, {} for "no arguments". When
// args are not JSON it returns a copy of them and an *ArgumentsError; when
// they are too large or too deep, a copy and an error wrapping
// ErrArgumentsTooLarge or ErrTooDeep.
func normaliseArguments(args json.RawMessage) (json.RawMessage, error) {
	if len(args) > core.DefaultMaxArgBytes {
		return bytes.Clone(args), fmt.Errorf("normalise arguments: %w: %d bytes, limit %d", core.ErrArgumentsTooLarge, len(args), core.DefaultMaxArgBytes)
	}
	if err := core.CheckDepth(args); err != nil {
		return bytes.Clone(args), fmt.Errorf("normalise arguments: %w", err)
	}
	trimmed := bytes.TrimSpace(args)
	switch string(trimmed) {
	case "", "null", `""`:
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(args) {
		// json.Unmarshal names the offset of the first fault, including
		// truncation and trailing data; json.Compact does not.
		var raw json.RawMessage
		err := json.Unmarshal(args, &raw)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return bytes.Clone(args), &ArgumentsError{Offset: schema.FaultOffset(se), Msg: se.Error()}
		}
		return bytes.Clone(args), &ArgumentsError{Msg: fmt.Sprint("not JSON: ", err)}
	}
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		return bytes.Clone(args), &ArgumentsError{Msg: err.Error()} // unreachable after json.Valid
	}
	return b.Bytes(), nil
}

// isEncodedContainer reports whether s is the JSON text of an object or an
// array.
func isEncodedContainer(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[0] != '{' && s[0] != '[') {
		return false
	}
	return json.Valid([]byte(s))
}

// valueAtPointer returns the value at a JSON pointer in a decoded value.
func valueAtPointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
