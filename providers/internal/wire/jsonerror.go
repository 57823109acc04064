package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
)

// JSONPlace returns where an error of encoding/json puts its fault. For a
// *json.SyntaxError it is the 0-based offset of the bad byte (the error's
// own Offset counts the bad byte as read); for a *json.UnmarshalTypeError,
// the offset the error names and the path of the field, as the error
// spells it. ok is false for any other error.
func JSONPlace(err error) (offset int64, field string, ok bool) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return max(syn.Offset-1, 0), "", true
	case errors.As(err, &typ):
		return typ.Offset, typ.Field, true
	}
	return 0, "", false
}

// StrictUnmarshal decodes body, which must hold one JSON value and nothing
// after it but white space, into v. On failure it returns the byte offset
// of the fault (0 where encoding/json names none), the path of the field a
// type error names, and the error, wrapping core.ErrMalformed and
// encoding/json's own, or io.ErrUnexpectedEOF for an early end, or nothing
// else for data after the value. Bedrock and Cohere wrap it in their
// DecodeError.
func StrictUnmarshal(body []byte, v any) (offset int64, field string, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		if off, f, ok := JSONPlace(err); ok {
			return off, f, fmt.Errorf("%w: %w", core.ErrMalformed, err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, "", fmt.Errorf("%w: unexpected end of JSON input: %w", core.ErrMalformed, io.ErrUnexpectedEOF)
		}
		return 0, "", fmt.Errorf("%w: %w", core.ErrMalformed, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		// The offset of the first byte after the value that is not white
		// space, where the extra data starts.
		rest := body[end:]
		return end + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))), "", fmt.Errorf("%w: unexpected data after the JSON value", core.ErrMalformed)
	}
	return 0, "", nil
}

// WrapJSONError prefixes an encoding/json error met while decoding one
// part of a stream (what: "payload", "data") with the part and the place
// JSONPlace finds: "payload at byte 3: ..." for a syntax error, "data
// field a.b at byte 7: ..." for a type error, and "payload: ..." for any
// other error, which it wraps alike, with core.ErrMalformed.
func WrapJSONError(what string, err error) error {
	off, field, ok := JSONPlace(err)
	var typ *json.UnmarshalTypeError
	switch {
	case !ok:
		return fmt.Errorf("%w %s: %w", core.ErrMalformed, what, err)
	case errors.As(err, &typ):
		return fmt.Errorf("%w %s field %s at byte %d: %w", core.ErrMalformed, what, field, off, err)
	}
	return fmt.Errorf("%w %s at byte %d: %w", core.ErrMalformed, what, off, err)
}
