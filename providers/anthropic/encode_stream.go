package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/sseio"
	"github.com/toolconform/conform/providers/internal/streamenc"
)

// writeDelta writes a content_block_delta event whose delta of type typ holds
// value in field, its bytes kept as they are (jsonstr.QuoteRaw).
func writeDelta(sw *sseio.Writer, index int, typ, field, value string) {
	var b bytes.Buffer
	b.WriteString(`{"type":"content_block_delta","index":`)
	b.WriteString(strconv.Itoa(index))
	b.WriteString(`,"delta":{"type":"`)
	b.WriteString(typ)
	b.WriteString(`","`)
	b.WriteString(field)
	b.WriteString(`":`)
	b.Write(jsonstr.QuoteRaw(value))
	b.WriteString(`}}`)
	sw.Write("content_block_delta", b.Bytes())
}

type encCall struct {
	index    int
	id       string
	deltas   bool
	inStart  bool
	finished bool
}

// EncodeStream writes events as an Anthropic SSE stream: message_start
// (with the first ID and Model found), one content block per run of text or
// thinking events, one tool_use block per call, message_delta for usage and
// finish, error events, and message_stop unless an error was written.
//
// A plan event, which Anthropic has no place for, is refused with
// core.ErrUnsupported, and an event of no known kind with core.ErrMalformed
// (streamenc.CheckKinds), before anything is written.
//
// What the wire cannot express is normalised, and DecodeStream gives back
// the normalised events: Event.ItemID and chunk fields other than Index,
// ID, Name, ArgsDelta and Args are dropped; a thinking event
// with both text and signature comes back as two events; a thinking event
// with Data (redacted thinking) is written as a redacted_thinking block of
// its own and comes back as an event with only Data, followed by its text
// and signature in a new thinking block; a call without deltas carries its
// final Args in the start's input; Args on a call that had deltas is dropped;
// a call takes its Index as block index when that is free, else (as a call
// without HasIndex) the next free one, and its chunks are routed by Index
// (see core.Chunk); ProviderError.Code
// is dropped.
//
// As in every recorded Anthropic stream, message_start carries usage (the
// input tokens of the first usage event, zero output tokens) and every
// message_delta carries usage: the usage event before it, or zero output
// tokens when the events have none, so a finish without a usage event
// comes back preceded by a usage event with the first usage event's input
// tokens (zero when there is none) and zero output tokens.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	if err := streamenc.CheckKinds("anthropic: encode stream", events, false); err != nil {
		return err
	}
	return encodeStream(w, streamenc.Events(events))
}

// EncodeLiveStream writes the events of s as EncodeStream writes a list,
// each as it arrives, except what an Anthropic stream must say before
// it can be known: message_start, written before the first block, takes
// the id, model and input tokens of the events before that block (a
// usage event that comes later reaches the client in message_delta), and
// a tool_use block's start waits for its call's first argument text or
// its end (a call sent whole starts with its input, as EncodeStream
// writes it). An event EncodeStream would refuse before writing is
// refused when it comes.
func (a *Adapter) EncodeLiveStream(w io.Writer, s core.EventStream) error {
	return encodeStream(w, streamenc.Live(s))
}

// content reports whether e writes a content block.
func content(e core.Event) bool {
	switch e.Kind {
	case core.EventText, core.EventThinking, core.EventPlan, core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
		return true
	}
	return false
}

func encodeStream(w io.Writer, src *streamenc.Source) error {
	sw := sseio.NewWriter(w)
	// Real streams always carry usage in message_start (the input tokens
	// are known before the first block) and in message_delta, and SDKs
	// read it without checking (@anthropic-ai/sdk sets
	// message.usage.output_tokens on every message_delta). A live source
	// is looked at only up to its first block.
	var id, model string
	input, sawUsage := 0, false
	src.Ahead(func(e core.Event) bool {
		if id == "" && model == "" && (e.ID != "" || e.Model != "") {
			id, model = e.ID, e.Model
		}
		if src.IsLive() && content(e) {
			return false
		}
		if !sawUsage && e.Kind == core.EventUsage && e.Usage != nil {
			input, sawUsage = e.Usage.InputTokens, true
		}
		return true
	})
	sw.WriteJSON("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		// The cache counts are in every recorded message_start and body;
		// the canonical usage has none to give, so they are 0.
		"usage": map[string]int{"input_tokens": input, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	var indexes streamenc.Indexes
	cur, curKind := -1, ""
	calls := map[int]*encCall{}
	byID := map[string]*encCall{}
	var last *encCall
	var usage *core.Usage
	errored := false
	closeCur := func() {
		if cur >= 0 {
			sw.WriteJSON("content_block_stop", map[string]any{"type": "content_block_stop", "index": cur})
			cur, curKind = -1, ""
		}
	}
	resolve := func(i int, c *core.Chunk) (*encCall, error) {
		var ec *encCall
		switch {
		case c.HasIndex:
			ec = calls[c.Index]
		case c.ID != "":
			ec = byID[c.ID]
		default:
			ec = last
		}
		if ec == nil || ec.finished {
			return nil, fmt.Errorf("anthropic: encode stream: event %d: %w: no open call for index %d id %q", i, core.ErrMalformed, c.Index, c.ID)
		}
		return ec, nil
	}
	writeUsage := func(stop string) {
		m := map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": nil, "stop_sequence": nil}}
		if stop != "" {
			m["delta"] = map[string]any{"stop_reason": stop, "stop_sequence": nil}
		}
		u := core.Usage{InputTokens: input}
		if usage != nil {
			u = *usage
			usage = nil
		}
		m["usage"] = map[string]int{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
		sw.WriteJSON("message_delta", m)
	}
	for {
		e, i, ok := src.Next()
		if !ok {
			break
		}
		if src.IsLive() {
			if err := streamenc.CheckKind("anthropic: encode stream", i, e, false); err != nil {
				return err
			}
		}
		if e.Chunk == nil && (e.Kind == core.EventCallStart || e.Kind == core.EventCallDelta || e.Kind == core.EventCallEnd) {
			return fmt.Errorf("anthropic: encode stream: event %d: %w: %s event without a chunk", i, core.ErrMalformed, e.Kind)
		}
		switch e.Kind {
		case core.EventText, core.EventThinking:
			if e.Kind == core.EventThinking && e.Data != "" {
				// Redacted thinking is a block of its own.
				closeCur()
				idx := indexes.Alloc()
				sw.WriteJSON("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
					"content_block": map[string]any{"type": "redacted_thinking", "data": e.Data}})
				sw.WriteJSON("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
				if e.Text == "" && e.Signature == "" {
					continue
				}
			}
			kind := "text"
			if e.Kind == core.EventThinking {
				kind = "thinking"
			}
			if cur < 0 || curKind != kind {
				closeCur()
				cur, curKind = indexes.Alloc(), kind
				block := map[string]any{"type": "text", "text": ""}
				if kind == "thinking" {
					block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
				}
				sw.WriteJSON("content_block_start", map[string]any{"type": "content_block_start", "index": cur, "content_block": block})
			}
			if e.Text != "" {
				writeDelta(sw, cur, kind+"_delta", kind, e.Text)
			}
			if e.Signature != "" && kind == "thinking" {
				sw.WriteJSON("content_block_delta", map[string]any{"type": "content_block_delta", "index": cur, "delta": map[string]any{"type": "signature_delta", "signature": e.Signature}})
			}
		case core.EventCallStart:
			closeCur()
			var idx int
			if e.Chunk.HasIndex {
				idx = indexes.Place(e.Chunk.Index)
			} else {
				idx = indexes.Alloc()
			}
			ec := &encCall{index: idx, id: e.Chunk.ID}
			input := json.RawMessage("{}")
			// Look ahead: a call whose arguments come only with its end
			// carries them in the start's input.
			src.Ahead(func(f core.Event) bool {
				if f.Chunk == nil || (f.Kind != core.EventCallDelta && f.Kind != core.EventCallEnd) {
					return true
				}
				if !sameCall(f.Chunk, e.Chunk) {
					return true
				}
				switch f.Kind {
				case core.EventCallDelta:
					return f.Chunk.ArgsDelta == ""
				case core.EventCallEnd:
					if f.Chunk.Args != nil {
						if v := bytes.TrimSpace([]byte(*f.Chunk.Args)); json.Valid(v) && len(v) > 0 && v[0] == '{' {
							input = json.RawMessage(v)
							ec.inStart = true
						}
					}
				}
				return false
			})
			key := idx
			if e.Chunk.HasIndex {
				key = e.Chunk.Index
			}
			calls[key], last = ec, ec
			if ec.id != "" {
				byID[ec.id] = ec
			}
			sw.WriteJSON("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
				"content_block": map[string]any{"type": "tool_use", "id": e.Chunk.ID, "name": e.Chunk.Name, "input": input}})
		case core.EventCallDelta:
			ec, err := resolve(i, e.Chunk)
			if err != nil {
				return err
			}
			if e.Chunk.ArgsDelta != "" {
				ec.deltas = true
				writeDelta(sw, ec.index, "input_json_delta", "partial_json", e.Chunk.ArgsDelta)
			}
		case core.EventCallEnd:
			ec, err := resolve(i, e.Chunk)
			if err != nil {
				return err
			}
			if e.Chunk.Args != nil && !ec.deltas && !ec.inStart && *e.Chunk.Args != "" {
				writeDelta(sw, ec.index, "input_json_delta", "partial_json", *e.Chunk.Args)
			}
			ec.finished = true
			sw.WriteJSON("content_block_stop", map[string]any{"type": "content_block_stop", "index": ec.index})
		case core.EventUsage:
			if e.Usage != nil {
				u := *e.Usage
				usage = &u
			}
		case core.EventFinish:
			closeCur()
			writeUsage(stopOf(e.Finish, e.ProviderFinish))
		case core.EventError:
			closeCur()
			errored = true
			pe := core.ProviderError{}
			if e.Error != nil {
				pe = *e.Error
			}
			sw.WriteJSON("error", map[string]any{"type": "error", "error": wireError{Type: pe.Type, Message: pe.Message}})
		}
	}
	closeCur()
	if usage != nil {
		writeUsage("")
	}
	if err := src.Err(); err != nil {
		return fmt.Errorf("anthropic: encode stream: %w", err)
	}
	if !errored {
		sw.WriteJSON("message_stop", map[string]any{"type": "message_stop"})
	}
	if err := sw.Err(); err != nil {
		return fmt.Errorf("anthropic: encode stream: %w", err)
	}
	return nil
}

// sameCall reports whether chunk c routes to the call opened by start.
func sameCall(c, start *core.Chunk) bool {
	switch {
	case c.HasIndex:
		return start.HasIndex && c.Index == start.Index
	case c.ID != "":
		return c.ID == start.ID
	}
	return true
}
