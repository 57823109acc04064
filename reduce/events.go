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

// callKey names the call an event belongs to: its turn and index when it
// has one, else its id; "" when it has neither or is not a call event.
func callKey(ev core.Event) string {
	ch := ev.Chunk
	switch {
	case ch == nil || (ev.Kind != core.EventCallStart && ev.Kind != core.EventCallDelta && ev.Kind != core.EventCallEnd):
		return ""
	case ch.HasIndex:
		return fmt.Sprintf("%d/%d", ch.Turn, ch.Index)
	case ch.ID != "":
		return "id " + ch.ID
	}
	return ""
}

// callOrder returns the call keys in order of first appearance, or false
// when a call event names no call.
func callOrder(evs []core.Event) ([]string, bool) {
	var out []string
	for _, ev := range evs {
		if ev.Chunk == nil || ev.Kind == core.EventText || ev.Kind == core.EventThinking {
			continue
		}
		k := callKey(ev)
		if k == "" {
			return nil, false
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, true
}

// onEvents applies an edit of a canonical case's events, where the
// protocol's encoder writes different bytes for the result.
func onEvents(edit func(evs []core.Event, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool)) func(Variant, string, string) (Variant, Step, bool) {
	return func(v Variant, protocol, _ string) (Variant, Step, bool) {
		sc := v.Scenario
		if len(sc.Body) > 0 || len(sc.Events) == 0 {
			return v, Step{}, false
		}
		if _, ok := callOrder(sc.Events); !ok {
			return v, Step{}, false
		}
		out, c, step, ok := edit(slices.Clone(sc.Events), sc)
		if !ok || len(out) == 0 {
			return v, Step{}, false
		}
		if out[0].ID == "" && out[0].Model == "" {
			// The response id and model ride on the first event.
			out[0].ID, out[0].Model = sc.Events[0].ID, sc.Events[0].Model
		}
		before, err1 := encode(protocol, sc.Events)
		after, err2 := encode(protocol, out)
		if err1 != nil || err2 != nil || bytes.Equal(before, after) {
			return v, Step{}, false
		}
		cc := *c
		cc.Events = out
		v.Scenario = &cc
		return v, step, true
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

func eventsDeinterleave(evs []core.Event, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	order, _ := callOrder(evs)
	var seq []string
	for _, ev := range evs {
		if k := callKey(ev); k != "" && (len(seq) == 0 || seq[len(seq)-1] != k) {
			seq = append(seq, k)
		}
	}
	if len(seq) == len(order) {
		return nil, nil, Step{}, false
	}
	var out []core.Event
	done := map[string]bool{}
	for _, ev := range evs {
		k := callKey(ev)
		switch {
		case k == "":
			out = append(out, ev)
		case !done[k]:
			done[k] = true
			for _, e := range evs {
				if callKey(e) == k {
					out = append(out, e)
				}
			}
		}
	}
	return out, sc, Step{Has: fmt.Sprintf("call events interleaved (%d calls in %d alternating runs)", len(order), len(seq)), Becomes: "each call's events together"}, true
}

// indices returns the call indices in order of first appearance.
func indices(evs []core.Event) []int {
	var out []int
	for _, ev := range evs {
		if callKey(ev) != "" && ev.Chunk.HasIndex && !slices.Contains(out, ev.Chunk.Index) {
			out = append(out, ev.Chunk.Index)
		}
	}
	return out
}

func eventsRenumber(evs []core.Event, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	idx := indices(evs)
	to := map[int]int{}
	changed := false
	for i, x := range idx {
		to[x] = i
		changed = changed || x != i
	}
	if !changed {
		return nil, nil, Step{}, false
	}
	for i, ev := range evs {
		if callKey(ev) != "" && ev.Chunk.HasIndex {
			ch := *ev.Chunk
			ch.Index = to[ch.Index]
			evs[i] = withChunk(ev, ch)
		}
	}
	return evs, sc, Step{Has: "call indices " + joinInts(idx), Becomes: "call indices renumbered from 0 (" + joinInts(indices(evs)) + ")"}, true
}

func eventsNoText(evs []core.Event, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	order, _ := callOrder(evs)
	if len(order) == 0 {
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

func eventsOneCall(evs []core.Event, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	order, _ := callOrder(evs)
	if len(order) < 2 || len(sc.Want.Calls) < 2 {
		return nil, nil, Step{}, false
	}
	var out []core.Event
	for _, ev := range evs {
		if k := callKey(ev); k == "" || k == order[0] {
			out = append(out, ev)
		}
	}
	c := *sc
	c.Want.Calls = sc.Want.Calls[:1]
	return out, &c, Step{Has: strconv.Itoa(len(order)) + " tool calls", Becomes: "one call (the first)"}, true
}

func eventsWholeArguments(evs []core.Event, sc *scenarios.Scenario) ([]core.Event, *scenarios.Scenario, Step, bool) {
	whole := map[string]string{}
	count := map[string]int{}
	for _, ev := range evs {
		if ev.Kind == core.EventCallDelta && ev.Chunk.ArgsDelta != "" {
			k := callKey(ev)
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
	for _, ev := range evs {
		if ev.Kind == core.EventCallDelta && ev.Chunk.ArgsDelta != "" {
			k := callKey(ev)
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
	order, _ := callOrder(evs)
	var frags []string
	for _, k := range order {
		if n, ok := count[k]; ok {
			frags = append(frags, strconv.Itoa(n))
		}
	}
	return out, sc, Step{Has: "arguments in fragments (" + strings.Join(frags, ", ") + " per call)", Becomes: "whole arguments in one fragment per call"}, true
}
