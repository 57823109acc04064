package reduce

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// chatChunk is one event of a Chat Completions (or Mistral) stream: a
// data line holding a chunk, the closing [DONE], or a filler.
type chatChunk struct {
	sseEvent
	// calls are the calls of the chunk's entries (over every choice), in
	// order: numbered 0, 1, … in order of first appearance, a call being
	// an index and the id last sent on it (an entry with another id on
	// the same index starts another call); indices are the entries' wire
	// indices.
	calls, indices []int
	// alone is set when the chunk carries one call entry and nothing
	// else: one choice, a delta of tool_calls alone (see onlyKeys), no
	// finish reason, no usage. Such a chunk may be dropped or moved without losing anything
	// but its entry.
	alone bool
	// named is set when the entry carries an id or a name.
	named bool
	// args is the entry's argument fragment, present tells whether it
	// has one.
	args    string
	present bool
	// text is set when the chunk carries visible text: textAlone when
	// it carries nothing else (a delta of content alone, see onlyKeys;
	// no finish reason, no usage).
	text, textAlone bool
}

// call is the call of the chunk's first entry, -1 for none.
func (c chatChunk) call() int {
	if len(c.calls) == 0 {
		return -1
	}
	return c.calls[0]
}

// readChat reads a Chat Completions body into chunks, or says why it
// cannot: not SSE the codec reads, several choices, an entry without an
// index.
func readChat(body []byte) ([]chatChunk, string) {
	plain, err := parseSSE(body)
	if err != nil {
		return nil, "the body is not SSE the codec reads: " + err.Error()
	}
	out := make([]chatChunk, len(plain))
	// current is the call last seen on each index, by its id.
	type onIndex struct {
		call int
		id   string
	}
	current := map[int]onIndex{}
	calls := 0
	for i, p := range plain {
		out[i] = chatChunk{sseEvent: p}
		if p.filler {
			continue
		}
		if p.name != "" {
			return nil, fmt.Sprintf("event %d is named %q: Chat Completions chunks are unnamed", i+1, p.name)
		}
		if string(p.data) == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta        map[string]json.RawMessage `json:"delta"`
				FinishReason *string                    `json:"finish_reason"`
			} `json:"choices"`
			Usage json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal(p.data, &c); err != nil {
			return nil, fmt.Sprintf("event %d is not a JSON chunk: %v", i+1, err)
		}
		if len(c.Choices) > 1 {
			return nil, fmt.Sprintf("chunk %d has %d choices; the simplifications edit streams of one", i+1, len(c.Choices))
		}
		if len(c.Choices) == 0 {
			continue
		}
		ch := c.Choices[0]
		noUsage := len(c.Usage) == 0 || string(c.Usage) == "null"
		if raw, ok := ch.Delta["content"]; ok {
			var text *string
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, fmt.Sprintf("chunk %d: delta.content: %v", i+1, err)
			}
			out[i].text = text != nil && *text != ""
			out[i].textAlone = out[i].text && onlyKeys(ch.Delta, "content") && ch.FinishReason == nil && noUsage
		}
		var entries []struct {
			Index    *int   `json:"index"`
			ID       string `json:"id"`
			Function struct {
				Name      string  `json:"name"`
				Arguments *string `json:"arguments"`
			} `json:"function"`
		}
		if raw, ok := ch.Delta["tool_calls"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &entries); err != nil {
				return nil, fmt.Sprintf("chunk %d: delta.tool_calls: %v", i+1, err)
			}
		}
		if len(entries) == 0 {
			continue
		}
		for k, e := range entries {
			if e.Index == nil {
				return nil, fmt.Sprintf("chunk %d: tool call entry %d has no index", i+1, k)
			}
			cur, ok := current[*e.Index]
			if !ok || e.ID != "" && e.ID != cur.id {
				cur = onIndex{call: calls, id: e.ID}
				current[*e.Index] = cur
				calls++
			}
			out[i].calls = append(out[i].calls, cur.call)
			out[i].indices = append(out[i].indices, *e.Index)
		}
		e := entries[0]
		out[i].named = e.ID != "" || e.Function.Name != ""
		if e.Function.Arguments != nil {
			out[i].args, out[i].present = *e.Function.Arguments, true
		}
		out[i].alone = len(entries) == 1 && onlyCalls(ch.Delta) && ch.FinishReason == nil && noUsage
	}
	return out, ""
}

// onlyCalls reports whether a delta carries tool_calls and nothing else
// that dropping or moving its chunk would lose (see onlyKeys).
func onlyCalls(delta map[string]json.RawMessage) bool {
	return onlyKeys(delta, "tool_calls")
}

// onlyKeys reports whether a delta carries key and otherwise only what
// many servers repeat on every chunk: the role, and content or refusal
// that is null or empty. The stream's first chunk stays first under every
// edit, so its role is never lost.
func onlyKeys(delta map[string]json.RawMessage, key string) bool {
	for k, v := range delta {
		switch {
		case k == key, k == "role":
		case (k == "content" || k == "refusal") && (string(v) == "null" || string(v) == `""`):
		default:
			return false
		}
	}
	_, ok := delta[key]
	return ok
}

// onChat applies an edit of a Chat Completions or Mistral stream.
func onChat(edit func(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool)) form {
	return func(v Variant, protocol string) (Variant, Step, string, bool) {
		if streamEvents(protocol) != providers.EventsChatChunks || len(v.Scenario.Body) == 0 {
			return v, Step{}, "", false
		}
		cs, why := readChat(v.Scenario.Body)
		if why != "" {
			return v, Step{}, why, true
		}
		out, sc, step, ok := edit(cs, v.Scenario)
		if !ok {
			return v, Step{}, declined, true
		}
		var plain []sseEvent
		for _, c := range out {
			plain = append(plain, c.sseEvent)
		}
		next, step, why := rewritten(v, sc, plain, step)
		return next, step, why, true
	}
}

// chatCalls returns the calls in order of first appearance.
func chatCalls(cs []chatChunk) []int {
	var out []int
	for _, c := range cs {
		for _, k := range c.calls {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// wireIndices returns the wire index of each call, by call.
func wireIndices(cs []chatChunk) map[int]int {
	out := map[int]int{}
	for _, c := range cs {
		for k, call := range c.calls {
			out[call] = c.indices[k]
		}
	}
	return out
}

// indicesOf returns the wire indices of the calls, in order.
func indicesOf(cs []chatChunk, calls []int) []int {
	wire := wireIndices(cs)
	out := make([]int, len(calls))
	for i, k := range calls {
		out[i] = wire[k]
	}
	return out
}

// movable reports whether every chunk with call entries carries one
// entry alone, so that chunks can be dropped or reordered whole.
func movable(cs []chatChunk) bool {
	for _, c := range cs {
		if len(c.calls) > 0 && !c.alone {
			return false
		}
	}
	return true
}

// chatRenumber gives each call its own index, 0, 1, … in order of first
// appearance: a skipped index closes up, and two calls sent on one index
// with different ids get two.
func chatRenumber(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	calls := chatCalls(cs)
	wire := indicesOf(cs, calls)
	to := map[int]int{}
	changed := false
	for i, k := range calls {
		to[k] = i
		changed = changed || wire[i] != i
	}
	if !changed {
		return nil, nil, Step{}, false
	}
	out := slices.Clone(cs)
	for i, c := range out {
		for k, call := range c.calls {
			if c.indices[k] == to[call] {
				continue
			}
			data, ok := splice(c.data, []byte(strconv.Itoa(to[call])), "choices", 0, "delta", "tool_calls", k, "index")
			if !ok {
				return nil, nil, Step{}, false
			}
			if c.sseEvent, ok = c.sseEvent.withData(data); !ok {
				return nil, nil, Step{}, false
			}
			c.indices = slices.Clone(c.indices)
			c.indices[k] = to[call]
		}
		out[i] = c
	}
	has := "tool call indices " + joinInts(wire)
	if n := len(calls) - len(distinct(wire)); n > 0 {
		has += fmt.Sprintf(" (%d call(s) sent on an index another call holds, with another id)", n)
	}
	return out, sc, Step{Has: has, Becomes: "tool call indices renumbered from 0 (" + joinInts(indicesOf(out, chatCalls(out))) + ")"}, true
}

// distinct returns the values of xs without repeats.
func distinct(xs []int) []int {
	var out []int
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func chatDeinterleave(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	calls := chatCalls(cs)
	var seq []int
	for _, c := range cs {
		if len(c.calls) > 0 && (len(seq) == 0 || seq[len(seq)-1] != c.call()) {
			seq = append(seq, c.call())
		}
	}
	if len(seq) == len(calls) || !movable(cs) {
		return nil, nil, Step{}, false
	}
	var out []chatChunk
	done := map[int]bool{}
	for _, c := range cs {
		switch {
		case len(c.calls) == 0:
			out = append(out, c)
		case !done[c.call()]:
			done[c.call()] = true
			for _, d := range cs {
				if d.call() == c.call() {
					out = append(out, d)
				}
			}
		}
	}
	return out, sc, Step{Has: "tool call chunks interleaved (call order " + joinInts(indicesOf(cs, seq)) + ")", Becomes: "each call's chunks together"}, true
}

func chatOneCall(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	calls := chatCalls(cs)
	if len(calls) < 2 || len(sc.Want.Calls) < 2 || !movable(cs) {
		return nil, nil, Step{}, false
	}
	var out []chatChunk
	for _, c := range cs {
		if len(c.calls) == 0 || c.call() == calls[0] {
			out = append(out, c)
		}
	}
	c := *sc
	c.Want.Calls = sc.Want.Calls[:1]
	return out, &c, Step{Has: strconv.Itoa(len(calls)) + " tool calls", Becomes: "one call (the first)"}, true
}

// chatWholeArguments puts each call's argument fragments into its first
// chunk that carries arguments and drops the later chunks, which must
// carry nothing but their fragment.
func chatWholeArguments(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	whole := map[int]string{}
	count := map[int]int{}
	first := map[int]int{}
	for i, c := range cs {
		if len(c.calls) == 0 || !c.present {
			continue
		}
		if _, ok := first[c.call()]; !ok {
			first[c.call()] = i
		} else if len(c.calls) > 1 || !c.alone || c.named {
			return nil, nil, Step{}, false
		}
		whole[c.call()] += c.args
		if c.args != "" {
			count[c.call()]++
		}
	}
	most := 0
	for _, n := range count {
		most = max(most, n)
	}
	if most < 2 {
		return nil, nil, Step{}, false
	}
	var out []chatChunk
	for i, c := range cs {
		if len(c.calls) > 0 && c.present {
			if first[c.call()] != i {
				continue
			}
			text, _ := json.Marshal(whole[c.call()])
			data, ok := splice(c.data, text, "choices", 0, "delta", "tool_calls", 0, "function", "arguments")
			if !ok {
				return nil, nil, Step{}, false
			}
			if c.sseEvent, ok = c.sseEvent.withData(data); !ok {
				return nil, nil, Step{}, false
			}
		}
		out = append(out, c)
	}
	var frags []string
	for _, k := range chatCalls(cs) {
		if n, ok := count[k]; ok {
			frags = append(frags, strconv.Itoa(n))
		}
	}
	return out, sc, Step{Has: "arguments in fragments (" + strings.Join(frags, ", ") + " per call)", Becomes: "whole arguments in one fragment per call"}, true
}

// chatNoText drops the chunks that carry text alone; text that shares a
// chunk with anything else leaves the stream as it is.
func chatNoText(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	if len(chatCalls(cs)) == 0 {
		return nil, nil, Step{}, false
	}
	var out []chatChunk
	n := 0
	for _, c := range cs {
		switch {
		case c.textAlone:
			n++
		case c.text:
			return nil, nil, Step{}, false
		default:
			out = append(out, c)
		}
	}
	if n == 0 {
		return nil, nil, Step{}, false
	}
	c := *sc
	if c.Want.Text != nil {
		empty := ""
		c.Want.Text = &empty
	}
	return out, &c, Step{Has: strconv.Itoa(n) + " text chunk(s)", Becomes: "text and thinking removed"}, true
}
