package core

import "io"

// Adapter is one provider wire protocol, in both directions: it encodes and
// decodes requests, responses and streams between the canonical model and
// the provider's bytes. Decoding what an adapter encoded gives back the
// canonical value, for the fields the canonical model keeps.
//
// Decoders never panic on bad input: they return an error that names the
// byte offset or the JSON path of the fault.
type Adapter interface {
	// Name is the protocol's name, such as "openai-chat".
	Name() string

	EncodeRequest(req *Request) ([]byte, error)
	DecodeRequest(body []byte) (*Request, error)

	EncodeResponse(resp *Response) ([]byte, error)
	DecodeResponse(body []byte) (*Response, error)

	// DecodeStream reads a streamed response body and yields its events.
	DecodeStream(r io.Reader) EventStream
	// EncodeStream writes events as the protocol's stream bytes.
	EncodeStream(w io.Writer, events []Event) error
}
