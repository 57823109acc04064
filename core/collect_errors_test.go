package core

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// retainedBy returns the heap bytes still in use after f returns, while
// what f returned is kept alive.
func retainedBy(f func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// rejectedStream returns n call events whose chunks are each rejected (an
// index below -1 and no id, so no call is lost and none is dropped), then a
// finish.
func rejectedStream(n int) EventStream {
	events := make([]Event, 0, n+1)
	ch := &Chunk{HasIndex: true, Index: -5, ArgsDelta: `{"a":1}`}
	for range n {
		events = append(events, Event{Kind: EventCallDelta, Chunk: ch})
	}
	return SliceStream(append(events, Event{Kind: EventFinish, Finish: FinishStop}))
}

// TestCollectBoundedErrors feeds 300,000 rejected chunks to Collect: it keeps
// MaxStreamErrors errors and a count of the rest, so what it retains does
// not grow with the stream (one error each retained 57.6 MB).
func TestCollectBoundedErrors(t *testing.T) {
	const n = 300_000
	var err error
	retained := retainedBy(func() any {
		var resp *Response
		resp, err = Collect(rejectedStream(n))
		return resp
	})
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	if len(errs) != maxStreamErrors+1 {
		t.Errorf("Collect returned %d errors, want %d and a count", len(errs), maxStreamErrors)
	}
	if !errors.Is(errs[len(errs)-1], ErrTooManyErrors) || !errors.Is(err, ErrIndexOutOfRange) {
		t.Errorf("Collect error does not end with ErrTooManyErrors: %v", errs[len(errs)-1])
	}
	if want := fmt.Sprintf("collect: event %d: too many errors: %d more after the first %d, the last at event %d", n, n-maxStreamErrors, maxStreamErrors, n); errs[len(errs)-1].Error() != want {
		t.Errorf("last error = %q, want %q", errs[len(errs)-1], want)
	}
	if text := len(err.Error()); text > 200*(maxStreamErrors+1) {
		t.Errorf("error text is %d bytes, want at most %d", text, 200*(maxStreamErrors+1))
	}
	if retained > 1<<20 {
		t.Errorf("Collect retained %d bytes for %d rejected chunks, want under 1 MiB", retained, n)
	}
	t.Logf("%d rejected chunks: %d bytes retained, %d errors, %d bytes of error text", n, retained, len(errs), len(err.Error()))
}

// TestCollectEndErrorsKept checks that the error that ends a stream and the
// calls left incomplete are reported even past MaxStreamErrors.
func TestCollectEndErrorsKept(t *testing.T) {
	var events []Event
	for range maxStreamErrors + 10 {
		events = append(events, Event{Kind: EventCallDelta})
	}
	events = append(events, Event{Kind: EventCallStart, Chunk: &Chunk{ID: "a", Name: "f", ArgsDelta: `{"x":`}})
	_, err := Collect(SliceStream(events))
	for _, want := range []error{ErrMalformed, ErrTooManyErrors, ErrTruncated, ErrIncomplete} {
		if !errors.Is(err, want) {
			t.Errorf("Collect error does not wrap %v", want)
		}
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != maxStreamErrors+3 {
		t.Errorf("Collect reported %d errors, want %d", got, maxStreamErrors+3)
	}
}
