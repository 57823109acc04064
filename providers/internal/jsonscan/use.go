package jsonscan

import "github.com/toolconform/conform/core"

// Use gives t its first storage: arena, the first block of its arena, and
// scratch, its first unescape buffer, both taken empty. A decoder that
// keeps small arrays beside its Strings spares their allocations, as
// streamdec.Queue.Use does for events; strings made in arena point into it, and
// it is never written again where they point.
func (t *Strings) Use(arena, scratch []byte) {
	t.arena, t.scratch = Arena(arena[:0]), scratch[:0]
}

// Release readies t for the next stream of a decoder that is reused: it
// drops the arena, whose strings are handed out, and keeps the unescape
// buffer, which no string points into, unless it grew past maxKeptScratch.
func (t *Strings) Release() {
	t.arena = nil
	if cap(t.scratch) > maxKeptScratch {
		t.scratch = nil
	}
	t.scratch = t.scratch[:0]
}

// maxKeptScratch is the largest unescape buffer Release keeps.
const maxKeptScratch = 64 << 10

// First is the storage a stream decoder keeps in itself for the start of
// a stream, so that a short stream costs no allocation for it: its first
// arena block and unescape buffer, and its first call chunks.
type First struct {
	arena   [512]byte
	scratch [256]byte
	chunks  [16]core.Chunk
}

// Use gives st its first arena block and unescape buffer and makes slab,
// from which Take hands out chunks, the first chunks.
func (f *First) Use(st *Strings, slab *[]core.Chunk) {
	st.Use(f.arena[:], f.scratch[:])
	*slab = f.chunks[:]
}
