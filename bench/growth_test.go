package bench

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolconform/conform/providers/openaichat"
)

// growthTolerance is how much bytes allocated per argument byte may rise
// from one growth size to the next larger one before
// TestGrowthMemoryLinear fails: 10 %, well above the run-to-run noise of
// a measurement that counts bytes (a few hundred bytes of runtime and test
// framework allocations against megabytes), and far below the factor of
// four that quadratic growth gives for every quadrupling of the size.
const growthTolerance = 0.10

// allocPerArgByte runs fn runs times and returns the fewest bytes it
// allocated in one run (runtime.MemStats.TotalAlloc, which counts every
// allocation and is not lowered by garbage collection) divided by
// argBytes. The fewest, because allocations by other goroutines (the
// runtime, the test framework) can only add to a run's count. Each run
// starts after two garbage collections, over which every sync.Pool drops
// what it holds (Collect's Buffer with its spare argument blocks among
// them): a run pays for all the memory it uses, as the first decode of a
// process does, whichever run and size came before it.
func allocPerArgByte(fn func() error, argBytes, runs int) (float64, error) {
	best := uint64(0)
	for i := range runs {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := fn(); err != nil {
			return 0, err
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < best {
			best = n
		}
	}
	return float64(best) / float64(argBytes), nil
}

// growthPoint is bytes allocated per argument byte at one size.
type growthPoint struct {
	size    string
	perByte float64
}

// checkLinear returns an error naming the first pair of consecutive sizes
// between which bytes allocated per argument byte rise by more than tol
// (a fraction): memory that grows faster than the arguments.
func checkLinear(points []growthPoint, tol float64) error {
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		if b.perByte > a.perByte*(1+tol) {
			return fmt.Errorf("check linear growth: %.2f bytes allocated per argument byte at %s, %.2f at %s: up %.0f %%, more than %.0f %%",
				a.perByte, a.size, b.perByte, b.size, 100*(b.perByte/a.perByte-1), 100*tol)
		}
	}
	return nil
}

// TestGrowthMemoryLinear decodes one call of 64 KB, 1 MB and 4 MB of
// arguments (the growth streams of BenchmarkGrowth) with conform and fails
// if the bytes allocated per argument byte rise from a size to the next
// beyond growthTolerance: memory must grow linearly with the arguments.
// Memory is measured rather than time because allocation counts are exact
// on a loaded machine and time is not.
func TestGrowthMemoryLinear(t *testing.T) {
	run := Conform(openaichat.New(), growthLimits)
	var points []growthPoint
	for _, size := range []struct {
		name string
		n    int
	}{{"64KB", 64 << 10}, {"1MB", 1 << 20}, {"4MB", 4 << 20}} {
		call := MakeCalls(1, size.n)
		body := ChatStream(call, growthDelta)
		start := time.Now()
		per, err := allocPerArgByte(func() error {
			got, err := run(nil, body)
			if err == nil && (len(got) != 1 || got[0] != call[0]) {
				err = fmt.Errorf("%s: %d calls, want the one generated call intact", size.name, len(got))
			}
			return err
		}, len(call[0].Args), 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %.2f bytes allocated per argument byte (%d-byte body, %v for two decodes)", size.name, per, len(body), time.Since(start).Round(time.Millisecond))
		points = append(points, growthPoint{size.name, per})
	}
	if err := checkLinear(points, growthTolerance); err != nil {
		t.Error(err)
	}
}

// TestGrowthCheckDetectsQuadratic checks that the measurement and the
// check of TestGrowthMemoryLinear catch memory that grows faster than
// linearly: an accumulator that copies the whole argument text on every
// delta (s += delta) fails it, and one that appends into a
// strings.Builder passes.
func TestGrowthCheckDetectsQuadratic(t *testing.T) {
	accumulate := func(quadratic bool, args string) func() error {
		return func() error {
			var s string
			var b strings.Builder
			for off := 0; off < len(args); off += growthDelta {
				d := args[off:min(off+growthDelta, len(args))]
				if quadratic {
					s += d
				} else {
					b.WriteString(d)
				}
			}
			if quadratic {
				b.WriteString(s)
			}
			if b.Len() != len(args) {
				return fmt.Errorf("accumulated %d bytes, want %d", b.Len(), len(args))
			}
			return nil
		}
	}
	for _, quadratic := range []bool{false, true} {
		var points []growthPoint
		for _, n := range []int{16 << 10, 64 << 10} {
			args := MakeArgs(0, n)
			per, err := allocPerArgByte(accumulate(quadratic, args), len(args), 2)
			if err != nil {
				t.Fatal(err)
			}
			points = append(points, growthPoint{fmt.Sprintf("%dKB", n>>10), per})
		}
		err := checkLinear(points, growthTolerance)
		if quadratic && err == nil {
			t.Errorf("quadratic accumulator passes the check: %+v", points)
		}
		if !quadratic && err != nil {
			t.Errorf("linear accumulator fails the check: %v", err)
		}
		t.Logf("quadratic %t: %+v", quadratic, points)
	}
}

// TestCheckLinear checks the comparison on fixed figures.
func TestCheckLinear(t *testing.T) {
	for _, tc := range []struct {
		points []growthPoint
		fail   bool
	}{
		{[]growthPoint{{"a", 12}, {"b", 11}, {"c", 7}}, false},
		{[]growthPoint{{"a", 10}, {"b", 10.9}}, false},
		{[]growthPoint{{"a", 10}, {"b", 11.2}}, true},
		{[]growthPoint{{"a", 10}, {"b", 9}, {"c", 40}}, true},
		{nil, false},
	} {
		if err := checkLinear(tc.points, 0.10); (err != nil) != tc.fail {
			t.Errorf("checkLinear(%+v) = %v, want failure %t", tc.points, err, tc.fail)
		}
	}
}
