package reduce

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// The simplifications of a canonical case (events.json, served in every
// protocol by the protocol's own encoder) edit the events; one applies to
// a protocol only where the encoded bytes change.

// callKeys names the call each event belongs to, "" for an event that is
// not a call event: its turn and index when it has one (an event with
// another id on the same index starts another call), else its id. It
// reports false when a call event names no call.
func callKeys(evs []core.Event) ([]string, bool) {
	keys := make([]string, len(evs))
	type onIndex struct {
		id  string
		gen int
	}
	current := map[[2]int]onIndex{}
	for i, ev := range evs {
		ch := ev.Chunk
		switch {
		case ch == nil || (ev.Kind != core.EventCallStart && ev.Kind != core.EventCallDelta && ev.Kind != core.EventCallEnd):
		case ch.HasIndex:
			at := [2]int{ch.Turn, ch.Index}
			cur, ok := current[at]
			if ok && ch.ID != "" && ch.ID != cur.id {
				cur = onIndex{id: ch.ID, gen: cur.gen + 1}
			} else if !ok {
				cur = onIndex{id: ch.ID}
			}
			current[at] = cur
			keys[i] = fmt.Sprintf("%d/%d#%d", ch.Turn, ch.Index, cur.gen)
		case ch.ID != "":
			keys[i] = "id " + ch.ID
		default:
			return nil, false
		}
	}
	return keys, true
}

// callOrder returns the call keys in order of first appearance.
func callOrder(keys []string) []string {
	var out []string
	for _, k := range keys {
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// onEvents applies an edit of a canonical case's events, where the
// protocol's encoder writes different bytes for the result.
func onEvents(edit func(evs []core.Event, keys []string, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool)) form {
	return func(v Variant, protocol string) (Variant, Step, string, bool) {
		sc := v.Scenario
		if len(sc.Body) > 0 || len(sc.Events) == 0 {
			return v, Step{}, "", false
		}
		keys, ok := callKeys(sc.Events)
		if !ok {
			return v, Step{}, "a call event of the case names no call (no index, no id)", true
		}
		out, c, step, ok := edit(slices.Clone(sc.Events), keys, sc)
		if !ok || len(out) == 0 {
			return v, Step{}, declined, true
		}
		if out[0].ID == "" && out[0].Model == "" {
			// The response id and model ride on the first event.
			out[0].ID, out[0].Model = sc.Events[0].ID, sc.Events[0].Model
		}
		before, err1 := encode(protocol, sc.Events)
		after, err2 := encode(protocol, out)
		switch {
		case err1 != nil:
			return v, Step{}, "conform's encoder refuses the case: " + err1.Error(), true
		case err2 != nil:
			return v, Step{}, "conform's encoder refuses the simplified events: " + err2.Error(), true
		case bytes.Equal(before, after):
			return v, Step{}, "conform's " + protocol + " encoder writes the same bytes for the simplified events", true
		}
		cc := *c
		cc.Events = out
		v.Scenario = &cc
		return v, step, "", true
	}
}

func encode(protocol string, evs []core.Event) ([]byte, error) {
	a, err := providers.Lookup(protocol)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = a.EncodeStream(&b, evs)
	return b.Bytes(), err
}

func withChunk(ev core.Event, ch core.Chunk) core.Event {
	ev.Chunk = &ch
	return ev
}

func eventsDeinterleave(evs []core.Event, keys []string, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	order := callOrder(keys)
	var seq []string
	for _, k := range keys {
		if k != "" && (len(seq) == 0 || seq[len(seq)-1] != k) {
			seq = append(seq, k)
		}
	}
	if len(seq) == len(order) {
		return nil, nil, Step{}, false
	}
	var out []core.Event
	done := map[string]bool{}
	for i, ev := range evs {
		k := keys[i]
		switch {
		case k == "":
			out = append(out, ev)
		case !done[k]:
			done[k] = true
			for j, e := range evs {
				if keys[j] == k {
					out = append(out, e)
				}
			}
		}
	}
	return out, sc, Step{Has: fmt.Sprintf("call events interleaved (%d calls in %d alternating runs)", len(order), len(seq)), Becomes: "each call's events together"}, true
}

// eventsRenumber gives each call its own index, 0, 1, … in order of
// first appearance: a skipped index closes up, and two calls sent on one
// index with different ids get two.
func eventsRenumber(evs []core.Event, keys []string, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	order := callOrder(keys)
	to := map[string]int{}
	for i, k := range order {
		to[k] = i
	}
	wire := map[string]int{}
	changed := false
	for i, ev := range evs {
		k := keys[i]
		if k == "" || !ev.Chunk.HasIndex {
			continue
		}
		if _, ok := wire[k]; !ok {
			wire[k] = ev.Chunk.Index
		}
		if ev.Chunk.Index != to[k] {
			changed = true
			ch := *ev.Chunk
			ch.Index = to[k]
			evs[i] = withChunk(ev, ch)
		}
	}
	if !changed {
		return nil, nil, Step{}, false
	}
	var before, after []int
	for _, k := range order {
		if w, ok := wire[k]; ok {
			before, after = append(before, w), append(after, to[k])
		}
	}
	has := "call indices " + joinInts(before)
	if n := len(before) - len(distinct(before)); n > 0 {
		has += fmt.Sprintf(" (%d call(s) sent on an index another call holds, with another id)", n)
	}
	return evs, sc, Step{Has: has, Becomes: "call indices renumbered from 0 (" + joinInts(after) + ")"}, true
}

func eventsNoText(evs []core.Event, keys []string, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	if len(callOrder(keys)) == 0 {
		return nil, nil, Step{}, false
	}
	var out []core.Event
	n := 0
	for _, ev := range evs {
		if ev.Kind == core.EventText || ev.Kind == core.EventThinking {
			n++
			continue
		}
		out = append(out, ev)
	}
	if n == 0 {
		return nil, nil, Step{}, false
	}
	c := *sc
	if c.Want.Text != nil {
		empty := ""
		c.Want.Text = &empty
	}
	return out, &c, Step{Has: fmt.Sprintf("%d text or thinking event(s)", n), Becomes: "text and thinking removed"}, true
}

func eventsOneCall(evs []core.Event, keys []string, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	order := callOrder(keys)
	if len(order) < 2 || len(sc.Want.Calls) < 2 {
		return nil, nil, Step{}, false
	}
	var out []core.Event
	for i, ev := range evs {
		if k := keys[i]; k == "" || k == order[0] {
			out = append(out, ev)
		}
	}
	c := *sc
	c.Want.Calls = sc.Want.Calls[:1]
	return out, &c, Step{Has: strconv.Itoa(len(order)) + " tool calls", Becomes: "one call (the first)"}, true
}

func eventsWholeArguments(evs []core.Event, keys []string, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	whole := map[string]string{}
	count := map[string]int{}
	for i, ev := range evs {
		if ev.Kind == core.EventCallDelta && ev.Chunk.ArgsDelta != "" {
			k := keys[i]
			whole[k] += ev.Chunk.ArgsDelta
			count[k]++
		}
	}
	most := 0
	for _, n := range count {
		most = max(most, n)
	}
	if most < 2 {
		return nil, nil, Step{}, false
	}
	var out []core.Event
	seen := map[string]bool{}
	for i, ev := range evs {
		if ev.Kind == core.EventCallDelta && ev.Chunk.ArgsDelta != "" {
			k := keys[i]
			if seen[k] {
				continue
			}
			seen[k] = true
			ch := *ev.Chunk
			ch.ArgsDelta = whole[k]
			ev = withChunk(ev, ch)
		}
		out = append(out, ev)
	}
	var frags []string
	for _, k := range callOrder(keys) {
		if n, ok := count[k]; ok {
			frags = append(frags, strconv.Itoa(n))
		}
	}
	return out, sc, Step{Has: "arguments in fragments (" + strings.Join(frags, ", ") + " per call)", Becomes: "whole arguments in one fragment per call"}, true
}
