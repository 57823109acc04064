package cohere

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/ndjson"
	"github.com/toolconform/conform/providers/internal/streamdec"
)

// Cohere Chat v1 (/v1/chat, deprecated by v2 but in many recordings) is
// read as a dialect of the protocol, told apart by the body: a response
// has text and tool_calls (each {name, parameters}, no id) instead of a
// message; a stream is NDJSON, one {"event_type": ...} object a line
// (stream-start, text-generation, tool-calls-generation, stream-end and
// others), instead of SSE. Shapes from Cohere's v1 Chat API reference and
// its "Tool use" and "Streaming" guides for the v1 API.
//
// Calls get the id "cohere_v1_call_<k>", k counting the calls of the
// response or stream, so a streamed response and the same response whole
// agree. v1 has no finish reason for a tool turn (COMPLETE ends it), so
// COMPLETE with calls is tool_calls, the raw COMPLETE kept. A stream's
// calls are read from tool-calls-generation, which carries them whole; the
// tool-calls-chunk events that precede it in newer streams repeat them in
// pieces and are not read. Only reading is supported: the encoders write
// v2.

// V1IDPrefix starts the id given to a Cohere v1 call, which has none.
const V1IDPrefix = "cohere_v1_call_"

type v1Response struct {
	ResponseID   string       `json:"response_id"`
	GenerationID string       `json:"generation_id"`
	Text         string       `json:"text"`
	ToolCalls    []v1ToolCall `json:"tool_calls"`
	FinishReason string       `json:"finish_reason"`
	Meta         *usage       `json:"meta"`
}

type v1ToolCall struct {
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters"`
}

// isV1Response reports whether a body whose v2 message is missing is a v1
// response: it has text or tool_calls, or the ids v1 responses carry.
func isV1Response(probe map[string]json.RawMessage) bool {
	if _, ok := probe["message"]; ok {
		return false
	}
	for _, k := range []string{"text", "tool_calls", "generation_id", "response_id"} {
		if _, ok := probe[k]; ok {
			return true
		}
	}
	return false
}

// v1Call turns the k-th v1 tool call into a call; its parameters must be
// an object (absent or null is {}).
func v1Call(k int, tc v1ToolCall) (core.Call, error) {
	if tc.Name == "" {
		return core.Call{}, fmt.Errorf("tool_calls[%d].name: %w: missing", k, core.ErrMalformed)
	}
	args := bytes.TrimSpace(tc.Parameters)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return core.Call{}, fmt.Errorf("tool_calls[%d].parameters: %w", k, core.ErrInvalidArguments)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		return core.Call{}, fmt.Errorf("tool_calls[%d].parameters: %w", k, err)
	}
	return core.Call{ID: V1IDPrefix + strconv.Itoa(k), Name: tc.Name, Arguments: buf.Bytes()}, nil
}

// v1Finish normalises a v1 finish reason.
func v1Finish(raw string, hasCalls bool) core.FinishReason {
	f := finishFromWire(raw)
	if f == core.FinishStop && raw == "COMPLETE" && hasCalls {
		return core.FinishToolCalls
	}
	return f
}

// decodeV1Response reads a Cohere Chat v1 response body.
func decodeV1Response(body []byte) (*core.Response, error) {
	var in v1Response
	if err := unmarshal("decode response", body, &in); err != nil {
		return nil, err
	}
	id := in.ResponseID
	if id == "" {
		id = in.GenerationID
	}
	resp := &core.Response{ID: id, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if in.Text != "" {
		resp.Message.Parts = append(resp.Message.Parts, core.TextPart(in.Text))
	}
	for k, tc := range in.ToolCalls {
		c, err := v1Call(k, tc)
		if err != nil {
			return nil, &DecodeError{Protocol: "cohere", Op: "decode response", Offset: -1, Path: pathOf(err), Err: err}
		}
		resp.Message.Parts = append(resp.Message.Parts, core.CallPart(c))
	}
	resp.ProviderFinish = in.FinishReason
	resp.Finish = v1Finish(in.FinishReason, len(in.ToolCalls) > 0)
	resp.Usage = canonicalUsage(in.Meta)
	return resp, nil
}

// pathOf returns the JSON path an error of v1Call starts with.
func pathOf(err error) string {
	s := err.Error()
	if i := bytes.IndexByte([]byte(s), ':'); i > 0 {
		return s[:i]
	}
	return ""
}

// dialectStream reads the first byte of a stream that is not white space
// and hands the stream to the v1 NDJSON decoder when it opens a JSON
// object, else to the v2 SSE decoder, which it holds. It decides on its
// first Next, so that DecodeStream never waits for input; the bytes read
// to decide are read again by the decoder it picks, through its Read. A
// stream that starts with more than maxPeek bytes of white space is v2.
type dialectStream struct {
	a *Adapter
	r io.Reader
	// head holds the bytes read to decide that are not handed on yet,
	// in buf while they fit; rerr is the error that ended those reads.
	// buf is large enough for a first event (message-start), so that the
	// decoder usually returns it before reading the stream again.
	head  []byte
	buf   [512]byte
	rerr  error
	sse   eventStream
	inner core.EventStream
}

// maxPeek bounds the white space read before a stream's first byte.
const maxPeek = 4096

func (d *dialectStream) Next() (core.Event, error) {
	if d.inner == nil {
		d.inner = d.choose()
	}
	return d.inner.Next()
}

// Read hands on the bytes read to decide, then reads the stream.
func (d *dialectStream) Read(p []byte) (int, error) {
	if len(d.head) > 0 {
		n := copy(p, d.head)
		d.head = d.head[n:]
		return n, nil
	}
	if d.rerr != nil {
		return 0, d.rerr
	}
	return d.r.Read(p)
}

func (d *dialectStream) choose() core.EventStream {
	d.head = d.buf[:0]
	for empty := 0; len(d.head) < maxPeek && d.rerr == nil; {
		if len(d.head) == cap(d.head) {
			d.head = append(d.head, make([]byte, len(d.head))...)[:len(d.head)]
		}
		from := len(d.head)
		n, err := d.r.Read(d.head[from:min(cap(d.head), maxPeek)])
		d.head, d.rerr = d.head[:from+n], err
		if n == 0 && err == nil {
			if empty++; empty > 100 {
				d.rerr = io.ErrNoProgress
			}
			continue
		}
		for _, c := range d.head[from:] {
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{':
				return jsonstr.CheckText("cohere", &v1Stream{lines: ndjson.NewReader(d, d.a.maxEvent)})
			}
			return d.sse.start(d.a, d)
		}
	}
	return d.sse.start(d.a, d)
}

// v1Stream decodes a Cohere Chat v1 NDJSON stream.
type v1Stream struct {
	lines    *ndjson.Reader
	q        streamdec.Queue
	calls    int
	id       string
	metaSent bool
	err      error
}

type v1Event struct {
	EventType    string       `json:"event_type"`
	GenerationID string       `json:"generation_id"`
	Text         string       `json:"text"`
	ToolCalls    []v1ToolCall `json:"tool_calls"`
	FinishReason string       `json:"finish_reason"`
	Response     *v1Response  `json:"response"`
}

func (s *v1Stream) emit(e core.Event) {
	if !s.metaSent {
		e.ID, s.metaSent = s.id, true
	}
	s.q.Push(e)
}

func (s *v1Stream) Next() (core.Event, error) {
	return streamdec.Pull(&s.q, &s.err, s.pull)
}

// pull decodes the next line into the queue, or returns the error that
// ends the stream.
func (s *v1Stream) pull() error {
	line, off, err := s.lines.Next()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		var le *ndjson.Error
		if errors.As(err, &le) && errors.Is(le.Err, ndjson.ErrLineTooLong) {
			err = streamError(le.Offset, "", fmt.Errorf("%w: %v", core.ErrTooLarge, le.Err))
		}
		return err
	}
	return s.line(line, off)
}

// line queues the events of one v1 stream line.
func (s *v1Stream) line(line []byte, off int64) error {
	var ev v1Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return streamError(off, "", fmt.Errorf("%w v1 stream line: %w", core.ErrMalformed, err))
	}
	switch ev.EventType {
	case "stream-start":
		s.id = ev.GenerationID
	case "text-generation":
		if ev.Text != "" {
			s.emit(core.Event{Kind: core.EventText, Text: ev.Text})
		}
	case "tool-calls-generation":
		for _, tc := range ev.ToolCalls {
			k := s.calls
			c, err := v1Call(k, tc)
			if err != nil {
				return streamError(off, ev.EventType, err)
			}
			s.calls++
			args := string(c.Arguments)
			s.emit(core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, Index: k, ID: c.ID, Name: c.Name, Start: true}})
			s.emit(core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{HasIndex: true, Index: k, ID: c.ID, Args: &args, Done: true}})
		}
	case "stream-end":
		if ev.Response != nil {
			if u := canonicalUsage(ev.Response.Meta); u != nil {
				s.emit(core.Event{Kind: core.EventUsage, Usage: u})
			}
		}
		s.emit(core.Event{Kind: core.EventFinish, Finish: v1Finish(ev.FinishReason, s.calls > 0), ProviderFinish: ev.FinishReason})
	case "":
		return streamError(off, "", fmt.Errorf("v1 stream line without event_type: %w", core.ErrNotStream))
	}
	// Other events (search-queries-generation, search-results,
	// citation-generation, tool-calls-chunk) carry nothing modelled.
	return nil
}
