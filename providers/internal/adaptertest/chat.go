package adaptertest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
)

// ChatCall is a call as the golden files of the Chat Completions dialects
// (openai-chat, mistral) show it. Original is set for a repaired call and
// for one without arguments.
type ChatCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Repaired  bool            `json:"repaired,omitempty"`
	Original  *string         `json:"original,omitempty"`
}

// ChatSummary is what a Chat Completions golden file records of one
// decoded response or stream: the calls and everything around them, and
// for a stream how many events of each kind it gave.
type ChatSummary struct {
	Kind           string              `json:"kind"`
	ID             string              `json:"id,omitempty"`
	Model          string              `json:"model,omitempty"`
	Thinking       string              `json:"thinking,omitempty"`
	Text           string              `json:"text,omitempty"`
	Calls          []ChatCall          `json:"calls"`
	Incomplete     []ChatCall          `json:"incomplete,omitempty"`
	Finish         core.FinishReason   `json:"finish,omitempty"`
	ProviderFinish string              `json:"provider_finish,omitempty"`
	Usage          *core.Usage         `json:"usage,omitempty"`
	Error          *core.ProviderError `json:"error,omitempty"`
	Events         map[string]int      `json:"events,omitempty"`
}

// ChatCalls returns calls as ChatCall values, never nil.
func ChatCalls(cs []core.Call) []ChatCall {
	out := []ChatCall{}
	for _, c := range cs {
		g := ChatCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Repaired: c.Repaired}
		if c.Repaired || c.Arguments == nil {
			o := c.Original
			g.Original = &o
		}
		out = append(out, g)
	}
	return out
}

// SummarizeChatResponse summarises a decoded Chat Completions body.
func SummarizeChatResponse(r *core.Response) ChatSummary {
	s := ChatSummary{Kind: "response", ID: r.ID, Model: r.Model, Text: r.Text(), Calls: ChatCalls(r.Calls()), Finish: r.Finish, ProviderFinish: r.ProviderFinish, Usage: r.Usage, Error: r.Error}
	for _, p := range r.Message.Parts {
		if p.Kind == core.PartThinking {
			s.Thinking += p.Text
		}
	}
	if len(r.Incomplete) > 0 {
		s.Incomplete = ChatCalls(r.Incomplete)
	}
	return s
}

// AssembleChat is a test-only reading of Chat Completions stream events
// into calls, independent of core.Collect: a chunk with an id goes to the
// call with that id; one without an id but with an index, to the call with
// that index; one with neither, to the last call; else it opens a call.
// Names are set, never joined; argument text is appended (whole Args
// replace it). A call whose arguments are blank reads as {} (C01, as the
// core Buffer reads it); one whose arguments are not valid JSON is
// incomplete, with its text as Original. It is deliberately simple, enough
// to state the calls of a recording in a golden file; the core Buffer is
// the real router.
func AssembleChat(evs []core.Event) ChatSummary {
	s := ChatSummary{Kind: "stream", Events: map[string]int{}}
	type acc struct {
		id, name string
		idx      int
		hasIdx   bool
		args     strings.Builder
	}
	var calls []*acc
	for _, ev := range evs {
		s.Events[string(ev.Kind)]++
		if ev.ID != "" && s.ID == "" {
			s.ID, s.Model = ev.ID, ev.Model
		}
		switch ev.Kind {
		case core.EventText:
			s.Text += ev.Text
		case core.EventThinking:
			s.Thinking += ev.Text
		case core.EventCallStart, core.EventCallDelta:
			k := ev.Chunk
			var cur *acc
			for _, c := range calls {
				if k.ID != "" && c.id == k.ID || k.ID == "" && k.HasIndex && c.hasIdx && c.idx == k.Index {
					cur = c
				}
			}
			if cur == nil && k.ID == "" && !k.HasIndex && len(calls) > 0 {
				cur = calls[len(calls)-1]
			}
			if cur == nil {
				cur = &acc{id: k.ID, idx: k.Index, hasIdx: k.HasIndex}
				calls = append(calls, cur)
			}
			if k.Name != "" {
				cur.name = k.Name
			}
			if k.Args != nil {
				cur.args.Reset()
				cur.args.WriteString(*k.Args)
			}
			cur.args.WriteString(k.ArgsDelta)
		case core.EventFinish:
			s.Finish, s.ProviderFinish = ev.Finish, ev.ProviderFinish
		case core.EventUsage:
			s.Usage = ev.Usage
		case core.EventError:
			s.Error = ev.Error
		}
	}
	s.Calls = []ChatCall{}
	for _, c := range calls {
		args := c.args.String()
		g := ChatCall{ID: c.id, Name: c.name}
		switch {
		case strings.TrimSpace(args) == "":
			g.Arguments = json.RawMessage("{}")
		case json.Valid([]byte(args)):
			g.Arguments = json.RawMessage(args)
		default:
			g.Original = &args
			s.Incomplete = append(s.Incomplete, g)
			continue
		}
		s.Calls = append(s.Calls, g)
	}
	return s
}

// EventLog describes each event on one line: its kind and, for a call
// chunk, its id, name, index and argument text. A golden file that keeps
// it pins down how a stream was cut into events, not only what it says.
func EventLog(evs []core.Event) []string {
	var out []string
	for _, ev := range evs {
		desc := string(ev.Kind)
		if ev.Chunk != nil {
			desc += fmt.Sprintf(" id=%q name=%q index=%d has_index=%v args=%q", ev.Chunk.ID, ev.Chunk.Name, ev.Chunk.Index, ev.Chunk.HasIndex, ev.Chunk.ArgsDelta)
		}
		out = append(out, desc)
	}
	return out
}
