package core

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchArgs returns a JSON object of exactly n bytes.
func benchArgs(n int) string {
	const head, tail = `{"data":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// BenchmarkBufferInterleaved feeds 4 interleaved calls of 2 KB arguments in
// 4-byte deltas, routed by index as Chat Completions streams are, and
// reports the cost per chunk.
func BenchmarkBufferInterleaved(b *testing.B) {
	const calls, size, delta = 4, 2048, 4
	args := benchArgs(size)
	var chunks []Chunk
	for i := 0; i < calls; i++ {
		chunks = append(chunks, Chunk{HasIndex: true, Index: i, ID: fmt.Sprintf("call_%d", i), Name: "weather", Start: true})
	}
	for off := 0; off < size; off += delta {
		for i := 0; i < calls; i++ {
			chunks = append(chunks, Chunk{HasIndex: true, Index: i, ArgsDelta: args[off : off+delta]})
		}
	}
	for i := 0; i < calls; i++ {
		chunks = append(chunks, Chunk{HasIndex: true, Index: i, Done: true})
	}
	run := func() {
		buf := NewBuffer()
		for _, c := range chunks {
			if _, err := buf.Add(c); err != nil {
				b.Fatal(err)
			}
		}
		if len(buf.Calls()) != calls {
			b.Fatalf("%d calls completed, want %d", len(buf.Calls()), calls)
		}
	}
	allocs := testing.AllocsPerRun(3, run)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		run()
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
	b.ReportMetric(allocs/float64(len(chunks)), "allocs/chunk")
}

// BenchmarkBufferArgGrowth feeds one call of 1 KB, 64 KB and 4 MB of
// arguments in 64-byte deltas and reports the bytes allocated per byte of
// argument.
func BenchmarkBufferArgGrowth(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10, 4 << 20} {
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			args := benchArgs(size)
			chunks := []Chunk{{ID: "call_1", Name: "weather", Start: true}}
			for off := 0; off < size; off += 64 {
				chunks = append(chunks, Chunk{ID: "call_1", ArgsDelta: args[off:min(off+64, size)]})
			}
			chunks = append(chunks, Chunk{ID: "call_1", Done: true})
			b.ReportAllocs()
			b.SetBytes(int64(size))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buf := NewBuffer()
				for _, c := range chunks {
					if _, err := buf.Add(c); err != nil {
						b.Fatal(err)
					}
				}
				if got := buf.Calls(); len(got) != 1 || len(got[0].Arguments) != size {
					b.Fatalf("call not completed whole")
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "B/argB")
		})
	}
}

// BenchmarkBufferOpenCalls opens 1k to 1M calls, routed by id, each with
// a name and one delta, and ends the stream with all of them open, the
// cost growing with the calls an attacker opens: the time and bytes per
// call stay flat when adding and finishing are linear.
func BenchmarkBufferOpenCalls(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 300_000, 1_000_000} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			chunks := make([]Chunk, n)
			for i := range chunks {
				chunks[i] = Chunk{ID: "call_" + strconv.Itoa(i), Name: "f", Start: true, ArgsDelta: `{"a":`}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf := NewBuffer(WithLimits(Limits{MaxCalls: n}))
				for _, c := range chunks {
					if _, err := buf.Add(c); err != nil {
						b.Fatal(err)
					}
				}
				if inc, _ := buf.Finish(); len(inc) != n {
					b.Fatalf("%d calls incomplete, want %d", len(inc), n)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}
