package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
)

// DecodeError is a failure to decode bytes, the one decode error of every
// built-in adapter. Protocol names the adapter and Op the operation
// ("decode response", "decode stream"); Offset is the byte offset of the
// fault in the body or stream, or of the stream event or frame holding it
// (-1 when unknown); Event is that event's or frame's type when known;
// Path is the JSON path of the faulty value when known. Err wraps the
// sentinel the fault is (see the sentinel policy in doc.go).
type DecodeError struct {
	Protocol string
	Op       string
	Offset   int64
	Event    string
	Path     string
	Err      error
}

func (e *DecodeError) Error() string {
	s := e.Protocol + ": " + e.Op
	if e.Offset >= 0 {
		s += fmt.Sprintf(": at byte %d", e.Offset)
	}
	if e.Event != "" {
		s += " (" + e.Event + ")"
	}
	if e.Path != "" {
		s += ": at " + e.Path
	}
	return s + ": " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Placed returns the *DecodeError of op, an operation named with its
// protocol ("gemini: decode stream"), at byte off (-1 when unknown) and
// JSON path path (empty when unknown).
func Placed(op string, off int64, path string, err error) *DecodeError {
	protocol, what, _ := strings.Cut(op, ": ")
	return &DecodeError{Protocol: protocol, Op: what, Offset: off, Path: path, Err: err}
}

// History sets protocol on every *core.HistoryError of err, one or a list
// joined as core.CheckHistory returns them, and returns err: the history
// error of every adapter is core's, naming its protocol.
func History(protocol string, err error) error {
	if err == nil {
		return nil
	}
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	for _, e := range list {
		var he *core.HistoryError
		if errors.As(e, &he) {
			he.Protocol = protocol
		}
	}
	return err
}

// JSONError turns an error of encoding/json into a DecodeError of protocol
// wrapping core.ErrMalformed. base is the offset in the whole body of the bytes
// that were decoded, so that the place JSONPlace finds (the 0-based offset
// of the bad byte of a json.SyntaxError, the offset a
// json.UnmarshalTypeError names) becomes an offset in the body; a negative
// base means those bytes' place in the body is unknown, and so is the
// offset (-1). path is the JSON path of those bytes, extended by the field
// a type error names.
func JSONError(protocol, op string, base int64, path string, err error) *DecodeError {
	off, field, ok := JSONPlace(err)
	if !ok {
		return &DecodeError{Protocol: protocol, Op: op, Offset: -1, Path: path, Err: fmt.Errorf("%w: %v", core.ErrMalformed, err)}
	}
	if base < 0 {
		off = -1
	} else {
		off += base
	}
	if field != "" {
		if path != "" {
			path += "."
		}
		path += field
	}
	return &DecodeError{Protocol: protocol, Op: op, Offset: off, Path: path, Err: fmt.Errorf("%w: %v", core.ErrMalformed, err)}
}

// CheckToolChoice refuses a tool choice of no known mode with a
// *DecodeError of protocol's "encode request" at tool_choice.mode wrapping
// core.ErrMalformed, for the encoders that would otherwise drop it or send
// it as it is.
func CheckToolChoice(protocol string, tc *core.ToolChoice) error {
	if tc == nil {
		return nil
	}
	switch tc.Mode {
	case core.ToolChoiceAuto, core.ToolChoiceNone, core.ToolChoiceRequired, core.ToolChoiceTool:
		return nil
	}
	return &DecodeError{Protocol: protocol, Op: "encode request", Offset: -1, Path: "tool_choice.mode", Err: fmt.Errorf("%w: unknown mode %q", core.ErrMalformed, tc.Mode)}
}

// CheckResultParts refuses a tool_result part without its result, with a
// *DecodeError of protocol's "encode request" at the part wrapping
// core.ErrMalformed, for the encoders that gather results with
// core.Message.Results, which skips such a part.
func CheckResultParts(protocol string, msgs []core.Message) error {
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.Kind == core.PartToolResult && p.Result == nil {
				return &DecodeError{Protocol: protocol, Op: "encode request", Offset: -1, Path: fmt.Sprintf("messages[%d].parts[%d]", i, j), Err: fmt.Errorf("%w: tool_result part without a result", core.ErrMalformed)}
			}
		}
	}
	return nil
}
