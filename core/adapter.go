package core

import (
	"errors"
	"fmt"
	"io"
)

// Adapter is one provider wire protocol, in both directions: it encodes and
// decodes requests, responses and streams between the canonical model and
// the provider's bytes. Decoding what an adapter encoded gives back the
// canonical value, for the fields the canonical model keeps.
//
// Decoders never panic on bad input: they return an error that names the
// byte offset or the JSON path of the fault.
//
// Each operation is also an interface of its own (RequestEncoder,
// StreamDecoder, ...), so that code that grades or uses only part of an
// adapter can take only that part.
type Adapter interface {
	// Name is the protocol's name, such as "openai-chat".
	Name() string

	RequestEncoder
	RequestDecoder
	ResponseEncoder
	ResponseDecoder
	StreamDecoder
	StreamEncoder
}

// RequestEncoder encodes a canonical request as the protocol's body.
type RequestEncoder interface {
	EncodeRequest(req *Request) ([]byte, error)
}

// RequestDecoder decodes a request body to the canonical request.
type RequestDecoder interface {
	DecodeRequest(body []byte) (*Request, error)
}

// ResponseEncoder encodes a canonical response as the protocol's body.
type ResponseEncoder interface {
	EncodeResponse(resp *Response) ([]byte, error)
}

// ResponseDecoder decodes a whole response body.
type ResponseDecoder interface {
	DecodeResponse(body []byte) (*Response, error)
}

// StreamDecoder reads a streamed response body and yields its events.
type StreamDecoder interface {
	DecodeStream(r io.Reader) EventStream
}

// StreamEncoder writes events as the protocol's stream bytes.
type StreamEncoder interface {
	EncodeStream(w io.Writer, events []Event) error
}

// Operation names one of the six operations of an Adapter.
type Operation string

// The operations, named by the part of an adapter that does them.
const (
	OpEncodeRequest  Operation = "request encoder"
	OpDecodeRequest  Operation = "request decoder"
	OpEncodeResponse Operation = "response encoder"
	OpDecodeResponse Operation = "response decoder"
	OpDecodeStream   Operation = "stream decoder"
	OpEncodeStream   Operation = "stream encoder"
)

// Operations lists every Operation, in a fixed order.
var Operations = []Operation{OpEncodeRequest, OpDecodeRequest, OpEncodeResponse, OpDecodeResponse, OpDecodeStream, OpEncodeStream}

// Implementer is implemented by an Adapter that implements only some of
// its operations (an adapter reached over a subprocess, or a partial one
// completed by a wrapper): Implements reports whether it implements op. An
// Adapter that does not implement Implementer implements all six.
type Implementer interface {
	Implements(op Operation) bool
}

// Implements reports whether a, an Adapter or any value with some of its
// methods, implements op: by Implementer when a has it, else by whether a
// has op's method.
func Implements(a any, op Operation) bool {
	if im, ok := a.(Implementer); ok {
		return im.Implements(op)
	}
	switch op {
	case OpEncodeRequest:
		_, ok := a.(RequestEncoder)
		return ok
	case OpDecodeRequest:
		_, ok := a.(RequestDecoder)
		return ok
	case OpEncodeResponse:
		_, ok := a.(ResponseEncoder)
		return ok
	case OpDecodeResponse:
		_, ok := a.(ResponseDecoder)
		return ok
	case OpDecodeStream:
		_, ok := a.(StreamDecoder)
		return ok
	case OpEncodeStream:
		_, ok := a.(StreamEncoder)
		return ok
	}
	return false
}

// ErrNotImplemented is wrapped by NotImplementedError.
var ErrNotImplemented = errors.New("operation not implemented")

// NotImplementedError is returned for an operation an adapter does not
// implement at all, as opposed to a feature it refuses
// (errors.ErrUnsupported): a case that needs the operation is not graded.
type NotImplementedError struct {
	Op Operation
}

func (e *NotImplementedError) Error() string {
	return fmt.Sprintf("the adapter implements no %s", e.Op)
}

func (e *NotImplementedError) Unwrap() error { return ErrNotImplemented }
