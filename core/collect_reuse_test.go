package core

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// callEvents returns the events of a stream of n calls named and
// numbered under prefix: each opened with its id and name, its arguments
// sent whole with its end (even positions) or as one delta before it (odd
// positions), then usage and a finish.
func callEvents(prefix string, n int) []Event {
	var evs []Event
	for i := range n {
		// A stream with no prefix sends no ids: its calls route by index
		// and get the ids the Buffer generates.
		id := ""
		if prefix != "" {
			id = fmt.Sprintf("%s_%d", prefix, i)
		}
		route := Chunk{ID: id, Index: i, HasIndex: id == ""}
		start, delta, end := route, route, route
		start.Name = prefix + "_tool"
		evs = append(evs, Event{Kind: EventCallStart, Chunk: &start})
		args := fmt.Sprintf(`{"%s":%d}`, prefix, i)
		if i%2 == 1 {
			delta.ArgsDelta = args
			evs = append(evs, Event{Kind: EventCallDelta, Chunk: &delta}, Event{Kind: EventCallEnd, Chunk: &end})
		} else {
			end.Args = sp(args)
			evs = append(evs, Event{Kind: EventCallEnd, Chunk: &end})
		}
	}
	return append(evs, Event{Kind: EventUsage, Usage: &Usage{InputTokens: n, OutputTokens: 2 * n}}, Event{Kind: EventFinish, Finish: FinishToolCalls})
}

// reusedCalls returns the calls of callEvents(prefix, n), in order.
func reusedCalls(prefix string, n int) []Call {
	var calls []Call
	for i := range n {
		id := fmt.Sprintf("%s_%d", prefix, i)
		if prefix == "" {
			id = fmt.Sprintf("tool_0_%d", i)
		}
		calls = append(calls, Call{ID: id, Name: prefix + "_tool", Arguments: json.RawMessage(fmt.Sprintf(`{"%s":%d}`, prefix, i))})
	}
	return calls
}

// TestCollectReusesNothingItReturns: Collect hands its Buffer to the next
// Collect; every Response holds its own calls when Collect returns it and
// after all the collections that follow, however many calls each had
// (within and past the Buffer's first states and the Response's first
// calls), whether it shares its ids with an earlier stream, has ids of
// its own or none (the Buffer then generates the same ones again).
func TestCollectReusesNothingItReturns(t *testing.T) {
	sizes := []int{6, 1, 3, 0, 9, 2, 4, 70, 5, 3}
	// Streams at positions 0, 3, 6, … share their ids, those at 1, 4, 7, …
	// send none, the others have their own.
	prefix := func(i int) string {
		switch i % 3 {
		case 0:
			return "same"
		case 1:
			return ""
		}
		return fmt.Sprintf("s%d", i)
	}
	check := func(i int, resp *Response, when string) {
		t.Helper()
		var calls []Call
		for _, p := range resp.Message.Parts {
			calls = append(calls, *p.Call)
		}
		if diff := cmp.Diff(reusedCalls(prefix(i), sizes[i]), calls); diff != "" {
			t.Errorf("stream %d (%d calls) %s (-want +got):\n%s", i, sizes[i], when, diff)
		}
	}
	var got []*Response
	for i, n := range sizes {
		resp, err := Collect(SliceStream(callEvents(prefix(i), n)))
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		check(i, resp, "when collected")
		got = append(got, resp)
	}
	for i, resp := range got {
		check(i, resp, fmt.Sprintf("after %d more collections", len(sizes)-1-i))
	}
}
