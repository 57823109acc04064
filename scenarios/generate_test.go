package scenarios

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
)

var update = flag.Bool("update", false, "rewrite the generated scenarios under cases/*/recorded and COVERAGE.md")

// The generator turns every cassette interaction that carries tool calls
// into a scenario under cases/<protocol>/recorded/. Its expectations come
// from the recorded provider JSON, read here with small extractors written
// independently of the adapters, so that the adapters are really checked.
//
// recCall is a call as the recording states it.
type recCall struct {
	ID, ItemID, Name, Signature string
	// Args is the argument JSON text; "" means the recording sent none.
	Args string
}

// extraction is what the generator read from one response.
type extraction struct {
	// protocol is the protocol the body was read as.
	protocol   string
	stream     bool
	calls      []recCall
	incomplete []recCall
	// finish is the provider's raw finish value, "" when none was seen.
	finish string
	guards []string
	notes  []string
	// alts holds, for a guard, the other failure modes that cover the same
	// feature of the bytes; a case that declares any of them declares it.
	alts map[string][]string
	// should lowers the case to SHOULD where the right reading of the
	// recording is open to argument.
	should bool
}

// guard records a feature of the bytes that failure mode id covers (or
// any of alts), with a note that says what the feature is.
func (x *extraction) guard(id, note string, alts ...string) {
	if !slices.Contains(x.guards, id) {
		x.guards = append(x.guards, id)
		x.notes = append(x.notes, note)
	}
	if len(alts) > 0 {
		if x.alts == nil {
			x.alts = map[string][]string{}
		}
		x.alts[id] = alts
	}
}

// splitsEscape reports whether an argument fragment ends inside a JSON
// escape sequence (a lone backslash, or \u with fewer than four hex
// digits), so that the next fragment completes it (B06).
func splitsEscape(frag string) bool {
	n := 0
	for i := len(frag) - 1; i >= 0 && frag[i] == '\\'; i-- {
		n++
	}
	if n%2 == 1 {
		return true
	}
	for k := 2; k <= 5 && k <= len(frag); k++ {
		tail := frag[len(frag)-k:]
		if strings.HasPrefix(tail, "\\u") && strings.Trim(tail[2:], "0123456789abcdefABCDEF") == "" {
			b := 0
			for i := len(frag) - k - 1; i >= 0 && frag[i] == '\\'; i-- {
				b++
			}
			return b%2 == 0
		}
	}
	return false
}

// fragment records the stream features of one argument fragment.
func (x *extraction) fragment(frag string) {
	if splitsEscape(frag) {
		x.guard("B06", "an argument fragment ends inside a JSON escape sequence, which the next fragment completes")
	}
}

// payloads records the stream features of the raw event payloads.
func (x *extraction) payloads(data [][]byte) {
	for _, d := range data {
		if !utf8.Valid(d) {
			x.guard("B05", "an event's bytes end or start inside a multi-byte UTF-8 character, which the next event completes")
			return
		}
	}
}

// indexFeatures records the features of the indices at which calls or
// blocks open, in the order they open: a first index other than 0, or an
// index that skips a number (A21).
func (x *extraction) indexFeatures(opened []int, what string) {
	next := 0
	for _, i := range opened {
		if i < 0 {
			continue
		}
		if i > next {
			x.guard("A21", fmt.Sprintf("%s indices do not start at 0 or skip a number (%d opens when %d is next)", what, i, next), "A12")
			return
		}
		if i == next {
			next++
		}
	}
}

// errSkip marks an interaction the generator leaves out, with the reason.
type errSkip struct{ reason string }

func (e errSkip) Error() string { return e.reason }

func skipf(format string, args ...any) error { return errSkip{fmt.Sprintf(format, args...)} }

// sseData returns the data payloads of an SSE body, one per event, and the
// event names (empty when the event had no "event:" line).
func sseData(body []byte) (data [][]byte, names []string) {
	var cur []string
	name := ""
	flush := func() {
		if cur != nil && !(len(cur) == 1 && cur[0] == "[DONE]") {
			data = append(data, []byte(strings.Join(cur, "\n")))
			names = append(names, name)
		}
		cur, name = nil, ""
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			cur = append(cur, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		}
	}
	flush()
	return data, names
}

func isSSE(body []byte) bool {
	t := bytes.TrimLeft(body, " \r\n")
	return bytes.HasPrefix(t, []byte("data:")) || bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte(":"))
}

// argText returns argument JSON text from a raw value that is either a
// JSON string holding the text or (C04) the object itself.
func argText(raw json.RawMessage, x *extraction) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		if len(raw) > 0 {
			x.guard("C06", "the recording sends null arguments, which must become {}")
		}
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	x.guard("C04", "the recording sends arguments as a JSON object, not a string")
	return string(raw)
}

func extractChat(body []byte, x *extraction) error {
	type tc struct {
		Index    *int    `json:"index"`
		ID       *string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	id := func(t tc) string {
		if t.ID == nil {
			return ""
		}
		return *t.ID
	}
	if !isSSE(body) {
		var r struct {
			Choices []struct {
				Message struct {
					ToolCalls []tc `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return err
		}
		if len(r.Choices) == 0 {
			return nil
		}
		for _, c := range r.Choices[0].Message.ToolCalls {
			x.calls = append(x.calls, recCall{ID: id(c), Name: c.Function.Name, Args: argText(c.Function.Arguments, x)})
		}
		x.finish = r.Choices[0].FinishReason
		return nil
	}
	x.stream = true
	type open struct {
		call  recCall
		index *int
		raw   bool // arguments came as an object
	}
	var calls []*open
	var opened []int
	sawID := false
	sawDone := bytes.Contains(body, []byte("data: [DONE]"))
	data, _ := sseData(body)
	x.payloads(data)
	for _, d := range data {
		var ch struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					ToolCalls []tc `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(d, &ch); err != nil {
			return fmt.Errorf("chunk %q: %w", d, err)
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				return skipf("more than one choice")
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				x.finish = *c.FinishReason
			}
			for _, t := range c.Delta.ToolCalls {
				var o *open
				if t.Index == nil {
					x.guard("A07", "tool-call deltas carry no index")
				} else if *t.Index < 0 {
					x.guard("A11", "a tool-call delta carries a negative index")
				} else if *t.Index > core.DefaultMaxIndex {
					x.guard("A12", "a tool-call delta carries an index beyond the buffer's limit")
				}
				if t.ID != nil && *t.ID != "" {
					sawID = true
				}
				tid := id(t)
				for _, p := range slices.Backward(calls) {
					if t.Index != nil && p.index != nil && *p.index == *t.Index && (tid == "" || tid == p.call.ID) {
						o = p
						break
					}
					if t.Index == nil && tid != "" && tid == p.call.ID {
						o = p
						break
					}
				}
				if o == nil && t.Index == nil && tid == "" && len(calls) > 0 {
					o = calls[len(calls)-1]
				}
				switch {
				case o == nil:
					if t.Index != nil {
						for _, p := range calls {
							if p.index != nil && *p.index == *t.Index {
								x.guard("A02", "a second call opens on an index an earlier call used, with another id", "A01")
							}
						}
						opened = append(opened, *t.Index)
					}
					o = &open{call: recCall{ID: tid}, index: t.Index}
					calls = append(calls, o)
				case o != calls[len(calls)-1]:
					x.guard("A05", "a delta continues a call after another call has opened (interleaved calls)")
					fallthrough
				default:
					if t.ID != nil && tid == "" {
						x.guard("A03", "a continuation delta carries an empty id")
					}
				}
				if t.Function.Name != "" {
					o.call.Name = t.Function.Name
				}
				a := bytes.TrimSpace(t.Function.Arguments)
				if len(a) > 0 && a[0] != '"' && string(a) != "null" {
					x.guard("C04", "the recording sends arguments as a JSON object, not a string")
					o.call.Args = string(a)
				} else {
					frag := argText(a, x)
					x.fragment(frag)
					o.call.Args += frag
				}
			}
		}
	}
	x.indexFeatures(opened, "tool-call")
	if !sawID && len(calls) > 0 && x.protocol == "openai-chat" {
		x.guard("D03", "no tool-call delta carries an id")
	}
	if x.finish == "" && sawDone && len(calls) > 0 {
		x.should = true
		x.notes = append(x.notes, "the stream ends with data: [DONE] but no finish_reason; [DONE] is read as the normal end of the response, so the calls are complete (SHOULD)")
	}
	for _, o := range calls {
		if x.finish == "" && !sawDone {
			x.incomplete = append(x.incomplete, o.call)
		} else {
			x.calls = append(x.calls, o.call)
		}
	}
	return nil
}

func extractAnthropic(body []byte, x *extraction) error {
	type block = anthropicBlock
	if !isSSE(body) {
		var r struct {
			Content    []block `json:"content"`
			StopReason string  `json:"stop_reason"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return err
		}
		for _, b := range r.Content {
			if b.Type == "tool_use" {
				x.calls = append(x.calls, recCall{ID: b.ID, Name: b.Name, Args: string(b.Input)})
			}
		}
		x.finish = r.StopReason
		return nil
	}
	x.stream = true
	acc := newAnthropicStream()
	data, _ := sseData(body)
	x.payloads(data)
	for _, d := range data {
		if err := acc.event(d, x); err != nil {
			return err
		}
	}
	acc.close(x)
	return nil
}

// anthropicBlock is a content block of an Anthropic Messages response.
type anthropicBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// anthropicStream accumulates the tool_use blocks of an Anthropic Messages
// event stream, one JSON event at a time. It is shared by the SSE reading
// of the anthropic protocol and the InvokeModel stream frames of bedrock,
// which carry the same events base64-encoded.
type anthropicStream struct {
	blocks map[int]*anthropicOpen
	order  []*anthropicOpen
	// opened lists the indices of content_block_start events, in order;
	// live holds the blocks started and not yet stopped, of any type.
	opened []int
	live   map[int]bool
}

type anthropicOpen struct {
	call   recCall
	start  string
	deltas bool
	done   bool
}

func newAnthropicStream() *anthropicStream {
	return &anthropicStream{blocks: map[int]*anthropicOpen{}, live: map[int]bool{}}
}

// event applies one Anthropic Messages stream event to the accumulator.
func (a *anthropicStream) event(d []byte, x *extraction) error {
	var ev struct {
		Type    string `json:"type"`
		Index   int    `json:"index"`
		Message struct {
			Usage json.RawMessage `json:"usage"`
		} `json:"message"`
		ContentBlock anthropicBlock `json:"content_block"`
		Delta        struct {
			Type        string `json:"type"`
			PartialJSON string `json:"partial_json"`
			StopReason  string `json:"stop_reason"`
		} `json:"delta"`
	}
	if err := json.Unmarshal(d, &ev); err != nil {
		return fmt.Errorf("event %q: %w", d, err)
	}
	switch ev.Type {
	case "message_start":
		if len(ev.Message.Usage) == 0 || string(ev.Message.Usage) == "null" {
			x.guard("B14", "message_start carries no usage")
		}
	case "content_block_start":
		a.opened = append(a.opened, ev.Index)
		if len(a.live) > 0 && ev.ContentBlock.Type == "tool_use" {
			x.guard("A19", "a tool_use block starts before the block before it stops (interleaved blocks)")
		}
		a.live[ev.Index] = true
		if ev.ContentBlock.Type == "tool_use" {
			o := &anthropicOpen{call: recCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}, start: string(ev.ContentBlock.Input)}
			a.blocks[ev.Index] = o
			a.order = append(a.order, o)
		} else {
			delete(a.blocks, ev.Index)
		}
	case "content_block_delta":
		if o := a.blocks[ev.Index]; o != nil && ev.Delta.Type == "input_json_delta" {
			x.fragment(ev.Delta.PartialJSON)
			o.call.Args += ev.Delta.PartialJSON
			if ev.Delta.PartialJSON != "" {
				o.deltas = true
			}
		}
	case "content_block_stop":
		delete(a.live, ev.Index)
		if o := a.blocks[ev.Index]; o != nil {
			o.done = true
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			x.finish = ev.Delta.StopReason
		}
	}
	return nil
}

// close moves the accumulated blocks into x: closed blocks are calls, the
// rest are incomplete.
func (a *anthropicStream) close(x *extraction) {
	x.indexFeatures(a.opened, "content block")
	for _, o := range a.order {
		if o.deltas && strings.TrimSpace(o.start) != "" && strings.TrimSpace(o.start) != "{}" {
			x.guard("A18", "a tool_use block starts with a populated input and then streams input_json_delta")
		}
		if !o.deltas {
			x.guard("C02", "a tool_use block streams no input_json_delta, so its input is the start block's", "C01")
			o.call.Args = o.start
		}
		if o.done {
			x.calls = append(x.calls, o.call)
		} else {
			x.incomplete = append(x.incomplete, o.call)
		}
	}
}

func extractResponses(body []byte, x *extraction) error {
	type item struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	toCall := func(it item) recCall {
		var args string
		_ = json.Unmarshal(it.Arguments, &args)
		return recCall{ID: it.CallID, ItemID: it.ID, Name: it.Name, Args: args}
	}
	if !isSSE(body) {
		var r struct {
			Output []item `json:"output"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return err
		}
		for _, it := range r.Output {
			if it.Type == "function_call" {
				x.calls = append(x.calls, toCall(it))
			}
		}
		return nil
	}
	x.stream = true
	added := map[string]*recCall{}
	var order []string
	done := map[string]bool{}
	deltas := map[string]bool{}
	data, _ := sseData(body)
	x.payloads(data)
	for _, d := range data {
		var ev struct {
			Type   string `json:"type"`
			Item   item   `json:"item"`
			ItemID string `json:"item_id"`
			Delta  string `json:"delta"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			return fmt.Errorf("event %q: %w", d, err)
		}
		switch ev.Type {
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				c := toCall(ev.Item)
				added[ev.Item.ID] = &c
				order = append(order, ev.Item.ID)
			}
		case "response.function_call_arguments.delta":
			if c := added[ev.ItemID]; c != nil {
				x.fragment(ev.Delta)
				c.Args += ev.Delta
				deltas[ev.ItemID] = true
			}
		case "response.output_item.done":
			if ev.Item.Type == "function_call" {
				c := toCall(ev.Item)
				if _, ok := added[ev.Item.ID]; !ok {
					order = append(order, ev.Item.ID)
				}
				added[ev.Item.ID] = &c
				done[ev.Item.ID] = true
			}
		}
	}
	for _, id := range order {
		if done[id] && !deltas[id] && added[id].Args != "" {
			x.guard("A17", "a function call's arguments come only in its output_item.done event, with no delta")
		}
		if done[id] {
			x.calls = append(x.calls, *added[id])
		} else {
			x.incomplete = append(x.incomplete, *added[id])
		}
	}
	return nil
}

type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				FunctionCall *struct {
					ID           string          `json:"id"`
					Name         string          `json:"name"`
					Args         json.RawMessage `json:"args"`
					PartialArgs  []partialArg    `json:"partialArgs"`
					WillContinue bool            `json:"willContinue"`
				} `json:"functionCall"`
				ThoughtSignature string `json:"thoughtSignature"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason json.RawMessage `json:"finishReason"`
	} `json:"candidates"`
}

func extractGemini(body []byte, x *extraction) error {
	var chunks []geminiChunk
	t := bytes.TrimSpace(body)
	switch {
	case isSSE(body):
		x.stream = true
		data, _ := sseData(body)
		for _, d := range data {
			var c geminiChunk
			if err := json.Unmarshal(d, &c); err != nil {
				return fmt.Errorf("chunk %q: %w", d, err)
			}
			chunks = append(chunks, c)
		}
	case len(t) > 0 && t[0] == '[':
		x.stream = true
		if err := json.Unmarshal(t, &chunks); err != nil {
			return err
		}
	default:
		var c geminiChunk
		if err := json.Unmarshal(t, &c); err != nil {
			return err
		}
		chunks = append(chunks, c)
	}
	// A Vertex call streamed with partialArgs opens with a name and
	// willContinue, gets its values by JSON path, and ends with a
	// functionCall part without willContinue.
	var open *recCall
	var root any
	for _, c := range chunks {
		if len(c.Candidates) == 0 {
			continue
		}
		if len(c.Candidates) > 1 {
			return skipf("more than one candidate")
		}
		cand := c.Candidates[0]
		var finish string
		if json.Unmarshal(cand.FinishReason, &finish) == nil && finish != "" {
			x.finish = finish
		}
		for _, p := range cand.Content.Parts {
			fc := p.FunctionCall
			if fc == nil {
				continue
			}
			if fc.Name != "" && fc.WillContinue {
				if open != nil {
					x.incomplete = append(x.incomplete, *open)
				}
				open = &recCall{Name: fc.Name, ID: fc.ID, Signature: p.ThoughtSignature}
				root = map[string]any{}
				continue
			}
			if open != nil {
				for _, pa := range fc.PartialArgs {
					if err := pa.apply(&root); err != nil {
						return err
					}
				}
				if !fc.WillContinue {
					b, _ := json.Marshal(root)
					open.Args = string(b)
					x.calls = append(x.calls, *open)
					open = nil
				}
				continue
			}
			if fc.PartialArgs != nil {
				return fmt.Errorf("partialArgs outside a streamed call")
			}
			x.calls = append(x.calls, recCall{ID: fc.ID, Name: fc.Name, Args: string(fc.Args), Signature: p.ThoughtSignature})
		}
	}
	if open != nil {
		b, _ := json.Marshal(root)
		open.Args = string(b)
		x.incomplete = append(x.incomplete, *open)
	}
	for _, cs := range [][]recCall{x.calls, x.incomplete} {
		for _, call := range cs {
			if call.ID == "" {
				x.guard("D01", "the recording's functionCall has no id; the adapter must make distinct ones")
			}
			if call.Signature != "" {
				x.guard("G13", "the functionCall carries a thoughtSignature that must be kept")
			}
		}
	}
	return nil
}

// partialArg is one value of a Vertex partialArgs stream.
type partialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  json.Number     `json:"numberValue"`
	BoolValue    *bool           `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue bool            `json:"willContinue"`
}

var pathSeg = regexp.MustCompile(`\.([A-Za-z0-9_]+)|\[([0-9]+)\]`)

// apply sets the value at the path in *root; a string value extends the
// string already there.
func (pa partialArg) apply(root *any) error {
	if !strings.HasPrefix(pa.JSONPath, "$") {
		return fmt.Errorf("jsonPath %q does not start with $", pa.JSONPath)
	}
	segs := pathSeg.FindAllStringSubmatch(pa.JSONPath[1:], -1)
	value := func(old any) any {
		switch {
		case pa.StringValue != nil:
			if s, ok := old.(string); ok {
				return s + *pa.StringValue
			}
			return *pa.StringValue
		case pa.NumberValue != "":
			return pa.NumberValue
		case pa.BoolValue != nil:
			return *pa.BoolValue
		}
		return nil
	}
	var set func(cur any, i int) (any, error)
	set = func(cur any, i int) (any, error) {
		if i == len(segs) {
			return value(cur), nil
		}
		if key := segs[i][1]; key != "" {
			m, _ := cur.(map[string]any)
			if m == nil {
				m = map[string]any{}
			}
			v, err := set(m[key], i+1)
			m[key] = v
			return m, err
		}
		n, err := strconv.Atoi(segs[i][2])
		if err != nil || n > 1000 {
			return nil, fmt.Errorf("jsonPath %q: bad index", pa.JSONPath)
		}
		a, _ := cur.([]any)
		for len(a) <= n {
			a = append(a, nil)
		}
		v, err := set(a[n], i+1)
		a[n] = v
		return a, err
	}
	v, err := set(*root, 0)
	*root = v
	return err
}

func extractCohere(body []byte, x *extraction) error {
	type tc struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if !isSSE(body) {
		var r struct {
			Message struct {
				ToolCalls []tc `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return err
		}
		for _, c := range r.Message.ToolCalls {
			x.calls = append(x.calls, recCall{ID: c.ID, Name: c.Function.Name, Args: argText(c.Function.Arguments, x)})
		}
		x.finish = r.FinishReason
		return nil
	}
	x.stream = true
	type open struct {
		call recCall
		done bool
	}
	byIndex := map[int]*open{}
	var order []*open
	data, _ := sseData(body)
	for _, d := range data {
		var ev struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
			Delta struct {
				Message struct {
					ToolCalls json.RawMessage `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			return fmt.Errorf("event %q: %w", d, err)
		}
		var t tc
		if ev.Type == "tool-call-start" || ev.Type == "tool-call-delta" {
			if err := json.Unmarshal(ev.Delta.Message.ToolCalls, &t); err != nil {
				return fmt.Errorf("event %q: %w", d, err)
			}
		}
		switch ev.Type {
		case "tool-call-start":
			o := &open{call: recCall{ID: t.ID, Name: t.Function.Name, Args: argText(t.Function.Arguments, x)}}
			byIndex[ev.Index] = o
			order = append(order, o)
		case "tool-call-delta":
			if o := byIndex[ev.Index]; o != nil {
				o.call.Args += argText(t.Function.Arguments, x)
			}
		case "tool-call-end":
			if o := byIndex[ev.Index]; o != nil {
				o.done = true
			}
		case "message-end":
			x.finish = ev.Delta.FinishReason
		}
	}
	for _, o := range order {
		if o.done {
			x.calls = append(x.calls, o.call)
		} else {
			x.incomplete = append(x.incomplete, o.call)
		}
	}
	return nil
}

func extractBedrock(url string, body []byte, x *extraction) error {
	if !strings.Contains(url, "/converse") {
		return extractInvokeModel(url, body, x)
	}
	type toolUse struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	}
	if !strings.Contains(url, "/converse-stream") {
		var r struct {
			Output struct {
				Message struct {
					Content []struct {
						ToolUse *toolUse `json:"toolUse"`
					} `json:"content"`
				} `json:"message"`
			} `json:"output"`
			StopReason string `json:"stopReason"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return err
		}
		for _, c := range r.Output.Message.Content {
			if c.ToolUse != nil {
				x.calls = append(x.calls, recCall{ID: c.ToolUse.ToolUseID, Name: c.ToolUse.Name, Args: string(c.ToolUse.Input)})
			}
		}
		x.finish = r.StopReason
		return nil
	}
	x.stream = true
	type open struct {
		call recCall
		done bool
	}
	blocks := map[int]*open{}
	var order []*open
	dec := eventstream.NewDecoder()
	rd := bytes.NewReader(body)
	for {
		msg, err := dec.Decode(rd, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		kind := ""
		if h := msg.Headers.Get(":event-type"); h != nil {
			kind = h.String()
		}
		var ev struct {
			ContentBlockIndex int `json:"contentBlockIndex"`
			Start             struct {
				ToolUse *toolUse `json:"toolUse"`
			} `json:"start"`
			Delta struct {
				ToolUse *struct {
					Input string `json:"input"`
				} `json:"toolUse"`
			} `json:"delta"`
			StopReason string `json:"stopReason"`
		}
		if err := json.Unmarshal(msg.Payload, &ev); err != nil {
			return fmt.Errorf("frame %s: %w", kind, err)
		}
		switch kind {
		case "contentBlockStart":
			if ev.Start.ToolUse != nil {
				o := &open{call: recCall{ID: ev.Start.ToolUse.ToolUseID, Name: ev.Start.ToolUse.Name}}
				blocks[ev.ContentBlockIndex] = o
				order = append(order, o)
			}
		case "contentBlockDelta":
			if o := blocks[ev.ContentBlockIndex]; o != nil && ev.Delta.ToolUse != nil {
				o.call.Args += ev.Delta.ToolUse.Input
			}
		case "contentBlockStop":
			if o := blocks[ev.ContentBlockIndex]; o != nil {
				o.done = true
			}
		case "messageStop":
			x.finish = ev.StopReason
		}
	}
	for _, o := range order {
		if o.done {
			x.calls = append(x.calls, o.call)
		} else {
			x.incomplete = append(x.incomplete, o.call)
		}
	}
	return nil
}

// extractInvokeModel reads a Bedrock InvokeModel response of an Anthropic
// model. A plain invoke body is an Anthropic Messages JSON body; an
// invoke-with-response-stream body is AWS event-stream frames whose chunk
// payloads hold one Anthropic Messages stream event each, base64-encoded in
// "bytes".
func extractInvokeModel(url string, body []byte, x *extraction) error {
	if !strings.Contains(url, "/invoke-with-response-stream") {
		return extractAnthropic(body, x)
	}
	x.stream = true
	acc := newAnthropicStream()
	dec := eventstream.NewDecoder()
	rd := bytes.NewReader(body)
	for n := 0; ; n++ {
		msg, err := dec.Decode(rd, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("frame %d: %w", n, err)
		}
		kind := ""
		if h := msg.Headers.Get(":event-type"); h != nil {
			kind = h.String()
		}
		if h := msg.Headers.Get(":message-type"); h != nil && h.String() != "event" {
			return fmt.Errorf("frame %d: message type %s: %s", n, h.String(), msg.Payload)
		}
		if kind != "chunk" {
			return fmt.Errorf("frame %d: unexpected event type %q", n, kind)
		}
		var c struct {
			Bytes []byte `json:"bytes"`
		}
		if err := json.Unmarshal(msg.Payload, &c); err != nil {
			return fmt.Errorf("frame %d: %w", n, err)
		}
		if err := acc.event(c.Bytes, x); err != nil {
			return fmt.Errorf("frame %d: %w", n, err)
		}
	}
	acc.close(x)
	return nil
}

// normalFinish maps a provider finish value to the canonical one where the
// mapping is not in doubt; "" leaves the finish unchecked. The rule is the
// protocol's own (core.Response): Gemini has no reason for a tool turn and
// ends every one with STOP, so a Gemini STOP that carries calls is
// tool_calls (F02); everywhere else a stop that carries calls stays stop,
// since the protocol had a tool-turn reason and did not use it (F01).
func normalFinish(protocol, v string, hasCalls bool) string {
	if protocol == "gemini" && v == "STOP" && hasCalls {
		return "tool_calls"
	}
	switch v {
	case "tool_calls", "tool_use", "TOOL_CALL":
		return "tool_calls"
	case "stop", "end_turn", "STOP", "COMPLETE":
		return "stop"
	case "length", "max_tokens", "MAX_TOKENS":
		return "length"
	}
	return ""
}

// extract reads the calls of one recorded response.
func extract(protocol, url string, body []byte) (*extraction, error) {
	x := &extraction{protocol: protocol}
	var err error
	switch protocol {
	case "openai-chat", "mistral", "ollama":
		err = extractChat(body, x)
	case "anthropic":
		err = extractAnthropic(body, x)
	case "openai-responses":
		err = extractResponses(body, x)
	case "gemini":
		err = extractGemini(body, x)
	case "cohere":
		err = extractCohere(body, x)
	case "bedrock":
		err = extractBedrock(url, body, x)
	default:
		return nil, skipf("no adapter protocol %q", protocol)
	}
	if err != nil {
		return nil, err
	}
	for _, cs := range [][]recCall{x.calls, x.incomplete} {
		for i := range cs {
			switch strings.TrimSpace(cs[i].Args) {
			case "":
				x.guard("C01", "a call has empty arguments, which must become {}", "C02")
			case "null":
				x.guard("C06", "a call has null arguments, which must become {}")
			}
		}
	}
	if len(x.calls) > 0 && normalFinish(protocol, x.finish, false) == "stop" {
		if protocol == "gemini" {
			x.guard("F02", "Gemini ends every tool turn with STOP (it has no tool-turn reason), so the finish is tool_calls with the provider's STOP kept; the calls must not be dropped")
		} else {
			x.guard("F01", "the provider finishes with stop although it called tools; the calls must not be dropped", "F02")
		}
	}
	return x, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// recordedName returns the scenario name of an interaction.
func recordedName(protocol, cassette string, i int) string {
	base := strings.TrimSuffix(filepath.Base(cassette), ".yaml")
	base = strings.Trim(unsafeName.ReplaceAllString(base, "_"), "_.-")
	return fmt.Sprintf("%s/recorded/%s-%d", protocol, base, i)
}

func wantCalls(cs []recCall, protocol string, incomplete bool) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i, c := range cs {
		args := strings.TrimSpace(c.Args)
		if args == "" || args == "null" {
			args = "{}"
		}
		var v any
		if incomplete {
			// core.Collect keeps an incomplete call's text in original.
			b2, _ := json.Marshal(c.Args)
			args = string(b2)
		} else if json.Unmarshal([]byte(args), &v) != nil {
			b2, _ := json.Marshal("<invalid JSON> " + c.Args)
			args = string(b2)
		} else {
			compact := new(bytes.Buffer)
			_ = json.Compact(compact, []byte(args))
			args = compact.String()
		}
		id := c.ID
		if id == "" {
			id = AnyID
		}
		idJSON, _ := json.Marshal(id)
		if id == AnyID {
			idJSON = []byte(`"` + AnyID + `"`)
		}
		nameJSON, _ := json.Marshal(c.Name)
		fmt.Fprintf(&b, " {\"id\":%s", idJSON)
		if protocol == "openai-responses" {
			itemJSON, _ := json.Marshal(c.ItemID)
			fmt.Fprintf(&b, ",\"item_id\":%s", itemJSON)
		}
		if protocol == "gemini" {
			sigJSON, _ := json.Marshal(c.Signature)
			fmt.Fprintf(&b, ",\"signature\":%s", sigJSON)
		}
		if incomplete {
			fmt.Fprintf(&b, ",\"name\":%s,\"original\":%s}", nameJSON, args)
		} else {
			fmt.Fprintf(&b, ",\"name\":%s,\"arguments\":%s}", nameJSON, args)
		}
		if i < len(cs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.String()
}

// skipped records an interaction left out, for COVERAGE.md.
type skipped struct{ ref, reason string }

// generateRecorded returns the generated scenario files by path below
// cases/, and the interactions left out.
func generateRecorded(t *testing.T) (map[string]string, []skipped) {
	files := map[string]string{}
	var skips []skipped
	for _, proto := range cassettes.Protocols() {
		names, err := cassettes.Glob(proto)
		if err != nil {
			continue
		}
		for _, name := range names {
			c, err := cassettes.Load(name)
			if err != nil {
				t.Fatalf("load cassette %s: %v", name, err)
			}
			for i, in := range c.Interactions {
				ref := fmt.Sprintf("%s#%d", name, i)
				if in.Response.Code >= 400 {
					continue
				}
				// Bedrock InvokeModel with an Anthropic model answers with an
				// Anthropic Messages body: an anthropic case.
				target := proto
				if proto == "bedrock" && strings.HasSuffix(in.Request.URL, "/invoke") {
					target = "anthropic"
				}
				x, err := extract(target, in.Request.URL, []byte(in.Response.Body))
				var sk errSkip
				if errors.As(err, &sk) {
					skips = append(skips, skipped{ref, sk.reason})
					continue
				}
				if err != nil {
					t.Errorf("extract %s: %v", ref, err)
					continue
				}
				if len(x.calls)+len(x.incomplete) == 0 {
					continue
				}
				var b strings.Builder
				var names []string
				for _, c := range x.calls {
					names = append(names, c.Name)
				}
				kind := KindResponse
				if x.stream {
					kind = KindStream
				}
				fmt.Fprintf(&b, "Recorded %s %s response (interaction %d of cassette %s)\nwith %d complete tool call(s)", target, kind, i, name, len(x.calls))
				if len(names) > 0 {
					fmt.Fprintf(&b, ": %s", strings.Join(names, ", "))
				}
				b.WriteString(".\nThe adapter must decode exactly the calls the provider sent; the expectations\nwere read from the provider JSON by the generator, not by an adapter.\n")
				for _, n := range x.notes {
					fmt.Fprintf(&b, "Note: %s.\n", n)
				}
				slices.Sort(x.guards)
				severity := MUST
				if x.should {
					severity = SHOULD
				}
				fmt.Fprintf(&b, "Generated by TestGenerate -update; do not edit.\n\nseverity: %s\nguards:%s\nprotocol: %s\nkind: %s\ncassette: %s\n",
					severity, strings.TrimRight(" "+strings.Join(x.guards, " "), " "), target, kind, ref)
				fmt.Fprintf(&b, "-- want/calls.json --\n%s", wantCalls(x.calls, target, false))
				if len(x.incomplete) > 0 {
					fmt.Fprintf(&b, "-- want/incomplete.json --\n%s", wantCalls(x.incomplete, target, true))
				}
				if nf := normalFinish(target, x.finish, len(x.calls) > 0); nf != "" {
					fmt.Fprintf(&b, "-- want/finish.txt --\n%s %s\n", nf, x.finish)
				}
				files[recordedName(target, name, i)+".txtar"] = b.String()
			}
		}
	}
	return files, skips
}

// TestGenerate checks that the scenarios generated from the cassettes are
// up to date, and rewrites them with -update.
func TestGenerate(t *testing.T) {
	files, _ := generateRecorded(t)
	if len(files) < 100 {
		t.Errorf("generated %d recorded scenarios, want at least 100 from the corpus", len(files))
	}
	existing := map[string]bool{}
	for _, proto := range cassettes.Protocols() {
		matches, _ := filepath.Glob(filepath.Join("cases", proto, "recorded", "*.txtar"))
		for _, m := range matches {
			existing[strings.TrimPrefix(filepath.ToSlash(m), "cases/")] = true
		}
	}
	for path, content := range files {
		full := filepath.Join("cases", filepath.FromSlash(path))
		if *update {
			if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o666); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(full)
		if err != nil || string(got) != content {
			t.Errorf("%s is missing or stale; run go test ./scenarios -run TestGenerate -update", full)
		}
	}
	for path := range existing {
		if _, ok := files[path]; !ok {
			if *update {
				if err := os.Remove(filepath.Join("cases", path)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("cases/%s is no longer generated; run -update to remove it", path)
		}
	}
}

// invokeFrames encodes Anthropic Messages stream events as Bedrock
// InvokeModel chunk frames.
func invokeFrames(t *testing.T, events ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, ev := range events {
		payload, err := json.Marshal(struct {
			Bytes []byte `json:"bytes"`
		}{[]byte(ev)})
		if err != nil {
			t.Fatal(err)
		}
		msg := eventstream.Message{Payload: payload}
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		if err := enc.Encode(&buf, msg); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestExtractInvokeModel checks the generator's own reading of InvokeModel
// streams: fragments are joined, an unclosed block is incomplete, and a
// stream that is not chunk frames is an error rather than an empty answer.
func TestExtractInvokeModel(t *testing.T) {
	const url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/invoke-with-response-stream"
	start := `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"weather","input":{}}}`
	d1 := `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"loc"}}`
	d2 := `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\": 1}"}}`
	stop := `{"type":"content_block_stop","index":1}`
	fin := `{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`
	type got struct {
		Calls, Incomplete []recCall
		Finish            string
	}
	call := recCall{ID: "t1", Name: "weather", Args: `{"loc": 1}`}
	for _, tc := range []struct {
		name string
		body []byte
		want got
	}{
		{"complete", invokeFrames(t, start, d1, d2, stop, fin), got{Calls: []recCall{call}, Finish: "tool_use"}},
		{"truncated", invokeFrames(t, start, d1, d2), got{Incomplete: []recCall{call}}},
		{"no deltas", invokeFrames(t, strings.Replace(start, "{}}}", `{"a":2}}}`, 1), stop), got{Calls: []recCall{{ID: "t1", Name: "weather", Args: `{"a":2}`}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &extraction{}
			if err := extractInvokeModel(url, tc.body, x); err != nil {
				t.Fatal(err)
			}
			if !x.stream {
				t.Error("stream not set")
			}
			if diff := cmp.Diff(tc.want, got{x.calls, x.incomplete, x.finish}); diff != "" {
				t.Errorf("extraction (-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"sse instead of frames", []byte("event: message_start\ndata: {}\n\n")},
		{"cut frame", invokeFrames(t, start)[:20]},
		{"bad event json", invokeFrames(t, "{")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := extractInvokeModel(url, tc.body, &extraction{}); err == nil {
				t.Error("want an error, got none")
			}
		})
	}
}
