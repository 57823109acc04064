package jsonscan

// SlabSize is how many values Take allocates at a time.
const SlabSize = 64

// Take returns a pointer to a zero T from *slab, allocating SlabSize of
// them when it is empty, so that a fast path that hands out one pointer
// per event (a *core.Chunk, say) costs one allocation per SlabSize
// events. A caller that keeps one value keeps its whole slab alive.
func Take[T any](slab *[]T) *T {
	if len(*slab) == 0 {
		*slab = make([]T, SlabSize)
	}
	v := &(*slab)[0]
	*slab = (*slab)[1:]
	return v
}
