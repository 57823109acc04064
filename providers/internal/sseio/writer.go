package sseio

import (
	"encoding/json"
	"io"

	"github.com/toolconform/conform/sse"
)

// Writer writes the events of an encoded SSE stream (the Anthropic and
// OpenAI Responses encoders) and keeps the first error: after it every
// write does nothing, and Err reports it once the stream is written.
type Writer struct {
	enc *sse.Encoder
	err error
}

// NewWriter returns an Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{enc: sse.NewEncoder(w)} }

// Write writes one event of type typ with data as its data.
func (sw *Writer) Write(typ string, data []byte) {
	if sw.err != nil {
		return
	}
	sw.err = sw.enc.Encode(sse.Event{Type: typ, Data: string(data)})
}

// WriteJSON writes one event of type typ whose data is the JSON encoding of
// v.
func (sw *Writer) WriteJSON(typ string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		sw.Fail(err)
		return
	}
	sw.Write(typ, data)
}

// Fail records err as the stream's error unless one is already recorded.
func (sw *Writer) Fail(err error) {
	if sw.err == nil {
		sw.err = err
	}
}

// Err returns the first error a write met, or nil.
func (sw *Writer) Err() error { return sw.err }
