package streamdec

import "github.com/toolconform/conform/core"

// Queue holds the canonical events decoded from one wire event until a
// stream's Next hands them out, in order. It stamps the response id and
// model, once known, on the first event pushed after that, as core.Event
// asks. Its storage is reused once drained, so it holds only the events of
// the wire event being decoded, never the whole stream.
type Queue struct {
	events []core.Event
	head   int
	// ID and Model describe the response; set them when the stream names
	// them.
	ID, Model string
	stamped   bool
}

// Push appends an event, with ID and Model on it if it is the first event
// after they became known.
func (q *Queue) Push(e core.Event) {
	if !q.stamped && (q.ID != "" || q.Model != "") {
		e.ID, e.Model = q.ID, q.Model
		q.stamped = true
	}
	q.events = append(q.events, e)
}

// Use gives q buf, empty, as its first storage: a decoder that keeps a
// small array beside its Queue spares the allocation of the first events.
func (q *Queue) Use(buf []core.Event) { q.events, q.head = buf[:0], 0 }

// Pop removes and returns the oldest event; ok is false when there is none.
func (q *Queue) Pop() (e core.Event, ok bool) {
	if q.head >= len(q.events) {
		return core.Event{}, false
	}
	e = q.events[q.head]
	q.events[q.head] = core.Event{}
	q.head++
	if q.head == len(q.events) {
		q.events, q.head = q.events[:0], 0
	}
	return e, true
}

// Stamped reports whether an event has carried the response id and model.
func (q *Queue) Stamped() bool { return q.stamped }

// Len returns the number of events waiting.
func (q *Queue) Len() int { return len(q.events) - q.head }

// Pull is the Next of a stream decoder: it returns the oldest event of q,
// calling pull to decode the next wire event into q while there is none.
// pull returns the error that ends the stream (io.EOF for a clean end) or
// nil; the first error is kept in *errp and returned, after the queued
// events, by every later call.
func Pull(q *Queue, errp *error, pull func() error) (core.Event, error) {
	for {
		if e, ok := q.Pop(); ok {
			return e, nil
		}
		if *errp != nil {
			return core.Event{}, *errp
		}
		*errp = pull()
	}
}
