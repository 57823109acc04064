package jsonscan

// Use gives t its first arena block and unescape buffer, both emptied: a
// decoder that keeps small arrays beside its Strings spares their first
// allocations. The arena's array must not be written by anyone else while
// a string points into it, which holds for an array in the decoder's own
// struct that only t uses.
func (t *Strings) Use(arena, scratch []byte) {
	t.arena, t.scratch = arena[:0], scratch[:0]
}
