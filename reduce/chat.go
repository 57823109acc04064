package reduce

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// chatChunk is one event of a Chat Completions (or Mistral) stream: a
// data line holding a chunk, or the closing [DONE].
type chatChunk struct {
	sseEvent
	// call is the tool_calls index of the chunk's call entries; entries
	// counts them (over every choice).
	call    int
	entries int
	// alone is set when the chunk carries one call entry and nothing
	// else: one choice, a delta of tool_calls alone, no finish reason, no
	// usage. Such a chunk may be dropped or moved without losing anything
	// but its entry.
	alone bool
	// named is set when the entry carries an id or a name.
	named bool
	// args is the entry's argument fragment, present tells whether it
	// has one.
	args    string
	present bool
	// text is set when the chunk carries visible text: textAlone when
	// it carries nothing else (a delta of content alone, no finish
	// reason, no usage).
	text, textAlone bool
}

// readChat reads a Chat Completions body into chunks, or reports false
// when it is not plain SSE, has several choices, or an entry without an
// index.
func readChat(body []byte) ([]chatChunk, bool) {
	plain, ok := parseSSE(body)
	if !ok {
		return nil, false
	}
	out := make([]chatChunk, len(plain))
	for i, p := range plain {
		out[i] = chatChunk{sseEvent: p, call: -1}
		if p.name != "" {
			return nil, false
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
			return nil, false
		}
		if len(c.Choices) > 1 {
			return nil, false
		}
		if len(c.Choices) == 0 {
			continue
		}
		ch := c.Choices[0]
		noUsage := len(c.Usage) == 0 || string(c.Usage) == "null"
		if raw, ok := ch.Delta["content"]; ok {
			var text *string
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, false
			}
			out[i].text = text != nil && *text != ""
			out[i].textAlone = out[i].text && len(ch.Delta) == 1 && ch.FinishReason == nil && noUsage
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
				return nil, false
			}
		}
		out[i].entries = len(entries)
		if len(entries) == 0 {
			continue
		}
		for _, e := range entries {
			if e.Index == nil {
				return nil, false
			}
		}
		e := entries[0]
		out[i].call = *e.Index
		out[i].named = e.ID != "" || e.Function.Name != ""
		if e.Function.Arguments != nil {
			out[i].args, out[i].present = *e.Function.Arguments, true
		}
		out[i].alone = len(entries) == 1 && len(ch.Delta) == 1 && ch.FinishReason == nil && noUsage
	}
	return out, true
}

// onChat applies an edit of a Chat Completions or Mistral stream.
func onChat(edit func(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool)) func(Variant, string, string) (Variant, Step, bool) {
	return func(v Variant, protocol, _ string) (Variant, Step, bool) {
		if streamEvents(protocol) != providers.EventsChatChunks || len(v.Scenario.Body) == 0 {
			return v, Step{}, false
		}
		cs, ok := readChat(v.Scenario.Body)
		if !ok {
			return v, Step{}, false
		}
		out, sc, step, ok := edit(cs, v.Scenario)
		if !ok {
			return v, Step{}, false
		}
		var plain []sseEvent
		for _, c := range out {
			plain = append(plain, c.sseEvent)
		}
		return rewritten(v, sc, plain, step)
	}
}

// chatCalls returns the call indices in order of first appearance.
func chatCalls(cs []chatChunk) []int {
	var out []int
	for _, c := range cs {
		if c.entries > 0 && !slices.Contains(out, c.call) {
			out = append(out, c.call)
		}
	}
	return out
}

// movable reports whether every chunk with call entries carries one
// entry alone, so that chunks can be dropped or reordered whole.
func movable(cs []chatChunk) bool {
	for _, c := range cs {
		if c.entries > 0 && !c.alone {
			return false
		}
	}
	return true
}

func chatRenumber(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	calls := chatCalls(cs)
	to := map[int]int{}
	changed := false
	for i, x := range calls {
		to[x] = i
		changed = changed || x != i
	}
	if !changed {
		return nil, nil, Step{}, false
	}
	out := slices.Clone(cs)
	for i, c := range out {
		for k := range c.entries {
			var e struct {
				Index int `json:"index"`
			}
			s, end, ok := span(c.data, "choices", 0, "delta", "tool_calls", k)
			if !ok || json.Unmarshal(c.data[s:end], &e) != nil {
				return nil, nil, Step{}, false
			}
			data, ok := splice(c.data, []byte(strconv.Itoa(to[e.Index])), "choices", 0, "delta", "tool_calls", k, "index")
			if !ok {
				return nil, nil, Step{}, false
			}
			out[i].data = data
			c.data = data
		}
	}
	return out, sc, Step{Has: "tool call indices " + joinInts(calls), Becomes: "tool call indices renumbered from 0 (" + joinInts(chatCalls(renumbered(cs, to))) + ")"}, true
}

// renumbered returns the chunks' call indices mapped by to.
func renumbered(cs []chatChunk, to map[int]int) []chatChunk {
	out := slices.Clone(cs)
	for i := range out {
		if out[i].entries > 0 {
			out[i].call = to[out[i].call]
		}
	}
	return out
}

func chatDeinterleave(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	calls := chatCalls(cs)
	var seq []int
	for _, c := range cs {
		if c.entries > 0 && (len(seq) == 0 || seq[len(seq)-1] != c.call) {
			seq = append(seq, c.call)
		}
	}
	if len(seq) == len(calls) || !movable(cs) {
		return nil, nil, Step{}, false
	}
	var out []chatChunk
	done := map[int]bool{}
	for _, c := range cs {
		switch {
		case c.entries == 0:
			out = append(out, c)
		case !done[c.call]:
			done[c.call] = true
			for _, d := range cs {
				if d.entries > 0 && d.call == c.call {
					out = append(out, d)
				}
			}
		}
	}
	return out, sc, Step{Has: "tool call chunks interleaved (call order " + joinInts(seq) + ")", Becomes: "each call's chunks together"}, true
}

func chatOneCall(cs []chatChunk, sc *scenarios.Scenario) ([]chatChunk, *scenarios.Scenario, Step, bool) {
	calls := chatCalls(cs)
	if len(calls) < 2 || len(sc.Want.Calls) < 2 || !movable(cs) {
		return nil, nil, Step{}, false
	}
	var out []chatChunk
	for _, c := range cs {
		if c.entries == 0 || c.call == calls[0] {
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
		if c.entries == 0 || !c.present {
			continue
		}
		if _, ok := first[c.call]; !ok {
			first[c.call] = i
		} else if c.entries > 1 || !c.alone || c.named {
			return nil, nil, Step{}, false
		}
		whole[c.call] += c.args
		if c.args != "" {
			count[c.call]++
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
		if c.entries > 0 && c.present {
			if first[c.call] != i {
				continue
			}
			text, _ := json.Marshal(whole[c.call])
			data, ok := splice(c.data, text, "choices", 0, "delta", "tool_calls", 0, "function", "arguments")
			if !ok {
				return nil, nil, Step{}, false
			}
			c.data = data
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
