package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/sseio"
	"github.com/toolconform/conform/providers/internal/streamenc"
)

// sseWriter numbers the events it writes (sequence_number) on top of the
// shared writer.
type sseWriter struct {
	*sseio.Writer
	seq int
}

// writeRaw writes an event whose JSON object body (without braces) is
// given, adding type and sequence_number.
func (sw *sseWriter) writeRaw(typ string, body string) {
	if sw.Err() != nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"`)
	b.WriteString(typ)
	b.WriteString(`","sequence_number":`)
	b.WriteString(strconv.Itoa(sw.seq))
	if body != "" {
		b.WriteString(",")
		b.WriteString(body)
	}
	b.WriteString("}")
	sw.seq++
	sw.Write(typ, b.Bytes())
}

// write writes an event whose fields are the JSON encoding of v's keys.
func (sw *sseWriter) write(typ string, v map[string]any) {
	data, err := json.Marshal(v)
	if err != nil {
		sw.Fail(err)
		return
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(string(data), "{"), "}")
	sw.writeRaw(typ, inner)
}

type encItem struct {
	index  int
	itemID string
	callID string
	name   string
	args   strings.Builder
	ended  bool
}

// outItem is one output item as response.completed lists it: a message
// (text holds its output_text), a reasoning item (text holds its summary,
// encrypted its encrypted_content) or a function call (call).
type outItem struct {
	index     int
	kind      string
	id        string
	text      strings.Builder
	encrypted string
	call      *encItem
	// summary is set once a reasoning item's summary part was opened.
	summary bool
}

// json writes the item as the Responses API lists it in an output array.
// A call not yet ended is listed as incomplete.
func (o *outItem) json() []byte {
	var b bytes.Buffer
	switch o.kind {
	case "function_call":
		it := o.call
		st := "completed"
		if !it.ended {
			st = "incomplete"
		}
		fmt.Fprintf(&b, `{"id":%s,"type":"function_call","status":%s,"call_id":%s,"name":%s,"arguments":%s}`,
			jsonstr.QuoteRaw(it.itemID), jsonstr.QuoteRaw(st), jsonstr.QuoteRaw(it.callID), jsonstr.QuoteRaw(it.name), jsonstr.QuoteRaw(it.args.String()))
	case "reasoning":
		fmt.Fprintf(&b, `{"id":%s,"type":"reasoning","summary":[`, jsonstr.QuoteRaw(o.id))
		if o.text.Len() > 0 {
			fmt.Fprintf(&b, `{"type":"summary_text","text":%s}`, jsonstr.QuoteRaw(o.text.String()))
		}
		b.WriteString("]")
		if o.encrypted != "" {
			fmt.Fprintf(&b, `,"encrypted_content":%s`, jsonstr.QuoteRaw(o.encrypted))
		}
		b.WriteString(`,"status":"completed"}`)
	default:
		fmt.Fprintf(&b, `{"id":%s,"type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":%s,"annotations":[],"logprobs":[]}]}`,
			jsonstr.QuoteRaw(o.id), jsonstr.QuoteRaw(o.text.String()))
	}
	return b.Bytes()
}

// outputJSON writes items, ordered by output index, as a JSON array.
func outputJSON(items []*outItem) json.RawMessage {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(x, y *outItem) int { return x.index - y.index })
	var b bytes.Buffer
	b.WriteString("[")
	for i, o := range sorted {
		if i > 0 {
			b.WriteString(",")
		}
		b.Write(o.json())
	}
	b.WriteString("]")
	return b.Bytes()
}

// obfuscation is the padding a delta event carries: in every recorded
// stream the delta and its obfuscation together are 16 characters (for
// deltas of up to 13 seen; a longer one gets one letter here). The API
// pads with random letters; the encoder writes fixed ones, keeping its
// output a function of its input.
func obfuscation(delta string) string {
	const pad = "AbCdEfGhIjKlMnOp"
	n := len(pad) - utf8.RuneCountInString(delta)
	if n < 1 {
		n = 1
	}
	return pad[:n]
}

// createdAt is the created_at that EncodeStream and EncodeResponse write. Every recorded
// stream's response objects carry created_at (Unix seconds), and SDKs
// require it (the Vercel AI SDK's schema for response.created rejects the
// event without it); the canonical events hold no time, so the encoder
// writes a fixed one, keeping its output a function of its input.
const createdAt = 0

// withRequestFields adds to a response object the request parameters
// every recorded one echoes (background, instructions, tools, text, ...),
// with the values the API gives a request that set none of them (the
// canonical response keeps no request), and returns it.
func withRequestFields(r map[string]any) map[string]any {
	for k, v := range map[string]any{
		"background":           false,
		"instructions":         nil,
		"max_output_tokens":    nil,
		"max_tool_calls":       nil,
		"metadata":             map[string]any{},
		"parallel_tool_calls":  true,
		"previous_response_id": nil,
		"prompt_cache_key":     nil,
		"reasoning":            map[string]any{"effort": nil, "summary": nil},
		"safety_identifier":    nil,
		"service_tier":         "default",
		"store":                true,
		"temperature":          1.0,
		"text":                 map[string]any{"format": map[string]any{"type": "text"}, "verbosity": "medium"},
		"tool_choice":          "auto",
		"tools":                []any{},
		"top_logprobs":         0,
		"top_p":                1.0,
		"truncation":           "disabled",
	} {
		r[k] = v
	}
	return r
}

// usageObject is a usage as every recorded terminal event and body carries
// it, with the token details (zero: the canonical usage has none).
func usageObject(u core.Usage) map[string]any {
	return map[string]any{"input_tokens": u.InputTokens, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
		"total_tokens": u.InputTokens + u.OutputTokens}
}

// EncodeStream writes events as a Responses SSE stream: response.created
// and response.in_progress (with the first ID and Model found, and
// created_at), a message item for each run of text (its output_text part
// opened before the first delta and closed with output_text.done and
// content_part.done), a reasoning item for each run of thinking (its
// summary part opened at the first summary text and closed with
// reasoning_summary_text.done and reasoning_summary_part.done; a thinking
// signature closes its reasoning item as its encrypted_content), function_call items with
// argument deltas and function_call_arguments.done, a terminal
// response.completed, response.incomplete or response.failed for a finish,
// and error events. As in real streams, the terminal event's response
// carries the usage seen before it (null when there was none) and the full output, in output-index
// order: message items with their output_text, reasoning items with their
// summary text and encrypted_content, and function_call items with id,
// call_id, name, final arguments and status (incomplete for a call not
// ended), so an SDK that reads the answer from it sees what the deltas
// said. output_item.done events carry the same full item.
//
// What the wire cannot express is normalised, and DecodeStream gives back
// the normalised events: thinking events carry the id of their reasoning
// item (ItemID; one made up as rs_<output index> when they had none, and a
// new item starts where the id changes); a call end always carries the complete arguments
// (Args, the deltas joined when it had none); call deltas and ends carry the
// item id and output index, never the call id; a call takes its Index as
// output index when that is free, else (as a call without HasIndex) the
// next free one, and its chunks are routed by Index (see core.Chunk); a usage event is written only with a finish;
// chunk fields other than routing, name and arguments are dropped. A plan
// event, which the Responses API has no place for, is refused with
// core.ErrUnsupported, and an event of no known kind with
// core.ErrMalformed (streamenc.CheckKinds), before anything is written.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	if err := streamenc.CheckKinds("openai-responses: encode stream", events, false); err != nil {
		return err
	}
	sw := &sseWriter{Writer: sseio.NewWriter(w)}
	id, model := streamenc.ResponseMeta(events)
	created := withRequestFields(map[string]any{"id": id, "object": "response", "created_at": createdAt, "model": model, "status": "in_progress",
		"output": []any{}, "error": nil, "incomplete_details": nil, "usage": nil})
	sw.write("response.created", map[string]any{"response": created})
	sw.write("response.in_progress", map[string]any{"response": created})
	var indexes streamenc.Indexes
	curIdx, curKind, curItem, nItems := -1, "", "", 0
	var items []*outItem
	var cur *outItem
	closeCur := func() {
		if curIdx < 0 {
			return
		}
		// As real streams do, the text and its part are closed before
		// the item, with their whole text.
		text := jsonstr.QuoteRaw(cur.text.String())
		switch {
		case cur.kind == "message":
			sw.writeRaw("response.output_text.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"text":%s,"logprobs":[]`, jsonstr.QuoteRaw(curItem), curIdx, text))
			sw.writeRaw("response.content_part.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":%s}`, jsonstr.QuoteRaw(curItem), curIdx, text))
		case cur.kind == "reasoning" && cur.summary:
			sw.writeRaw("response.reasoning_summary_text.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"text":%s`, jsonstr.QuoteRaw(curItem), curIdx, text))
			sw.writeRaw("response.reasoning_summary_part.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":%s}`, jsonstr.QuoteRaw(curItem), curIdx, text))
		}
		sw.writeRaw("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, curIdx, cur.json()))
		curIdx, curKind, curItem, cur = -1, "", "", nil
	}
	// open starts an item of kind unless one of that kind and item id is
	// open; itemID "" continues any open item of the kind, or starts one
	// with an id made from its output index.
	open := func(kind, itemID string) {
		if curIdx >= 0 && curKind == kind && (itemID == "" || itemID == curItem) {
			return
		}
		closeCur()
		curIdx, curKind = indexes.Alloc(), kind
		nItems++
		if itemID == "" {
			itemID = fmt.Sprintf("%s_%d", map[string]string{"message": "msg", "reasoning": "rs"}[kind], curIdx)
		}
		curItem = itemID
		cur = &outItem{index: curIdx, kind: kind, id: itemID}
		items = append(items, cur)
		item := map[string]any{"id": itemID, "type": kind, "status": "in_progress"}
		switch kind {
		case "message":
			// As real streams do: the empty content list, the role, and
			// the output_text part that the deltas then fill. SDKs that
			// rebuild the response from events (openai-node) index into
			// them.
			item["role"], item["content"] = "assistant", []any{}
			sw.write("response.output_item.added", map[string]any{"output_index": curIdx, "item": item})
			sw.write("response.content_part.added", map[string]any{"item_id": itemID, "output_index": curIdx, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}, "logprobs": []any{}}})
			return
		case "reasoning":
			item["summary"] = []any{}
		}
		sw.write("response.output_item.added", map[string]any{"output_index": curIdx, "item": item})
	}
	calls := map[int]*encItem{}
	byID := map[string]*encItem{}
	byItem := map[string]*encItem{}
	var last *encItem
	sawCall := false
	resolve := func(i int, c *core.Chunk) (*encItem, error) {
		var it *encItem
		switch {
		case c.ItemID != "":
			it = byItem[c.ItemID]
		case c.ID != "":
			it = byID[c.ID]
		case c.HasIndex:
			it = calls[c.Index]
		default:
			it = last
		}
		if it == nil || it.ended {
			return nil, fmt.Errorf("openai-responses: encode stream: event %d: %w: no open call for item %q id %q index %d", i, core.ErrMalformed, c.ItemID, c.ID, c.Index)
		}
		return it, nil
	}
	var usage *core.Usage
	for i, e := range events {
		if e.Chunk == nil && (e.Kind == core.EventCallStart || e.Kind == core.EventCallDelta || e.Kind == core.EventCallEnd) {
			return fmt.Errorf("openai-responses: encode stream: event %d: %w: %s event without a chunk", i, core.ErrMalformed, e.Kind)
		}
		switch e.Kind {
		case core.EventText:
			open("message", "")
			cur.text.WriteString(e.Text)
			if e.Text != "" {
				sw.writeRaw("response.output_text.delta", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"delta":%s,"logprobs":[],"obfuscation":%s`, jsonstr.QuoteRaw(curItem), curIdx, jsonstr.QuoteRaw(e.Text), jsonstr.QuoteRaw(obfuscation(e.Text))))
			}
		case core.EventThinking:
			open("reasoning", e.ItemID)
			cur.text.WriteString(e.Text)
			if e.Text != "" && !cur.summary {
				cur.summary = true
				sw.writeRaw("response.reasoning_summary_part.added", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":""}`, jsonstr.QuoteRaw(curItem), curIdx))
			}
			if e.Text != "" {
				sw.writeRaw("response.reasoning_summary_text.delta", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"delta":%s,"obfuscation":%s`, jsonstr.QuoteRaw(curItem), curIdx, jsonstr.QuoteRaw(e.Text), jsonstr.QuoteRaw(obfuscation(e.Text))))
			}
			if e.Signature != "" {
				cur.encrypted = e.Signature
				closeCur()
			}
		case core.EventCallStart:
			c := e.Chunk
			closeCur()
			var idx int
			if c.HasIndex {
				idx = indexes.Place(c.Index)
			} else {
				idx = indexes.Alloc()
			}
			it := &encItem{index: idx, itemID: c.ItemID, callID: c.ID, name: c.Name}
			if it.itemID == "" {
				it.itemID = fmt.Sprintf("fc_%d", idx)
			}
			it.args.WriteString(c.ArgsDelta)
			key := idx
			if c.HasIndex {
				key = c.Index
			}
			calls[key], byItem[it.itemID], last = it, it, it
			if it.callID != "" {
				byID[it.callID] = it
			}
			sawCall = true
			items = append(items, &outItem{index: idx, kind: "function_call", id: it.itemID, call: it})
			sw.writeRaw("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%s,"type":"function_call","status":"in_progress","call_id":%s,"name":%s,"arguments":%s}`,
				idx, jsonstr.QuoteRaw(it.itemID), jsonstr.QuoteRaw(it.callID), jsonstr.QuoteRaw(it.name), jsonstr.QuoteRaw(c.ArgsDelta)))
		case core.EventCallDelta:
			it, err := resolve(i, e.Chunk)
			if err != nil {
				return err
			}
			if e.Chunk.ArgsDelta != "" {
				it.args.WriteString(e.Chunk.ArgsDelta)
				sw.writeRaw("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%s,"output_index":%d,"delta":%s,"obfuscation":%s`, jsonstr.QuoteRaw(it.itemID), it.index, jsonstr.QuoteRaw(e.Chunk.ArgsDelta), jsonstr.QuoteRaw(obfuscation(e.Chunk.ArgsDelta))))
			}
		case core.EventCallEnd:
			it, err := resolve(i, e.Chunk)
			if err != nil {
				return err
			}
			it.ended = true
			args := it.args.String()
			if e.Chunk.Args != nil {
				args = *e.Chunk.Args
				it.args.Reset()
				it.args.WriteString(args)
			}
			sw.writeRaw("response.function_call_arguments.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"arguments":%s`, jsonstr.QuoteRaw(it.itemID), it.index, jsonstr.QuoteRaw(args)))
			sw.writeRaw("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"id":%s,"type":"function_call","status":"completed","call_id":%s,"name":%s,"arguments":%s}`,
				it.index, jsonstr.QuoteRaw(it.itemID), jsonstr.QuoteRaw(it.callID), jsonstr.QuoteRaw(it.name), jsonstr.QuoteRaw(args)))
		case core.EventUsage:
			if e.Usage != nil {
				u := *e.Usage
				usage = &u
			}
		case core.EventFinish:
			closeCur()
			status, reason := statusOf(e.Finish, e.ProviderFinish)
			r := withRequestFields(map[string]any{"id": id, "object": "response", "created_at": createdAt, "model": model, "status": status, "output": outputJSON(items), "error": nil, "incomplete_details": nil})
			if reason != "" {
				r["incomplete_details"] = map[string]string{"reason": reason}
			}
			// Every recorded response.completed carries usage: a stream
			// without counts ends with zero counts.
			r["usage"] = usageObject(core.Usage{})
			if usage != nil {
				r["usage"] = usageObject(*usage)
				usage = nil
			}
			typ := "response." + status
			switch status {
			case "completed", "incomplete", "failed":
			default:
				typ = "response.incomplete"
			}
			sw.write(typ, map[string]any{"response": r})
		case core.EventError:
			closeCur()
			pe := core.ProviderError{}
			if e.Error != nil {
				pe = *e.Error
			}
			if pe.Type != "" {
				sw.write("error", map[string]any{"error": errorObject(&pe)})
			} else {
				sw.write("error", map[string]any{"code": pe.Code, "message": pe.Message, "param": nil})
			}
		}
	}
	_ = sawCall
	closeCur()
	if err := sw.Err(); err != nil {
		return fmt.Errorf("openai-responses: encode stream: %w", err)
	}
	return nil
}
