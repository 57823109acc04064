package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/streamenc"
)

// streamWriter turns canonical events into event-stream frames.
type streamWriter struct {
	w   io.Writer
	enc *eventstream.Encoder
	api API
	// open tool blocks, by index, with whether any input was written.
	tools map[int]bool
	// the open text or thinking block, if any.
	textOpen bool
	textIdx  int
	textKind core.EventKind
	started  bool
	buf      bytes.Buffer
}

// EncodeStream writes events as ConverseStream frames (or, with
// WithAPI(InvokeAnthropic), as InvokeModelWithResponseStream "chunk" frames
// carrying Anthropic events), with real prelude and message CRCs.
//
// The wire cannot express everything an Event can; EncodeStream normalises:
// text and thinking deltas go in a block whose index is chosen to avoid the
// open tool blocks; a call chunk's ID and Name travel only on its start; a
// chunk without an index is written at index 0; Args on a start or end is
// written as an input delta, except Args "{}" on the end of a call with no
// input, which the decoder gives back by itself; a thinking event with Data
// (redacted reasoning) is written as a block of its own and comes back as an
// event with only Data, its text and signature following in a new block;
// Event.ItemID is dropped; Converse frames carry no response ID or model.
// A plan event, which neither API has a place for, is refused with
// core.ErrUnsupported, and an event of no known kind with core.ErrMalformed
// (streamenc.CheckKinds), before anything is written.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	if err := streamenc.CheckKinds("bedrock: encode stream", events, false); err != nil {
		return err
	}
	sw := &streamWriter{w: w, enc: eventstream.NewEncoder(), api: a.api, tools: map[int]bool{}}
	for i, e := range events {
		if err := sw.event(e); err != nil {
			return fmt.Errorf("bedrock: encode stream: events[%d]: %w", i, err)
		}
	}
	return sw.closeText()
}

func (sw *streamWriter) write(eventType string, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if sw.api == InvokeAnthropic {
		payload, err = json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(payload)})
		if err != nil {
			return err
		}
		eventType = "chunk"
	}
	return writeFrame(sw.enc, sw.w, eventHeaders(eventType), payload)
}

type obj = map[string]any

func (sw *streamWriter) start(e core.Event) error {
	if sw.started {
		return nil
	}
	sw.started = true
	if sw.api == InvokeAnthropic {
		msg := obj{"id": e.ID, "type": "message", "role": "assistant", "model": e.Model, "content": []any{}}
		return sw.write("message_start", obj{"type": "message_start", "message": msg})
	}
	return sw.write("messageStart", obj{"role": "assistant"})
}

func (sw *streamWriter) closeText() error {
	if !sw.textOpen {
		return nil
	}
	sw.textOpen = false
	return sw.blockStop(sw.textIdx)
}

func (sw *streamWriter) blockStop(idx int) error {
	if sw.api == InvokeAnthropic {
		return sw.write("content_block_stop", obj{"type": "content_block_stop", "index": idx})
	}
	return sw.write("contentBlockStop", obj{"contentBlockIndex": idx})
}

func (sw *streamWriter) openText(kind core.EventKind) error {
	if sw.textOpen && sw.textKind == kind {
		return nil
	}
	if err := sw.closeText(); err != nil {
		return err
	}
	idx := 0
	for sw.tools[idx] {
		idx++
	}
	sw.textOpen, sw.textIdx, sw.textKind = true, idx, kind
	if sw.api == InvokeAnthropic {
		cb := obj{"type": "text", "text": ""}
		if kind == core.EventThinking {
			cb = obj{"type": "thinking", "thinking": ""}
		}
		return sw.write("content_block_start", obj{"type": "content_block_start", "index": idx, "content_block": cb})
	}
	return nil // Converse opens text blocks implicitly with the first delta
}

// redacted writes redacted reasoning as a block of its own: a
// reasoningContent delta with redactedContent (Converse) or a
// redacted_thinking block (InvokeModel), at an index free of open tool
// blocks.
func (sw *streamWriter) redacted(data string) error {
	if err := sw.closeText(); err != nil {
		return err
	}
	idx := 0
	for sw.tools[idx] {
		idx++
	}
	var err error
	if sw.api == InvokeAnthropic {
		err = sw.write("content_block_start", obj{"type": "content_block_start", "index": idx, "content_block": obj{"type": "redacted_thinking", "data": data}})
	} else {
		err = sw.write("contentBlockDelta", obj{"contentBlockIndex": idx, "delta": obj{"reasoningContent": obj{"redactedContent": data}}})
	}
	if err != nil {
		return err
	}
	return sw.blockStop(idx)
}

func (sw *streamWriter) argDelta(idx int, frag string) error {
	sw.tools[idx] = true
	if sw.api == InvokeAnthropic {
		return sw.write("content_block_delta", obj{"type": "content_block_delta", "index": idx, "delta": obj{"type": "input_json_delta", "partial_json": frag}})
	}
	return sw.write("contentBlockDelta", obj{"contentBlockIndex": idx, "delta": obj{"toolUse": obj{"input": frag}}})
}

func (sw *streamWriter) event(e core.Event) error {
	if err := sw.start(e); err != nil {
		return err
	}
	inv := sw.api == InvokeAnthropic
	switch e.Kind {
	case core.EventText:
		if e.Text == "" {
			return nil
		}
		if err := sw.openText(core.EventText); err != nil {
			return err
		}
		if inv {
			return sw.write("content_block_delta", obj{"type": "content_block_delta", "index": sw.textIdx, "delta": obj{"type": "text_delta", "text": e.Text}})
		}
		return sw.write("contentBlockDelta", obj{"contentBlockIndex": sw.textIdx, "delta": obj{"text": e.Text}})
	case core.EventThinking:
		if e.Data != "" {
			if err := sw.redacted(e.Data); err != nil {
				return err
			}
			if e.Text == "" && e.Signature == "" {
				return nil
			}
		}
		if err := sw.openText(core.EventThinking); err != nil {
			return err
		}
		for _, d := range []struct{ field, val string }{{"text", e.Text}, {"signature", e.Signature}} {
			if d.val == "" {
				continue
			}
			var err error
			if inv {
				typ, field := "thinking_delta", "thinking"
				if d.field == "signature" {
					typ, field = "signature_delta", "signature"
				}
				err = sw.write("content_block_delta", obj{"type": "content_block_delta", "index": sw.textIdx, "delta": obj{"type": typ, field: d.val}})
			} else {
				err = sw.write("contentBlockDelta", obj{"contentBlockIndex": sw.textIdx, "delta": obj{"reasoningContent": obj{d.field: d.val}}})
			}
			if err != nil {
				return err
			}
		}
		return nil
	case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
		if e.Chunk == nil {
			return fmt.Errorf("%w: %s event without a chunk", core.ErrMalformed, e.Kind)
		}
		return sw.call(e.Kind, *e.Chunk)
	case core.EventUsage:
		if e.Usage == nil {
			return nil
		}
		if inv {
			// Anthropic reports output tokens on message_delta; input
			// tokens travel on message_start, written before this.
			return sw.write("message_delta", obj{"type": "message_delta", "delta": obj{}, "usage": obj{"output_tokens": e.Usage.OutputTokens}})
		}
		return sw.write("metadata", obj{"usage": obj{"inputTokens": e.Usage.InputTokens, "outputTokens": e.Usage.OutputTokens, "totalTokens": e.Usage.InputTokens + e.Usage.OutputTokens}})
	case core.EventFinish:
		if err := sw.closeText(); err != nil {
			return err
		}
		stop := e.ProviderFinish
		if stop == "" {
			stop = stopFromFinish(e.Finish)
		}
		if inv {
			return sw.write("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop}})
		}
		return sw.write("messageStop", obj{"stopReason": stop})
	case core.EventError:
		pe := e.Error
		if pe == nil {
			pe = &core.ProviderError{Message: "unknown error"}
		}
		if inv {
			return sw.write("error", obj{"type": "error", "error": obj{"type": pe.Type, "message": pe.Message}})
		}
		typ := pe.Type
		if typ == "" {
			typ = "internalServerException"
		}
		payload, err := json.Marshal(obj{"message": pe.Message})
		if err != nil {
			return err
		}
		return writeFrame(sw.enc, sw.w, exceptionHeaders(typ), payload)
	}
	return nil // unknown kinds have no wire form
}

func (sw *streamWriter) call(kind core.EventKind, c core.Chunk) error {
	idx := c.Index
	inv := sw.api == InvokeAnthropic
	switch kind {
	case core.EventCallStart:
		if sw.textOpen && sw.textIdx == idx {
			if err := sw.closeText(); err != nil {
				return err
			}
		}
		sw.tools[idx] = false
		var err error
		if inv {
			err = sw.write("content_block_start", obj{"type": "content_block_start", "index": idx, "content_block": obj{"type": "tool_use", "id": c.ID, "name": c.Name, "input": obj{}}})
		} else {
			err = sw.write("contentBlockStart", obj{"contentBlockIndex": idx, "start": obj{"toolUse": obj{"toolUseId": c.ID, "name": c.Name}}})
		}
		if err != nil {
			return err
		}
		if c.Args != nil && *c.Args != "" {
			if err := sw.argDelta(idx, *c.Args); err != nil {
				return err
			}
		}
		if c.ArgsDelta != "" {
			return sw.argDelta(idx, c.ArgsDelta)
		}
		if c.Done {
			return sw.call(core.EventCallEnd, core.Chunk{Index: idx})
		}
	case core.EventCallDelta, core.EventCallEnd:
		var buf [2]string
		for _, frag := range streamenc.AppendCallArgs(buf[:0], kind, &c, sw.tools[idx]) {
			if err := sw.argDelta(idx, frag); err != nil {
				return err
			}
		}
		if kind == core.EventCallEnd {
			delete(sw.tools, idx)
			return sw.blockStop(idx)
		}
	}
	return nil
}
