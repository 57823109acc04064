package adaptertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// IndexSummary is the part of a decoded response that the golden files of
// the index-routed protocols (Cohere, Bedrock) pin down: whole calls, text,
// thinking and plan, finish, usage and error.
type IndexSummary struct {
	ID             string              `json:"id,omitempty"`
	Text           string              `json:"text,omitempty"`
	Thinking       string              `json:"thinking,omitempty"`
	Plan           string              `json:"plan,omitempty"`
	Calls          []core.Call         `json:"calls"`
	Finish         string              `json:"finish_reason,omitempty"`
	ProviderFinish string              `json:"provider_finish_reason,omitempty"`
	Usage          *core.Usage         `json:"usage,omitempty"`
	Error          *core.ProviderError `json:"error,omitempty"`
}

// SummarizeByIndex summarises a decoded body.
func SummarizeByIndex(r *core.Response) IndexSummary {
	s := IndexSummary{ID: r.ID, Text: r.Text(), Calls: r.Calls(), Finish: string(r.Finish), ProviderFinish: r.ProviderFinish, Usage: r.Usage, Error: r.Error}
	for _, p := range r.Message.Parts {
		switch p.Kind {
		case core.PartThinking:
			s.Thinking += p.Text
		case core.PartPlan:
			s.Plan += p.Text
		}
	}
	if s.Calls == nil {
		s.Calls = []core.Call{}
	}
	return s
}

// AssembleByIndex is a deliberately small accumulator, independent of
// core.Collect, for streams that give every call chunk an index: a start
// opens the call at its index (with its ArgsDelta, or Args), deltas append,
// Args replaces, an end finishes it. It fails on a chunk for no open call
// and on a call that never ends.
func AssembleByIndex(evs []core.Event) (IndexSummary, error) {
	s := IndexSummary{Calls: []core.Call{}}
	type open struct {
		pos  int
		args strings.Builder
		done bool
	}
	opens := map[int]*open{}
	for i, e := range evs {
		if e.ID != "" {
			s.ID = e.ID
		}
		switch e.Kind {
		case core.EventText:
			s.Text += e.Text
		case core.EventThinking:
			s.Thinking += e.Text
		case core.EventPlan:
			s.Plan += e.Text
		case core.EventCallStart:
			c := e.Chunk
			o := &open{pos: len(s.Calls)}
			opens[c.Index] = o
			s.Calls = append(s.Calls, core.Call{ID: c.ID, Name: c.Name})
			o.args.WriteString(c.ArgsDelta)
			if c.Args != nil {
				o.args.Reset()
				o.args.WriteString(*c.Args)
			}
		case core.EventCallDelta, core.EventCallEnd:
			o, ok := opens[e.Chunk.Index]
			if !ok || o.done {
				return s, fmt.Errorf("event %d: %s for index %d with no open call", i, e.Kind, e.Chunk.Index)
			}
			o.args.WriteString(e.Chunk.ArgsDelta)
			if e.Chunk.Args != nil {
				o.args.Reset()
				o.args.WriteString(*e.Chunk.Args)
			}
			if e.Kind == core.EventCallEnd {
				o.done = true
				s.Calls[o.pos].Arguments = json.RawMessage(o.args.String())
			}
		case core.EventUsage:
			s.Usage = e.Usage
		case core.EventFinish:
			s.Finish, s.ProviderFinish = string(e.Finish), e.ProviderFinish
		case core.EventError:
			s.Error = e.Error
		}
	}
	for idx, o := range opens {
		if !o.done {
			return s, fmt.Errorf("call at index %d never ended", idx)
		}
	}
	return s, nil
}

// Fataler is the part of testing.TB and *rapid.T that Compact needs.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Compact re-encodes JSON without insignificant white space, for comparing
// arguments as JSON; it fails the test on text that is not JSON.
func Compact(t Fataler, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("arguments %q are not JSON: %v", raw, err)
	}
	return buf.Bytes()
}

// ParseDropping parses a JSON object body and deletes the top-level fields
// in drop, the ones an adapter does not model.
func ParseDropping(t testing.TB, body []byte, drop []string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	for _, k := range drop {
		delete(m, k)
	}
	return m
}
