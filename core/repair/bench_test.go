package repair

import (
	"fmt"
	"strings"
	"testing"
)

// repairShapes build inputs of about n bytes that each need a repair: the
// library's worst cases (a repair per element) and a repair this package
// makes itself.
var repairShapes = []struct {
	name  string
	build func(n int) string
}{
	{"missing-commas", func(n int) string { return "[" + strings.Repeat("1 ", (n-2)/2) + "]" }},
	{"object-commas", func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; b.Len() < n-16; i++ {
			fmt.Fprintf(&b, `"k%d":1,`, i)
		}
		return b.String() + "}"
	}},
	{"nested-objects", func(n int) string { return deepObjects(n/6) + "," }},
	{"control-characters", func(n int) string { return `{"a":"` + strings.Repeat("x\n", n/2) + `"}` }},
}

// BenchmarkRepair shows Repair's time per input size: the library's time
// grows with the square of its input, so text that needs it is refused
// above MaxLibraryBytes and deeper than MaxDepth, and the time per byte
// stays bounded. Run with go test -bench Repair -run '^$' ./core/repair.
func BenchmarkRepair(b *testing.B) {
	for _, sh := range repairShapes {
		for _, n := range []int{1 << 10, 4 << 10, MaxLibraryBytes, 64 << 10, 1 << 20, 4<<20 - 64} {
			in := sh.build(n)
			b.Run(fmt.Sprintf("%s/%d", sh.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					Repair(in)
				}
			})
		}
	}
}
