package jsonscan

// Slab hands out pointers to zero values of T from slabs that grow from one
// value, doubling up to SlabSize: a stream that needs one value pays for
// one, and a long one for one allocation per SlabSize values. The zero
// Slab is ready to use. A caller that keeps one value keeps its whole slab
// alive.
type Slab[T any] struct {
	free []T
	next int // size of the next slab
}

// Take returns a pointer to a zero T.
func (s *Slab[T]) Take() *T {
	if len(s.free) == 0 {
		n := max(s.next, 1)
		s.free, s.next = make([]T, n), min(2*n, SlabSize)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}

// Use gives the slab buf as its first storage, which Take hands out before
// it allocates, such as an array in the caller's own allocation.
func (s *Slab[T]) Use(buf []T) {
	s.free = buf
	s.next = max(s.next, len(buf))
}

// Start makes the first slab Take allocates n values long, for a caller
// whose streams mostly need about n.
func (s *Slab[T]) Start(n int) { s.next = max(s.next, n) }
