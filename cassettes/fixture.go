package cassettes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/toolconform/conform/providers/protocol"
)

// importFixture reads a response-only fixture (.chunks.txt, .json or .sse)
// and gives it a made-up request: the protocol's usual method, host and
// path, an empty body and the ResponseOnlyHeader.
func importFixture(name string, data []byte, res *Result) error {
	var (
		body        []byte
		first       []byte // the first JSON payload, for guessing
		contentType string
		stream      = true
		jsonArray   bool // a .json fixture holding a JSON array
	)
	switch res.Format {
	case FormatJSON:
		if err := checkJSON(data); err != nil {
			return atOffset(name, jsonErrOffset(err, data), fmt.Errorf("%w: %v", ErrMalformed, err))
		}
		if why, ok := looksLikeRecording(data); ok {
			// Never written out as one response body, whatever the
			// protocol given.
			return inFile(name, fmt.Errorf("%w: a JSON recording (%s) of a format conform does not read, not a response body", ErrUnknownFormat, why))
		}
		body, first, contentType, stream = data, data, "application/json", false
		// A JSON array is a whole stream (Gemini's streamGenerateContent
		// without alt=sse): guess from its first element.
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) == nil {
			jsonArray = true
			first = nil
			if len(elems) > 0 {
				first = elems[0]
			}
		}
	case FormatSSE:
		if !utf8.Valid(data) {
			return atOffset(name, invalidUTF8At(data), fmt.Errorf("%w: SSE body is not UTF-8", ErrMalformed))
		}
		first = firstSSEData(data)
		body, contentType = data, "text/event-stream"
	case FormatChunks:
		lines, err := chunkLines(name, data)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			first = lines[0].payload
		}
		if res.Protocol == "" {
			res.Protocol = guessProtocolFromBody(first)
		}
		if ep, _ := protocol.Lookup(res.Protocol); ep.Framing == protocol.FramingEventStream {
			if body, err = eventStreamBody(name, lines); err != nil {
				return err
			}
			contentType = ep.StreamContentType
		} else {
			var b bytes.Buffer
			for _, l := range lines {
				b.WriteString("data: ")
				b.Write(l.payload)
				b.WriteString("\n\n")
			}
			body, contentType = b.Bytes(), "text/event-stream"
		}
	}
	if res.Protocol == "" {
		res.Protocol = guessProtocolFromBody(first)
	}
	if res.Protocol == "" {
		return inFile(name, fmt.Errorf("response-only fixture: %w: cannot tell it from the payload; give one (known: %s)", ErrUnknownProtocol, strings.Join(Protocols(), ", ")))
	}
	ep, err := protocol.Lookup(res.Protocol)
	if err != nil {
		return inFile(name, fmt.Errorf("response-only fixture: %w", err))
	}
	path := ep.Path
	switch {
	case jsonArray && ep.JSONArrayStream:
		path = ep.StreamPath // a stream asked for without StreamQuery
	case stream:
		if ep.StreamPath != "" {
			path = ep.StreamPath
		}
		if ep.StreamQuery != "" {
			path += "?" + ep.StreamQuery
		}
	}
	model := modelOf(first)
	if model == "" {
		model = "unknown-model"
	}
	path = strings.ReplaceAll(path, "{model}", url.PathEscape(model))
	u := "https://" + ep.Host() + path

	i := &cassette.Interaction{}
	i.Request = cassette.Request{
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Host: ep.Host(),
		Headers: http.Header{
			"Content-Type":     {"application/json"},
			ResponseOnlyHeader: {"true"},
		},
		URL:    u,
		Method: http.MethodPost,
	}
	length := int64(len(body))
	h := http.Header{"Content-Type": {contentType}}
	if stream {
		length = -1
	} else {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	i.Response = cassette.Response{
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		ContentLength: length,
		Body:          string(body),
		Headers:       h,
		Status:        "200 OK",
		Code:          http.StatusOK,
	}
	c := newCassette()
	c.Interactions = append(c.Interactions, i)
	res.Cassette = c
	res.ResponseOnly = true
	return nil
}

// checkJSON reports whether data is one JSON value, with the offset of a
// syntax error.
func checkJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if dec.More() {
		return &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return nil
}

// jsonErrOffset returns the 0-based offset of the byte a JSON error is
// about: the offending byte of a syntax error, the end of data for input
// that ends too soon.
func jsonErrOffset(err error, data []byte) int64 {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && se.Offset > 0:
		return se.Offset - 1
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return int64(len(data))
	}
	return 0
}

// chunkLine is one payload of a .chunks.txt fixture.
type chunkLine struct {
	line    int
	payload []byte
}

// chunkLines splits a .chunks.txt fixture into its JSON payloads, skipping
// blank lines; a line that is not one JSON value is an error naming it.
func chunkLines(name string, data []byte) ([]chunkLine, error) {
	var out []chunkLine
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := checkJSON(line); err != nil {
			return nil, atLine(name, n+1, fmt.Errorf("%w: chunk is not JSON: %v", ErrMalformed, err))
		}
		out = append(out, chunkLine{line: n + 1, payload: line})
	}
	return out, nil
}

// firstSSEData returns the payload of the first data line of an SSE body.
func firstSSEData(data []byte) []byte {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if p, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimPrefix(p, []byte(" "))
		}
	}
	return nil
}

// eventStreamBody encodes Bedrock chunk lines, each {"<eventType>": {...}},
// as AWS event-stream frames with the headers Bedrock sends: :event-type,
// :content-type application/json and :message-type event; the payload is
// the inner object, byte for byte.
func eventStreamBody(name string, lines []chunkLine) ([]byte, error) {
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, l := range lines {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(l.payload, &obj); err != nil || len(obj) != 1 {
			return nil, atLine(name, l.line, fmt.Errorf("%w: bedrock chunk is not {\"<eventType>\": {...}}", ErrMalformed))
		}
		for typ, payload := range obj {
			msg := eventstream.Message{
				Headers: eventstream.Headers{
					{Name: ":event-type", Value: eventstream.StringValue(typ)},
					{Name: ":content-type", Value: eventstream.StringValue("application/json")},
					{Name: ":message-type", Value: eventstream.StringValue("event")},
				},
				Payload: payload,
			}
			if err := enc.Encode(&b, msg); err != nil {
				return nil, atLine(name, l.line, fmt.Errorf("encode event-stream frame: %w", err))
			}
		}
	}
	return b.Bytes(), nil
}

// invalidUTF8At returns the offset of the first byte of data that is not
// part of valid UTF-8.
func invalidUTF8At(data []byte) int64 {
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			return int64(off)
		}
		off += size
	}
	return int64(len(data))
}
