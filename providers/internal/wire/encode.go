package wire

import "github.com/toolconform/conform/core"

// ResponseMeta returns the response id and model of an event sequence: those
// of the first event that carries either, as stream encoders write them in
// their opening event.
func ResponseMeta(events []core.Event) (id, model string) {
	for _, e := range events {
		if e.ID != "" || e.Model != "" {
			return e.ID, e.Model
		}
	}
	return "", ""
}

// Indexes hands out the block or output indexes of an encoded stream: the
// ones events ask for (Take) and the lowest free ones for the rest (Alloc).
// The zero value is ready.
type Indexes struct {
	used map[int]bool
	next int
}

// Take claims index i and reports whether it was free and not negative.
func (x *Indexes) Take(i int) bool {
	if i < 0 || x.used[i] {
		return false
	}
	if x.used == nil {
		x.used = map[int]bool{}
	}
	x.used[i] = true
	return true
}

// Alloc claims and returns the lowest free index at or above the last one
// allocated.
func (x *Indexes) Alloc() int {
	for x.used[x.next] {
		x.next++
	}
	x.Take(x.next)
	return x.next
}
