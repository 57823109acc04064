// Package sse is a decoder and encoder for the WHATWG "text/event-stream"
// format (Server-Sent Events), exact to the interpretation rules of the HTML
// standard. conform's adapters use it for every provider that streams over
// SSE; an adapter written elsewhere can import it for the same exactness.
//
//	dec := sse.NewDecoder(resp.Body, sse.FlushAtEOF())
//	for {
//		ev, err := dec.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err // an *sse.Error with the byte offset
//		}
//		if ev.Data == "[DONE]" {
//			break
//		}
//		handle(ev.Type, ev.Data)
//	}
//
// # Decoding
//
// NewDecoder pulls bytes from an io.Reader one buffer at a time and Next
// returns one dispatched Event at a time, to io.EOF. The rules followed:
//
//   - Lines end with LF, CR or CRLF; a CR that ends one read and an LF that
//     starts the next form one line end.
//   - A UTF-8 byte order mark at the very start of the stream is dropped.
//   - A line starting with a colon is a comment and is ignored.
//   - "field: value" splits at the first colon and drops one optional space
//     after it; a line without a colon is a field with an empty value.
//   - data lines are joined with "\n"; event sets the type; id sets the last
//     event id unless its value holds a NUL; retry sets the reconnection time
//     when its value is ASCII digits only; other fields are ignored.
//   - A blank line dispatches the event. An empty "data:" line gives an event
//     with empty data; a block with no data field dispatches nothing (its
//     event type is dropped, but an id in it still sets the last event id).
//   - At the end of input an unterminated event is discarded, as the
//     standard says. Many LLM providers omit the final blank line, so the
//     FlushAtEOF option instead treats the end of input as a line end followed
//     by a blank line. Every SSE adapter uses FlushAtEOF: openai-chat and
//     mistral (through oaichat), openai-responses and anthropic (through
//     sseio.NewReader), cohere, and gemini for both its alt=sse streams
//     and its Interactions streams. Only the test helper adaptertest.Shapes,
//     which reads the keys of recorded and encoded streams, leaves it off.
//
// NextRaw returns the same events with their data as a view of the
// decoder's buffer, valid until the next call, so that a caller that
// decodes each event before asking for the next pays no allocation per
// event; event types are reused while they repeat. Lines are found with
// bytes.IndexByte, each byte of the read buffer searched once for LF and
// once for CR. A decoder that has ended (io.EOF, an error, or Release, for
// a caller that stops at its protocol's own end marker) hands its buffers
// to the next decoder, so that a short stream costs no buffer allocation.
//
// Event.ID and Event.Retry are the stream's state when the event was
// dispatched (the standard's "last event ID" and reconnection time), not
// only what the event's own block said. Event.Type is empty for an unnamed
// event; the standard's default "message" is left to the caller.
//
// Limits: each block of lines (from the first line after a blank line to the
// next blank line, comments included, line ends excluded) may hold at most
// MaxEventSize bytes; past that Next returns an *Error wrapping
// ErrEventTooLarge. Memory is bounded by that size whatever the number of
// events.
//
// Bytes are not re-encoded: the standard decodes the stream as UTF-8 with
// replacement characters, this package keeps invalid UTF-8 as received, so
// that a JSON decoder downstream sees (and can report) the bytes the
// provider sent. This is the one deliberate divergence from the standard.
//
// Errors carry the byte offset where they happened (*Error). Decoder.Offset
// gives the offset of the first line of the block that dispatched the last
// event, and Decoder.DataOffset maps a byte of that event's data back to
// its offset in the stream, so that an adapter can name the exact place of
// a malformed payload.
//
// # Encoding
//
// Encoder writes events in the same format: an id line when the id differs
// from the last one written, a retry line when the reconnection time changes,
// an event line for a named event, one data line per line of the data (CR,
// LF and CRLF inside data all become separate data lines, so they decode as
// LF), then a blank line. A Retry of 0 means "not set" and is never written.
//
// # Tests
//
// The decoder is checked against a reference model of the standard's rules
// and against github.com/tmaxmax/go-sse on generated streams cut at random
// read boundaries (prop_test.go), and fuzzed by FuzzDecoder.
package sse
