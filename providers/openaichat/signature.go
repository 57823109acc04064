package openaichat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/sse"
)

// MaxSignatures bounds the thought signatures one stream may carry: past it
// the stream ends with an error wrapping ErrTooManySignatures.
const MaxSignatures = 4096

// ErrTooManySignatures is wrapped by the error that ends a stream carrying
// more than MaxSignatures thought signatures.
var ErrTooManySignatures = errors.New("too many thought signatures")

// sigMarker is the field name whose presence makes a body or stream line
// worth reading for a thought signature; without it nothing is parsed twice.
var sigMarker = []byte(`"extra_content"`)

// extraContent is Gemini's extension of a tool call on its OpenAI-compatible
// endpoint: {"google": {"thought_signature": "..."}} (generativelanguage) or
// {"vertex": {...}} (Vertex AI).
type extraContent struct {
	Google *struct {
		ThoughtSignature *string `json:"thought_signature"`
	} `json:"google"`
	Vertex *struct {
		ThoughtSignature *string `json:"thought_signature"`
	} `json:"vertex"`
}

// signature returns the thought signature, the google one first.
func (e *extraContent) signature() string {
	switch {
	case e == nil:
		return ""
	case e.Google != nil && e.Google.ThoughtSignature != nil:
		return *e.Google.ThoughtSignature
	case e.Vertex != nil && e.Vertex.ThoughtSignature != nil:
		return *e.Vertex.ThoughtSignature
	}
	return ""
}

// sigCall is the part of a wire tool call that carries a signature.
type sigCall struct {
	ID    *string       `json:"id"`
	Index *int          `json:"index"`
	Extra *extraContent `json:"extra_content"`
}

func (a *Adapter) fromWire(id string) string {
	if a.IDMap == nil {
		return id
	}
	return a.IDMap.FromWire(id)
}

func (a *Adapter) toWire(id string) (string, error) {
	if a.IDMap == nil {
		return id, nil
	}
	return a.IDMap.ToWire(id)
}

// sigError names the JSON path of an extra_content the decoder cannot read.
func sigError(op, path string, err error) error {
	return fmt.Errorf("openai-chat: %s: %s.extra_content: %w: %v", op, path, ErrBadField, err)
}

// attachSignatures sets, on the calls of calls whose id is in sigs, the
// signature given there. wire lists the wire calls in order; a wire call
// without an id is matched by position when both lists have the same length.
func attachSignatures(calls []*core.Call, wire []sigCall, sigs map[string]string) {
	for k, c := range calls {
		if s, ok := sigs[c.ID]; ok && c.ID != "" {
			c.Signature = s
			continue
		}
		if len(wire) == len(calls) && (wire[k].ID == nil || *wire[k].ID == "") {
			if s := wire[k].Extra.signature(); s != "" {
				c.Signature = s
			}
		}
	}
}

// responseCalls returns pointers to the calls of resp's message.
func responseCalls(resp *core.Response) []*core.Call {
	var calls []*core.Call
	for i := range resp.Message.Parts {
		if p := &resp.Message.Parts[i]; p.Kind == core.PartToolCall && p.Call != nil {
			calls = append(calls, p.Call)
		}
	}
	return calls
}

// decodeResponseSignatures reads the thought signatures of body's first
// choice into resp's calls (G13).
func (a *Adapter) decodeResponseSignatures(body []byte, resp *core.Response) error {
	if !bytes.Contains(body, sigMarker) {
		return nil
	}
	var w struct {
		Choices []struct {
			Message struct {
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &w); err != nil || len(w.Choices) == 0 {
		return nil // the codec has judged the body; only signatures are read here
	}
	wire, sigs, err := a.readSigCalls(w.Choices[0].Message.ToolCalls, "choices[0].message.tool_calls", "decode response")
	if err != nil {
		return err
	}
	attachSignatures(responseCalls(resp), wire, sigs)
	return nil
}

// readSigCalls reads the signature fields of raw tool calls, returning them
// in order and the signatures by canonical call id.
func (a *Adapter) readSigCalls(raw []json.RawMessage, path, op string) ([]sigCall, map[string]string, error) {
	wire := make([]sigCall, len(raw))
	sigs := map[string]string{}
	for k, r := range raw {
		p := path + "[" + strconv.Itoa(k) + "]"
		if err := json.Unmarshal(r, &wire[k]); err != nil {
			// id and index were read by the codec; a type fault here is
			// in extra_content.
			return nil, nil, sigError(op, p, err)
		}
		if s := wire[k].Extra.signature(); s != "" && wire[k].ID != nil && *wire[k].ID != "" {
			sigs[a.fromWire(*wire[k].ID)] = s
		}
	}
	return wire, sigs, nil
}

// decodeRequestSignatures reads the thought signatures written on the
// assistant tool calls of a request body into req's calls, by call id.
func (a *Adapter) decodeRequestSignatures(body []byte, req *core.Request) error {
	if !bytes.Contains(body, sigMarker) {
		return nil
	}
	var w struct {
		Messages []struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil
	}
	sigs := map[string]string{}
	for i, m := range w.Messages {
		_, s, err := a.readSigCalls(m.ToolCalls, "messages["+strconv.Itoa(i)+"].tool_calls", "decode request")
		if err != nil {
			return err
		}
		for id, sig := range s {
			sigs[id] = sig
		}
	}
	for i := range req.Messages {
		for j := range req.Messages[i].Parts {
			if p := &req.Messages[i].Parts[j]; p.Kind == core.PartToolCall && p.Call != nil {
				if s, ok := sigs[p.Call.ID]; ok && p.Call.ID != "" {
					p.Call.Signature = s
				}
			}
		}
	}
	return nil
}

// encodeRequestSignatures writes the Signature of every call of req that
// has one into body as the call's extra_content.google.thought_signature,
// the place Gemini's OpenAI-compatible endpoint requires it to be echoed
// (G13). A body without such calls is returned as it is.
func (a *Adapter) encodeRequestSignatures(req *core.Request, body []byte) ([]byte, error) {
	sigs := map[string]string{}
	for _, m := range req.Messages {
		for _, c := range m.Calls() {
			if c.Signature == "" || c.ID == "" {
				continue
			}
			id, err := a.toWire(c.ID)
			if err != nil {
				return nil, fmt.Errorf("openai-chat: encode request: %w", err)
			}
			sigs[id] = c.Signature
		}
	}
	if len(sigs) == 0 {
		return body, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("openai-chat: encode request: add thought signatures: %w", err)
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		return nil, fmt.Errorf("openai-chat: encode request: add thought signatures: %w", err)
	}
	for _, m := range msgs {
		raw, ok := m["tool_calls"]
		if !ok {
			continue
		}
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &calls); err != nil {
			return nil, fmt.Errorf("openai-chat: encode request: add thought signatures: %w", err)
		}
		changed := false
		for _, c := range calls {
			var id string
			if json.Unmarshal(c["id"], &id) != nil {
				continue
			}
			if s, ok := sigs[id]; ok {
				extra, err := json.Marshal(map[string]map[string]string{"google": {"thought_signature": s}})
				if err != nil {
					return nil, fmt.Errorf("openai-chat: encode request: add thought signatures: %w", err)
				}
				c["extra_content"] = extra
				changed = true
			}
		}
		if changed {
			enc, err := marshalRaw(calls)
			if err != nil {
				return nil, err
			}
			m["tool_calls"] = enc
		}
	}
	var err error
	if top["messages"], err = marshalRaw(msgs); err != nil {
		return nil, err
	}
	return marshalRaw(top)
}

// marshalRaw writes v as compact JSON without HTML escaping, so that raw
// values already written by the codec stay as they were.
func marshalRaw(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("openai-chat: encode request: add thought signatures: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// sigScanner passes a stream through unchanged and reads, from every SSE
// data line that has an extra_content, the thought signatures of the first
// choice's tool calls, keyed by call id ("id:" + canonical id) or, for an
// entry without an id, by index ("#" + index). A line longer than max is
// not read (the SSE decoder reports it).
type sigScanner struct {
	r    io.Reader
	a    *Adapter
	max  int
	line []byte
	skip bool // the current line is over max
	sigs map[string]string
	n    int // signatures recorded, for the stream to notice new ones
	err  error
}

func (s *sigScanner) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !s.skip {
			if len(s.line)+len(part) > s.max {
				s.skip, s.line = true, s.line[:0]
			} else {
				s.line = append(s.line, part...)
			}
		}
		if i >= 0 {
			if !s.skip {
				s.scanLine(bytes.TrimSuffix(s.line, []byte("\r")))
			}
			s.skip, s.line = false, s.line[:0]
		}
	}
	if err == io.EOF && !s.skip && len(s.line) > 0 {
		s.scanLine(s.line)
		s.line = s.line[:0]
	}
	return n, err
}

func (s *sigScanner) scanLine(line []byte) {
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(payload, sigMarker) || s.err != nil {
		return
	}
	var w struct {
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				ToolCalls []sigCall `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(payload, &w) != nil {
		return // the codec reports a malformed chunk; an odd extra_content is ignored
	}
	for _, ch := range w.Choices {
		if ch.Index != 0 {
			continue // only choice 0 is decoded (A13)
		}
		for _, tc := range ch.Delta.ToolCalls {
			sig := tc.Extra.signature()
			if sig == "" {
				continue
			}
			var key string
			switch {
			case tc.ID != nil && *tc.ID != "":
				key = "id:" + s.a.fromWire(*tc.ID)
			case tc.Index != nil:
				key = "#" + strconv.Itoa(*tc.Index)
			default:
				continue // names no call; see doc.go
			}
			if _, seen := s.sigs[key]; !seen && len(s.sigs) >= MaxSignatures {
				s.err = fmt.Errorf("openai-chat: decode stream: %w (limit %d)", ErrTooManySignatures, MaxSignatures)
				return
			}
			s.sigs[key] = sig
			s.n++
		}
	}
}

// sigStream puts the signatures its scanner found on the call chunks of the
// codec's stream: on the first chunk of a call when the signature is known by
// then (the scanner reads at least as far as the codec), else on an extra
// call_delta chunk, carrying only the signature, emitted as soon as the
// scanner has it and before any later event.
type sigStream struct {
	inner   core.EventStream
	sc      *sigScanner
	seenN   int               // sc.n when the calls were last checked
	byIndex map[int]string    // index -> call key, from chunks that carry both
	calls   []sigRef          // calls seen, in order
	seen    map[string]bool   // keys of calls
	placed  map[string]string // call key -> signature placed
	err     error             // sticky scanner error
	queue   []core.Event
	pending *core.Event
	perr    error
}

type sigRef struct {
	key      string
	id       string
	index    int
	hasIndex bool
}

func (s *sigStream) key(c *core.Chunk) string {
	if c.ID != "" {
		k := "id:" + c.ID
		if c.HasIndex {
			s.byIndex[c.Index] = k
		}
		return k
	}
	if c.HasIndex {
		if k, ok := s.byIndex[c.Index]; ok {
			return k
		}
		return "#" + strconv.Itoa(c.Index)
	}
	return ""
}

// lookup returns the signature found for a call, by its key or its index.
func (s *sigStream) lookup(r sigRef) (string, bool) {
	if sig, ok := s.sc.sigs[r.key]; ok {
		return sig, true
	}
	if r.hasIndex {
		sig, ok := s.sc.sigs["#"+strconv.Itoa(r.index)]
		return sig, ok
	}
	return "", false
}

func (s *sigStream) Next() (core.Event, error) {
	if len(s.queue) > 0 {
		ev := s.queue[0]
		s.queue = s.queue[1:]
		return ev, nil
	}
	if s.pending != nil || s.perr != nil {
		ev, err := *s.pending, s.perr
		s.pending, s.perr = nil, nil
		return ev, err
	}
	if s.err != nil {
		return core.Event{}, s.err
	}
	ev, err := s.inner.Next()
	if s.sc.err != nil && err == nil {
		s.err = s.sc.err
		return core.Event{}, s.err
	}
	if err == nil && ev.Chunk != nil {
		c := ev.Chunk
		if k := s.key(c); k != "" {
			if _, known := s.placed[k]; !known {
				r := sigRef{key: k, id: c.ID, index: c.Index, hasIndex: c.HasIndex}
				if !s.seen[k] {
					s.seen[k] = true
					s.calls = append(s.calls, r)
				}
				if sig, ok := s.lookup(r); ok {
					cc := *c
					cc.Signature = sig
					ev.Chunk = &cc
					s.placed[k] = sig
				}
			}
		}
	}
	// Signatures found since the last check, for calls already seen.
	if s.sc.n != s.seenN {
		s.seenN = s.sc.n
		for _, r := range s.calls {
			if _, done := s.placed[r.key]; done {
				continue
			}
			if sig, ok := s.lookup(r); ok {
				s.placed[r.key] = sig
				s.queue = append(s.queue, core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: r.id, Index: r.index, HasIndex: r.hasIndex, Signature: sig}})
			}
		}
		if len(s.queue) > 0 {
			s.pending, s.perr = &ev, err
			return s.Next()
		}
	}
	return ev, err
}

// decodeStream wraps the codec's stream with the signature scanner.
func (a *Adapter) decodeStream(r io.Reader) core.EventStream {
	max := a.maxEvent
	if max <= 0 {
		max = sse.DefaultMaxEventSize
	}
	sc := &sigScanner{r: r, a: a, max: max, sigs: map[string]string{}}
	return &sigStream{inner: a.c.DecodeStream(sc), sc: sc, byIndex: map[int]string{}, seen: map[string]bool{}, placed: map[string]string{}}
}
