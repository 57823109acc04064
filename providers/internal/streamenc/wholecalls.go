package streamenc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolconform/conform/core"
)

// WholeCall is a call gathered from its events by WholeCalls: what an
// encoder of a protocol that sends each call whole (Gemini, Ollama)
// writes at the call's end.
type WholeCall struct {
	// ID is the call's id, "" when its chunks were routed by index or
	// position only.
	ID string
	// Index is the index of the last chunk of the call that had one
	// (HasIndex).
	Index    int
	HasIndex bool
	// Name and Signature are the last non-empty ones of its chunks.
	Name, Signature string
	// Args are the call's arguments: the last whole Args, else the
	// argument deltas joined, else the patches merged into an object, else
	// nil.
	Args json.RawMessage
}

// WholeCalls gathers call events into whole calls. A chunk routes to its
// call by id, else by index (an index once seen with an id routes to that
// id), else to the call of the chunk before it; a Start chunk opens a new
// call. The zero value is ready.
type WholeCalls struct {
	open    map[string]*gathering
	byIndex map[int]string
	last    string
	// opened holds the calls in the order they opened, ended or not.
	opened []*gathering
}

type gathering struct {
	call  WholeCall
	text  []byte
	args  *string
	patch map[string]json.RawMessage
	ended bool
}

// Add takes a call event; when it ends the call (an end event, or a chunk
// with Done), it returns the whole call and true. A call event without a
// chunk is an error wrapping core.ErrMalformed.
func (w *WholeCalls) Add(ev core.Event) (WholeCall, bool, error) {
	c := ev.Chunk
	if c == nil {
		return WholeCall{}, false, fmt.Errorf("%w: %s event without a chunk", core.ErrMalformed, ev.Kind)
	}
	k := w.key(c)
	g := w.open[k]
	if g == nil || c.Start {
		g = &gathering{}
		if w.open == nil {
			w.open = map[string]*gathering{}
		}
		w.open[k] = g
		w.opened = append(w.opened, g)
	}
	w.last = k
	if c.ID != "" {
		g.call.ID = c.ID
	}
	if c.HasIndex {
		g.call.Index, g.call.HasIndex = c.Index, true
	}
	if c.Name != "" {
		g.call.Name = c.Name
	}
	if c.Signature != "" {
		g.call.Signature = c.Signature
	}
	g.text = append(g.text, c.ArgsDelta...)
	if c.Args != nil {
		v := *c.Args
		g.args = &v
	}
	for pk, pv := range c.Patch {
		if g.patch == nil {
			g.patch = map[string]json.RawMessage{}
		}
		g.patch[pk] = pv
	}
	if !c.Done && ev.Kind != core.EventCallEnd {
		return WholeCall{}, false, nil
	}
	delete(w.open, k)
	return g.end(), true, nil
}

// end ends call g and returns it whole.
func (g *gathering) end() WholeCall {
	g.ended = true
	switch {
	case g.args != nil:
		g.call.Args = json.RawMessage(*g.args)
	case len(g.text) > 0:
		g.call.Args = g.text
	case g.patch != nil:
		g.call.Args, _ = json.Marshal(g.patch)
	}
	return g.call
}

// Finish takes a finish event: as core.Collect does, a finish whose reason
// is not length, content_filter or error ends every open call that has a
// name; Finish returns them, in the order they opened, for the encoder to
// write before the finish, so that no call the events hold is dropped.
func (w *WholeCalls) Finish(reason core.FinishReason) []WholeCall {
	switch reason {
	case core.FinishLength, core.FinishContentFilter, core.FinishError:
		return nil
	}
	var ended []WholeCall
	for k, g := range w.open {
		if g.call.Name != "" {
			delete(w.open, k)
		}
	}
	for _, g := range w.opened {
		if !g.ended && g.call.Name != "" {
			ended = append(ended, g.end())
		}
	}
	return ended
}

// Unended returns an error naming the first call still open, which a
// protocol that sends each call whole cannot write: the encoder returns
// it rather than drop the call. It returns nil when every call ended.
func (w *WholeCalls) Unended() error {
	for _, g := range w.opened {
		if !g.ended {
			return fmt.Errorf("%w: call %q (%s) has no end, and a whole call cannot be written without one", core.ErrIncomplete, g.call.ID, g.call.Name)
		}
	}
	return nil
}

// key returns the routing key of a chunk's call.
func (w *WholeCalls) key(c *core.Chunk) string {
	switch {
	case c.ID != "":
		k := "id:" + c.ID
		if c.HasIndex {
			if w.byIndex == nil {
				w.byIndex = map[int]string{}
			}
			w.byIndex[c.Index] = k
		}
		return k
	case c.HasIndex:
		if k, ok := w.byIndex[c.Index]; ok {
			return k
		}
		return "ix:" + strconv.Itoa(c.Index)
	}
	return w.last
}
