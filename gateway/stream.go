package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
	"github.com/toolconform/conform/sse"
)

// CheckStream checks the rules of a protocol's stream that its reference
// decoder forgives, because real providers never break them and a decoder
// should read what it can, but a gateway that writes the stream itself
// must keep: Anthropic content blocks opened in index order from 0, one at
// a time, their deltas of the block's type, each closed before the next
// opens, a tool_use start with an empty input, no empty text block, a
// stop_reason that agrees with the blocks (I05), message_start first and
// message_stop last; Chat Completions (and Mistral) call indexes from 0
// in order, a call's first chunk with its id and name, a finish_reason
// that agrees with the calls, and data: [DONE] last. Other protocols have
// no rule here beyond their decoders.
func CheckStream(protocol string, body []byte) []scenarios.Problem {
	p, _ := providers.Describe(protocol)
	switch p.SSE.Events {
	case providers.EventsMessages:
		return checkAnthropic(body)
	case providers.EventsChatChunks:
		return checkChat(body)
	}
	return nil
}

type streamChecker struct {
	problems []scenarios.Problem
}

func (c *streamChecker) add(rule, format string, args ...any) {
	if len(c.problems) < serve.MaxVerdictProblems {
		c.problems = append(c.problems, scenarios.Problem{Rule: rule, Message: fmt.Sprintf(format, args...), Contract: serve.Contracts[rule]})
	}
}

// events reads the SSE events of body; a framing error is a problem.
func (c *streamChecker) events(body []byte) []sse.Event {
	d := sse.NewDecoder(bytes.NewReader(body))
	var out []sse.Event
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			c.add("I01", "SSE framing at byte %d: %v", d.Offset(), err)
			return out
		}
		out = append(out, ev)
	}
}

func checkAnthropic(body []byte) []scenarios.Problem {
	var c streamChecker
	type block struct {
		kind    string
		text    bool // a non-empty text delta or start text
		stopped bool
		late    int // deltas after the stop
	}
	var blocks []block
	open := -1
	var stopReason string
	sawStart, sawStop, sawError := false, false, false
	for n, ev := range c.events(body) {
		if ev.Data == "" {
			continue
		}
		var e struct {
			Type         string `json:"type"`
			Index        *int   `json:"index"`
			ContentBlock *struct {
				Type  string          `json:"type"`
				Text  string          `json:"text"`
				Input json.RawMessage `json:"input"`
			} `json:"content_block"`
			Delta *struct {
				Type       string `json:"type"`
				Text       string `json:"text"`
				StopReason string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			c.add("I01", "event %d: not JSON: %v", n, err)
			continue
		}
		if sawStop {
			c.add("I01", "event %d (%s) after message_stop", n, e.Type)
		}
		switch e.Type {
		case "message_start":
			sawStart = true
		case "ping":
		case "error":
			sawError = true
		case "content_block_start":
			if e.Index == nil || e.ContentBlock == nil {
				c.add("I01", "event %d: content_block_start without index or content_block", n)
				continue
			}
			if *e.Index != len(blocks) {
				c.add("A21", "event %d: content block %d opened, want index %d", n, *e.Index, len(blocks))
			}
			if open >= 0 {
				c.add("A19", "event %d: content block %d opened while block %d is still open", n, *e.Index, open)
			}
			b := block{kind: e.ContentBlock.Type, text: e.ContentBlock.Text != ""}
			if b.kind == "tool_use" && compact(e.ContentBlock.Input) != "{}" {
				c.add("I01", "event %d: tool_use block %d starts with input %s, want {} (the input streams as input_json_delta)", n, *e.Index, compact(e.ContentBlock.Input))
			}
			blocks = append(blocks, b)
			open = *e.Index
		case "content_block_delta":
			if e.Index == nil || e.Delta == nil {
				c.add("I01", "event %d: content_block_delta without index or delta", n)
				continue
			}
			i := *e.Index
			if i < 0 || i >= len(blocks) {
				c.add("A21", "event %d: delta for content block %d, which was never opened", n, i)
				continue
			}
			if blocks[i].stopped {
				if blocks[i].late++; blocks[i].late == 1 {
					c.add("A19", "event %d: %s for content block %d after its content_block_stop", n, e.Delta.Type, i)
				}
			} else if i != open {
				c.add("A19", "event %d: delta for content block %d while block %d is open", n, i, open)
			}
			want := map[string][]string{"text": {"text_delta", "citations_delta"}, "tool_use": {"input_json_delta"}, "thinking": {"thinking_delta", "signature_delta"}}[blocks[i].kind]
			if want != nil && !contains(want, e.Delta.Type) {
				c.add("A20", "event %d: %s in a %s block", n, e.Delta.Type, blocks[i].kind)
			}
			if e.Delta.Type == "text_delta" && e.Delta.Text != "" {
				blocks[i].text = true
			}
		case "content_block_stop":
			if e.Index == nil || *e.Index < 0 || *e.Index >= len(blocks) {
				c.add("A21", "event %d: content_block_stop for a block never opened", n)
				continue
			}
			if blocks[*e.Index].stopped {
				c.add("A19", "event %d: content block %d stopped twice", n, *e.Index)
			}
			blocks[*e.Index].stopped = true
			if open == *e.Index {
				open = -1
			}
		case "message_delta":
			if e.Delta != nil && e.Delta.StopReason != "" {
				stopReason = e.Delta.StopReason
			}
		case "message_stop":
			sawStop = true
		}
	}
	if !sawStart {
		c.add("I01", "no message_start event")
	}
	if !sawStop && !sawError {
		c.add("I01", "no message_stop event at the end")
	}
	calls := 0
	for i, b := range blocks {
		if b.late > 1 {
			c.add("A19", "content block %d: %d deltas in all after its content_block_stop", i, b.late)
		}
		if !b.stopped && !sawError {
			c.add("I01", "content block %d never stopped", i)
		}
		if b.kind == "tool_use" {
			calls++
		}
		if b.kind == "text" && !b.text {
			c.add("I05", "content block %d is an empty text block", i)
		}
	}
	switch {
	case calls > 0 && stopReason != "tool_use" && stopReason != "max_tokens" && !sawError:
		c.add("I05", "stop_reason %q with %d tool_use block(s)", stopReason, calls)
	case calls == 0 && stopReason == "tool_use":
		c.add("F03", "stop_reason tool_use without a tool_use block")
	}
	return c.problems
}

func checkChat(body []byte) []scenarios.Problem {
	var c streamChecker
	type call struct{ id string }
	calls := map[int]*call{}
	next := 0
	finish := ""
	done, sawError := false, false
	for n, ev := range c.events(body) {
		if done {
			c.add("I01", "event %d after data: [DONE]", n)
		}
		if strings.TrimSpace(ev.Data) == "[DONE]" {
			done = true
			continue
		}
		if ev.Data == "" {
			continue
		}
		var chunk struct {
			Error   json.RawMessage `json:"error"`
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name string `json:"name"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
			c.add("I01", "event %d: not JSON: %v", n, err)
			continue
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			sawError = true
		}
		for _, ch := range chunk.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					c.add("A07", "event %d: a tool_calls entry without index", n)
					continue
				}
				i := *tc.Index
				cl, ok := calls[i]
				switch {
				case !ok && i != next:
					c.add("A21", "event %d: call index %d opened, want %d", n, i, next)
				case ok && tc.ID != "" && tc.ID != cl.id:
					c.add("A02", "event %d: call index %d carries id %q, opened as %q", n, i, tc.ID, cl.id)
				}
				if !ok {
					if tc.ID == "" || tc.Function.Name == "" {
						c.add("A09", "event %d: the first chunk of call %d lacks its id or name", n, i)
					}
					calls[i] = &call{id: tc.ID}
					next = max(next, i+1)
				}
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if !done && !sawError {
		c.add("I01", "no data: [DONE] at the end")
	}
	switch {
	case len(calls) > 0 && finish == "stop":
		c.add("I05", "finish_reason %q with %d call(s)", finish, len(calls))
	case len(calls) == 0 && finish == "tool_calls":
		c.add("F03", "finish_reason tool_calls without calls")
	}
	return c.problems
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
