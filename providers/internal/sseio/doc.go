// Package sseio is the SSE side of the adapters, in and out.
//
// Reader reads events over the sse package's decoder and reports its
// faults as a *wire.DecodeError of the adapter's protocol. Stream is the
// skeleton of an SSE stream decoder, kept inside the decoder so that it
// costs no allocation of its own: the Reader, the vendor-error guard before
// the first event, the text rule, the event queue and its pull loop, and
// the bookkeeping that tells input of no event of the protocol from blank
// input; the decoder adds Handle (one SSE event into the queue) and AtEOF
// (how a stream of the protocol may end). Anthropic and OpenAI Responses
// decode on it. Writer writes events for the stream encoders, keeping the
// first write error.
package sseio
