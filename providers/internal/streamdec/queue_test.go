package streamdec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

func TestQueue(t *testing.T) {
	var q Queue
	q.Push(core.Event{Kind: core.EventText, Text: "a"})
	q.ID, q.Model = "r1", "m"
	q.Push(core.Event{Kind: core.EventText, Text: "b"})
	q.Push(core.Event{Kind: core.EventText, Text: "c"})
	var got []core.Event
	for {
		e, ok := q.Pop()
		if !ok {
			break
		}
		got = append(got, e)
	}
	want := []core.Event{{Kind: core.EventText, Text: "a"}, {Kind: core.EventText, Text: "b", ID: "r1", Model: "m"}, {Kind: core.EventText, Text: "c"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if q.Len() != 0 {
		t.Errorf("Len() = %d after draining", q.Len())
	}
	if !q.Stamped() {
		t.Error("Stamped() = false after the id went out")
	}
	// Drained storage is reused: a long stream of one-event batches keeps
	// the queue at one slot.
	for i := 0; i < 1000; i++ {
		q.Push(core.Event{Kind: core.EventText})
		if _, ok := q.Pop(); !ok {
			t.Fatal("pushed event not popped")
		}
	}
	if cap(q.events) > 4 {
		t.Errorf("queue capacity grew to %d over one-event batches", cap(q.events))
	}
}
