package adaptertest

import (
	"bytes"
	"encoding/json"

	"github.com/toolconform/conform/core"
)

// IsSSE reports whether a response body is an SSE stream: its first
// non-blank line is an event: or data: field.
func IsSSE(body []byte) bool {
	b := bytes.TrimSpace(body)
	return bytes.HasPrefix(b, []byte("event:")) || bytes.HasPrefix(b, []byte("data:"))
}

// CallSum is a call as a golden summary shows it.
type CallSum struct {
	ID     string `json:"id"`
	ItemID string `json:"item_id,omitempty"`
	Name   string `json:"name"`
	Args   string `json:"args"`
}

// Summary is what a response says, the same for streams and bodies, as a
// golden file keeps it.
type Summary struct {
	ID             string               `json:"id,omitempty"`
	Model          string               `json:"model,omitempty"`
	Text           string               `json:"text,omitempty"`
	Thinking       string               `json:"thinking,omitempty"`
	Signatures     []string             `json:"signatures,omitempty"`
	Calls          []CallSum            `json:"calls,omitempty"`
	Incomplete     []CallSum            `json:"incomplete,omitempty"`
	Finish         core.FinishReason    `json:"finish,omitempty"`
	ProviderFinish string               `json:"provider_finish,omitempty"`
	Usage          *core.Usage          `json:"usage,omitempty"`
	Errors         []core.ProviderError `json:"errors,omitempty"`
	DecodeError    string               `json:"decode_error,omitempty"`
}

// SummarizeResponse summarises a decoded body.
func SummarizeResponse(r *core.Response) Summary {
	s := Summary{ID: r.ID, Model: r.Model, Finish: r.Finish, ProviderFinish: r.ProviderFinish, Usage: r.Usage}
	for _, p := range r.Message.Parts {
		switch p.Kind {
		case core.PartText:
			s.Text += p.Text
		case core.PartThinking:
			s.Thinking += p.Text
			if p.Signature != "" {
				s.Signatures = append(s.Signatures, p.Signature)
			}
		case core.PartToolCall:
			s.Calls = append(s.Calls, CallSum{ID: p.Call.ID, ItemID: p.Call.ItemID, Name: p.Call.Name, Args: string(p.Call.Arguments)})
		}
	}
	for _, c := range r.Incomplete {
		s.Incomplete = append(s.Incomplete, CallSum{ID: c.ID, ItemID: c.ItemID, Name: c.Name, Args: c.Original})
	}
	if r.Error != nil {
		s.Errors = append(s.Errors, *r.Error)
	}
	return s
}

// SummarizeEvents assembles events the simple way, independently of
// core.Collect: a call is found by id, else item id, else index; it is
// complete when it ended with arguments that are valid JSON, and
// incomplete otherwise. A delta for no known call is noted in DecodeError.
func SummarizeEvents(events []core.Event) Summary {
	var s Summary
	type acc struct {
		sum  CallSum
		idx  int
		done bool
	}
	var calls []*acc
	find := func(c *core.Chunk) *acc {
		for i := len(calls) - 1; i >= 0; i-- {
			a := calls[i]
			switch {
			case c.ID != "":
				if a.sum.ID == c.ID {
					return a
				}
			case c.ItemID != "":
				if a.sum.ItemID == c.ItemID {
					return a
				}
			case c.HasIndex:
				if a.idx == c.Index {
					return a
				}
			}
		}
		return nil
	}
	for _, e := range events {
		if e.ID != "" {
			s.ID = e.ID
		}
		if e.Model != "" {
			s.Model = e.Model
		}
		switch e.Kind {
		case core.EventText:
			s.Text += e.Text
		case core.EventThinking:
			s.Thinking += e.Text
			if e.Signature != "" {
				s.Signatures = append(s.Signatures, e.Signature)
			}
		case core.EventCallStart:
			a := &acc{sum: CallSum{ID: e.Chunk.ID, ItemID: e.Chunk.ItemID, Name: e.Chunk.Name, Args: e.Chunk.ArgsDelta}, idx: e.Chunk.Index}
			calls = append(calls, a)
		case core.EventCallDelta, core.EventCallEnd:
			a := find(e.Chunk)
			if a == nil {
				s.DecodeError = "chunk for unknown call"
				continue
			}
			a.sum.Args += e.Chunk.ArgsDelta
			if e.Chunk.Args != nil {
				a.sum.Args = *e.Chunk.Args
			}
			if e.Kind == core.EventCallEnd {
				a.done = true
			}
		case core.EventUsage:
			s.Usage = e.Usage
		case core.EventFinish:
			s.Finish, s.ProviderFinish = e.Finish, e.ProviderFinish
		case core.EventError:
			s.Errors = append(s.Errors, *e.Error)
		}
	}
	for _, a := range calls {
		if a.done && json.Valid([]byte(a.sum.Args)) {
			s.Calls = append(s.Calls, a.sum)
		} else {
			s.Incomplete = append(s.Incomplete, a.sum)
		}
	}
	return s
}
