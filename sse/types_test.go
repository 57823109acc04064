package sse

import (
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// TestEventTypes: with EventTypes the events are the same, and an event
// of an expected type carries the very string given, not a copy.
func TestEventTypes(t *testing.T) {
	in := "event: delta\ndata: 1\n\nevent: stop\ndata: 2\n\nevent: other\ndata: 3\n\nevent: delta\ndata: 4\n\nevent: deltas\ndata: 5\n\ndata: 6\n\n"
	types := []string{"start", "delta", "stop"}
	read := func(opts ...Option) []RawEvent {
		d := NewDecoder(strings.NewReader(in), opts...)
		var out []RawEvent
		for {
			ev, err := d.NextRaw()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			ev.Data = append([]byte(nil), ev.Data...)
			out = append(out, ev)
		}
	}
	plain, typed := read(), read(EventTypes(types...))
	if diff := cmp.Diff(plain, typed); diff != "" {
		t.Fatalf("EventTypes changes the events (-without +with):\n%s", diff)
	}
	for _, ev := range typed {
		for _, want := range types {
			if ev.Type == want && unsafe.StringData(ev.Type) != unsafe.StringData(want) {
				t.Errorf("event type %q is a copy, not the string EventTypes gave", ev.Type)
			}
		}
	}
}
