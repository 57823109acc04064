package main

import (
	"strings"
	"testing"
)

// TestRun checks the tables on a small sample of benchmark output: medians,
// ratios to conform and to the floor, and the growth table.
func TestRun(t *testing.T) {
	in := `goos: linux
BenchmarkStream/stream=s/subject=conform-2   10  100 ns/op  200.00 MB/s  0.5 allocs/event  1000 B/op  10 allocs/op
BenchmarkStream/stream=s/subject=conform-2   10  100 ns/op  100.00 MB/s  0.5 allocs/event  1000 B/op  10 allocs/op
BenchmarkStream/stream=s/subject=conform-2   10  100 ns/op  150.00 MB/s  0.5 allocs/event  1000 B/op  10 allocs/op
BenchmarkStream/stream=s/subject=peer-2      10  100 ns/op   15.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=s/subject=floor-2     10  100 ns/op 1500.00 MB/s  0 allocs/event  0 B/op  0 allocs/op
BenchmarkGrowth/args=1KB/subject=conform-2   10  2000 ns/op  50.00 MB/s  2.5 ns/argB  3.0 allocB/argB  12 B/op  7 allocs/op
# pass 2
BenchmarkStream/stream=p-corpus/subject=conform-2   10  100 ns/op  30.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=p-corpus/subject=naive-2   10  100 ns/op  15.00 MB/s  4 allocs/event  4.000 streams  8000 B/op  160 allocs/op
BenchmarkStream/stream=p-corpus/subject=floor-2   10  100 ns/op  3000.00 MB/s  0 allocs/event  4.000 streams  0 B/op  0 allocs/op
BenchmarkStream/stream=p-corpus-all/subject=conform-2   10  100 ns/op  20.00 MB/s  3 allocs/event  7.000 streams  7000 B/op  210 allocs/op
BenchmarkStream/stream=p-corpus-all/subject=floor-2   10  100 ns/op  2000.00 MB/s  0 allocs/event  7.000 streams  0 B/op  0 allocs/op
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| conform | 150.0 | 1.000 | 0.1000 | 10 | 0.500 | 1000 |",
		"| peer | 15.0 | 0.100 | 0.0100 | 400 | 20.000 | 9000 |",
		"| floor | 1500.0 | 10.000 | 1.0000 | 0 | 0.000 | 0 |",
		"| 1KB | 50.0 | 2000 | 2.50 | 3.00 | 7 |",
		"**p-corpus** (4 recorded streams)",
		"| naive | 15.0 | 0.500 | 0.0050 | 40 | 4.000 | 2000 |",
		"**every recorded stream, conform alone**",
		"| p | 7 | 20.0 | 0.0100 | 30 | 3.000 | 1000 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q; got:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "**p-corpus-all**") {
		t.Errorf("corpus-all has a table of its own; got:\n%s", out.String())
	}
	if err := run(strings.NewReader("PASS\n"), &out); err == nil {
		t.Error("no results: no error")
	}
}
