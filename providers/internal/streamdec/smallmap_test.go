package streamdec

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestSmallMap: a SmallMap holds what a Go map given the same puts holds,
// across the change from its list to its map.
func TestSmallMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var m SmallMap[int]
		want := map[string]int{}
		keys := rapid.SliceOfN(rapid.IntRange(0, 3*SmallMapList), 0, 6*SmallMapList).Draw(t, "keys")
		for i, k := range keys {
			key := fmt.Sprint("k", k)
			m.Put(key, i)
			want[key] = i
			if m.Len() != len(want) {
				t.Fatalf("after %d puts: Len %d, want %d", i+1, m.Len(), len(want))
			}
		}
		for k := range 3*SmallMapList + 2 {
			key := fmt.Sprint("k", k)
			v, ok := want[key]
			switch p := m.Get(key); {
			case ok && (p == nil || *p != v):
				t.Fatalf("Get(%q) = %v, want %d", key, p, v)
			case !ok && p != nil:
				t.Fatalf("Get(%q) = %d, want nil", key, *p)
			}
		}
	})
}
