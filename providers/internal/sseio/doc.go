// Package sseio is the SSE framing of the adapters, in and out: Reader
// reads events over the sse package's decoder and reports its faults as a
// *wire.DecodeError of the adapter's protocol, and Writer writes events for
// the stream encoders, keeping the first write error.
package sseio
