package wire

import (
	"encoding/json"
	"errors"
	"fmt"
)

// DecodeError is a failure to decode bytes. Protocol names the adapter;
// Offset is the byte offset of the fault in the body or stream (-1 when
// unknown); Path is the JSON path of the faulty value when known.
type DecodeError struct {
	Protocol string
	Op       string
	Offset   int64
	Path     string
	Err      error
}

func (e *DecodeError) Error() string {
	s := e.Protocol + ": " + e.Op
	if e.Offset >= 0 {
		s += fmt.Sprintf(": at byte %d", e.Offset)
	}
	if e.Path != "" {
		s += ": at " + e.Path
	}
	return s + ": " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// HistoryError is a conversation that breaks a protocol's history rules.
// Message is the index in Request.Messages of the offending message and ID
// the tool call id concerned; IDField is how the protocol calls that id in
// the message ("call id", "call_id").
type HistoryError struct {
	Protocol string
	Message  int
	IDField  string
	ID       string
	Err      error
}

func (e *HistoryError) Error() string {
	return fmt.Sprintf("%s: encode request: message %d: %s %q: %v", e.Protocol, e.Message, e.IDField, e.ID, e.Err)
}

func (e *HistoryError) Unwrap() error { return e.Err }

// JSONError turns an error of encoding/json into a DecodeError of protocol
// wrapping malformed. base is the offset in the whole body of the bytes
// that were decoded, so that the offset a json.SyntaxError or
// json.UnmarshalTypeError names becomes an offset in the body; path is the
// JSON path of those bytes, extended by the field a type error names.
func JSONError(protocol, op string, base int64, path string, malformed, err error) *DecodeError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &DecodeError{Protocol: protocol, Op: op, Offset: base + se.Offset, Path: path, Err: fmt.Errorf("%w: %v", malformed, err)}
	case errors.As(err, &te):
		p := path
		if te.Field != "" {
			if p != "" {
				p += "."
			}
			p += te.Field
		}
		return &DecodeError{Protocol: protocol, Op: op, Offset: base + te.Offset, Path: p, Err: fmt.Errorf("%w: %v", malformed, err)}
	}
	return &DecodeError{Protocol: protocol, Op: op, Offset: -1, Path: path, Err: fmt.Errorf("%w: %v", malformed, err)}
}

// OffsetError is an error about the byte at Offset of a body or stream, for
// adapters whose errors name the operation and offset only (Gemini,
// Ollama).
type OffsetError struct {
	Op     string
	Offset int64
	Err    error
}

func (e *OffsetError) Error() string {
	return fmt.Sprintf("%s: at byte offset %d: %v", e.Op, e.Offset, e.Err)
}

func (e *OffsetError) Unwrap() error { return e.Err }

// PathError is an error about the value at a JSON path of a body or a
// canonical value.
type PathError struct {
	Op   string
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("%s: %s: %v", e.Op, e.Path, e.Err) }

func (e *PathError) Unwrap() error { return e.Err }
