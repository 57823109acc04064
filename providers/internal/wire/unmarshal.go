package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// type error names, and the error: encoding/json's own, or one for an
// early end (wrapping io.ErrUnexpectedEOF) or for data after the value.
// Bedrock and Cohere wrap the three in their own DecodeError.
func StrictUnmarshal(body []byte, v any) (offset int64, field string, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		if off, f, ok := JSONPlace(err); ok {
			return off, f, err
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, "", fmt.Errorf("unexpected end of JSON input: %w", io.ErrUnexpectedEOF)
		}
		return 0, "", err
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		// The offset of the first byte after the value that is not white
		// space, where the extra data starts.
		rest := body[end:]
		return end + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))), "", errors.New("unexpected data after the JSON value")
	}
	return 0, "", nil
}

// WrapJSONError prefixes an encoding/json error met while decoding one
// part of a stream (what: "payload", "data") with the part and the place
// JSONPlace finds: "payload at byte 3: ..." for a syntax error, "data
// field a.b at byte 7: ..." for a type error, and "payload: ..." for any
// other error, which it wraps alike.
func WrapJSONError(what string, err error) error {
	off, field, ok := JSONPlace(err)
	var typ *json.UnmarshalTypeError
	switch {
	case !ok:
		return fmt.Errorf("%s: %w", what, err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s field %s at byte %d: %w", what, field, off, err)
	}
	return fmt.Errorf("%s at byte %d: %w", what, off, err)
}
