package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/toolconform/conform/core"
)

// Limits on what collect keeps, so that a runaway decoder cannot exhaust
// memory.
const (
	maxEvents    = 1 << 20
	maxCalls     = 1 << 12
	maxCallBytes = 16 << 20
)

// ErrLimit is returned by collect when a stream exceeds one of its limits.
var ErrLimit = errors.New("stream exceeds a scenario engine limit")

// collect drains an event stream into a Response, following the routing
// rules of core.Chunk literally: a chunk names its call by ID, else by
// ItemID, else by (Turn, Index) when HasIndex is set, else it continues the
// most recently started call of its turn. A call is complete only when a
// call_end event or a Done chunk closes it; calls still open when the
// stream ends (at io.EOF or at an error) go to Incomplete, never to the
// message. The error that ended the stream, if not io.EOF, is returned
// with the response collected up to it.
func collect(s core.EventStream) (*core.Response, error) {
	c := &collector{resp: &core.Response{Message: core.Message{Role: core.RoleAssistant}}}
	for n := 0; ; n++ {
		if n >= maxEvents {
			return c.finish(fmt.Errorf("collect: %w: more than %d events", ErrLimit, maxEvents))
		}
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return c.finish(nil)
		}
		if err != nil {
			return c.finish(err)
		}
		if err := c.add(ev); err != nil {
			return c.finish(err)
		}
	}
}

type openCall struct {
	call    core.Call
	args    []byte
	hasArgs bool
	patch   map[string]json.RawMessage
	turn    int
	index   int
	indexed bool
	done    bool
	part    int // index in resp.Message.Parts of its placeholder
}

type collector struct {
	resp  *core.Response
	calls []*openCall
	last  map[int]*openCall // most recently started call per turn
}

func (c *collector) add(ev core.Event) error {
	r := c.resp
	if ev.ID != "" && r.ID == "" {
		r.ID = ev.ID
	}
	if ev.Model != "" && r.Model == "" {
		r.Model = ev.Model
	}
	switch ev.Kind {
	case core.EventText, core.EventThinking, core.EventPlan:
		kind := map[core.EventKind]core.PartKind{core.EventText: core.PartText, core.EventThinking: core.PartThinking, core.EventPlan: core.PartPlan}[ev.Kind]
		parts := r.Message.Parts
		if n := len(parts); n > 0 && parts[n-1].Kind == kind {
			parts[n-1].Text += ev.Text
			if ev.Signature != "" {
				parts[n-1].Signature = ev.Signature
			}
		} else if ev.Text != "" || ev.Signature != "" {
			r.Message.Parts = append(parts, core.Part{Kind: kind, Text: ev.Text, Signature: ev.Signature})
		}
	case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
		if ev.Chunk == nil {
			return fmt.Errorf("collect: %s event without a chunk", ev.Kind)
		}
		return c.chunk(*ev.Chunk, ev.Kind)
	case core.EventUsage:
		if ev.Usage != nil {
			u := *ev.Usage
			r.Usage = &u
		}
	case core.EventFinish:
		r.Finish, r.ProviderFinish = ev.Finish, ev.ProviderFinish
	case core.EventError:
		if ev.Error != nil {
			e := *ev.Error
			r.Error = &e
		} else {
			r.Error = &core.ProviderError{Message: "error event without an error"}
		}
	default:
		return fmt.Errorf("collect: unknown event kind %q", ev.Kind)
	}
	return nil
}

func (c *collector) route(ch core.Chunk, kind core.EventKind) *openCall {
	if kind == core.EventCallStart || ch.Start {
		return nil
	}
	for i := len(c.calls) - 1; i >= 0; i-- {
		oc := c.calls[i]
		switch {
		case ch.ID != "":
			if oc.call.ID == ch.ID {
				return oc
			}
		case ch.ItemID != "":
			if oc.call.ItemID == ch.ItemID {
				return oc
			}
		case ch.HasIndex:
			if oc.indexed && oc.turn == ch.Turn && oc.index == ch.Index {
				return oc
			}
		}
	}
	if ch.ID == "" && ch.ItemID == "" && !ch.HasIndex {
		return c.last[ch.Turn]
	}
	return nil
}

func (c *collector) chunk(ch core.Chunk, kind core.EventKind) error {
	oc := c.route(ch, kind)
	if oc == nil {
		if len(c.calls) >= maxCalls {
			return fmt.Errorf("collect: %w: more than %d calls", ErrLimit, maxCalls)
		}
		oc = &openCall{turn: ch.Turn, index: ch.Index, indexed: ch.HasIndex, part: len(c.resp.Message.Parts)}
		// A placeholder keeps the call's place among text parts.
		c.resp.Message.Parts = append(c.resp.Message.Parts, core.Part{Kind: core.PartToolCall})
		c.calls = append(c.calls, oc)
		if c.last == nil {
			c.last = map[int]*openCall{}
		}
		c.last[ch.Turn] = oc
	}
	if ch.ID != "" {
		oc.call.ID = ch.ID
	}
	if ch.ItemID != "" {
		oc.call.ItemID = ch.ItemID
	}
	if ch.Name != "" {
		oc.call.Name = ch.Name
	}
	if ch.Signature != "" {
		oc.call.Signature = ch.Signature
	}
	if ch.Args != nil {
		oc.args = append(oc.args[:0], *ch.Args...)
		oc.hasArgs = true
	}
	if ch.ArgsDelta != "" {
		oc.args = append(oc.args, ch.ArgsDelta...)
		oc.hasArgs = true
	}
	if len(oc.args) > maxCallBytes {
		return fmt.Errorf("collect: %w: call %q has more than %d bytes of arguments", ErrLimit, oc.call.ID, maxCallBytes)
	}
	if len(ch.Patch) > 0 {
		if oc.patch == nil {
			oc.patch = map[string]json.RawMessage{}
		}
		maps.Copy(oc.patch, ch.Patch)
		oc.hasArgs = true
	}
	if ch.Done || kind == core.EventCallEnd {
		oc.done = true
	}
	return nil
}

func (c *collector) finish(err error) (*core.Response, error) {
	r := c.resp
	var parts []core.Part
	placeholder := map[int]*openCall{}
	for _, oc := range c.calls {
		placeholder[oc.part] = oc
	}
	for i, p := range r.Message.Parts {
		oc, ok := placeholder[i]
		if !ok {
			parts = append(parts, p)
			continue
		}
		call := oc.call
		call.Arguments = oc.arguments()
		if oc.done {
			parts = append(parts, core.CallPart(call))
		} else {
			r.Incomplete = append(r.Incomplete, call)
		}
	}
	r.Message.Parts = parts
	return r, err
}

// arguments returns the call's argument text; patches are merged into the
// accumulated object.
func (oc *openCall) arguments() json.RawMessage {
	if oc.patch == nil {
		return json.RawMessage(oc.args)
	}
	obj := map[string]json.RawMessage{}
	if len(oc.args) > 0 {
		if err := json.Unmarshal(oc.args, &obj); err != nil {
			return json.RawMessage(oc.args)
		}
	}
	maps.Copy(obj, oc.patch)
	b, err := json.Marshal(obj)
	if err != nil {
		return json.RawMessage(oc.args)
	}
	return b
}
