package streamenc

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

// Place claims and returns the wire index of a call whose chunk asks for
// index i (core.Chunk.Index, a routing key): i itself when it is free and
// not negative, so that a stream the protocol sent re-encodes with its own
// indexes, else the index Alloc gives.
func (x *Indexes) Place(i int) int {
	if x.Take(i) {
		return i
	}
	return x.Alloc()
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

// AppendCallArgs appends to dst the argument texts a stream encoder writes
// for a call delta or end chunk, in order, and returns the extended slice:
// for a delta, its whole Args and then its ArgsDelta; for an end, its
// ArgsDelta and then its whole Args. An end's Args of {} is left out when
// the call has had no argument text (wrote false, no ArgsDelta): it is
// what a decoder gives a call that sent none, and writing it would add
// text a round trip must not add. Empty texts are left out; other kinds
// append nothing. Bedrock and Cohere encode call chunks with it.
func AppendCallArgs(dst []string, kind core.EventKind, c *core.Chunk, wrote bool) []string {
	whole := ""
	if c.Args != nil {
		whole = *c.Args
	}
	switch kind {
	case core.EventCallDelta:
		if whole != "" {
			dst = append(dst, whole)
		}
		if c.ArgsDelta != "" {
			dst = append(dst, c.ArgsDelta)
		}
	case core.EventCallEnd:
		if c.ArgsDelta != "" {
			dst = append(dst, c.ArgsDelta)
			wrote = true
		}
		if whole != "" && (whole != "{}" || wrote) {
			dst = append(dst, whole)
		}
	}
	return dst
}
