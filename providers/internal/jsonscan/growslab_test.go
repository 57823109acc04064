package jsonscan

import "testing"

// TestSlab checks that every value Take hands out is a zero value at a
// pointer not handed out before, and that the slabs grow 1, 2, 4, … up to
// SlabSize values.
func TestSlab(t *testing.T) {
	var s Slab[int]
	seen := map[*int]bool{}
	var sizes []int
	for i := range 4 * SlabSize {
		if len(s.free) == 0 {
			sizes = append(sizes, s.next)
		}
		p := s.Take()
		if *p != 0 || seen[p] {
			t.Fatalf("value %d: %d at a pointer seen before: %v", i, *p, seen[p])
		}
		*p = i + 1
		seen[p] = true
	}
	want := 1
	for i, n := range sizes {
		if i > 0 && n != want {
			t.Fatalf("slab %d holds %d values, want %d (sizes %v)", i, n, want, sizes)
		}
		want = min(2*max(n, 1), SlabSize)
	}
	if sizes[len(sizes)-1] != SlabSize {
		t.Fatalf("slabs never reach %d values: %v", SlabSize, sizes)
	}
}

// TestArenaGrows checks that the arena's first block is small and that
// blocks double up to ArenaBlock.
func TestArenaGrows(t *testing.T) {
	var a Arena
	a.String([]byte("x"))
	if cap(a) != arenaFirst {
		t.Fatalf("first block of %d bytes, want %d", cap(a), arenaFirst)
	}
	last := cap(a)
	for range 4 * ArenaBlock / 100 {
		a.String(make([]byte, 100))
		if cap(a) != last {
			if want := min(2*last, ArenaBlock); cap(a) != want {
				t.Fatalf("block of %d bytes after one of %d, want %d", cap(a), last, want)
			}
			last = cap(a)
		}
	}
	if last != ArenaBlock {
		t.Fatalf("blocks stop at %d bytes, want %d", last, ArenaBlock)
	}
}

// TestSlabUse checks that a slab given first storage hands it out first,
// then allocates.
func TestSlabUse(t *testing.T) {
	var buf [2]int
	var s Slab[int]
	s.Use(buf[:])
	if a, b := s.Take(), s.Take(); a != &buf[0] || b != &buf[1] {
		t.Fatal("the first values are not the given storage")
	}
	if c := s.Take(); c == &buf[0] || c == &buf[1] || *c != 0 {
		t.Fatal("the third value is not a new zero value")
	}
}
