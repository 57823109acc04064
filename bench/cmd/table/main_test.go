package main

import (
	"strings"
	"testing"
)

// TestRun checks the tables on a small sample of benchmark output: the run's
// date and load, the reference shown once, ratios as medians of per-pass
// ratios with their range (conform-http's for an SDK driven over HTTP),
// the verdict against the targets, and the corpus-all and growth tables.
func TestRun(t *testing.T) {
	in := `# AMD EPYC, 2 cores, go version go1.26.8 linux/amd64
# 2026-11-26T16:00:00Z, 3 passes of -count 1, -benchtime 300ms
# pass 1, 16:00:00Z, load average 20.50 19.00 18.00
BenchmarkStream/stream=reference/subject=indexbyte-2  10  100 ns/op  9000.00 MB/s  0 allocs/event  0 B/op  0 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=conform-2   10  100 ns/op  200.00 MB/s  0.5 allocs/event  1000 B/op  10 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=openai-go-2 10  100 ns/op   10.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=naive-2     10  100 ns/op   40.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=conform-2      10  4000 ns/op  30.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=conform-http-2 10  4000 ns/op  20.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=genai-2        10  4000 ns/op  10.00 MB/s  9 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=naive-2        10  4000 ns/op  15.00 MB/s  4 allocs/event  4.000 streams  8000 B/op  160 allocs/op
BenchmarkStream/stream=gemini-corpus-all/subject=conform-2  10  100 ns/op  20.00 MB/s  3 allocs/event  7.000 streams  7000 B/op  210 allocs/op
BenchmarkGrowth/args=1KB/subject=conform-2   10  2000 ns/op  50.00 MB/s  2.5 ns/argB  3.0 allocB/argB  12 B/op  7 allocs/op
# pass 2, 16:01:00Z, load average 18.00 19.00 18.00
BenchmarkStream/stream=reference/subject=indexbyte-2  10  100 ns/op  8000.00 MB/s  0 allocs/event  0 B/op  0 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=conform-2   10  100 ns/op  100.00 MB/s  0.5 allocs/event  1000 B/op  10 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=openai-go-2 10  100 ns/op    4.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=naive-2     10  100 ns/op   25.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=conform-2      10  4000 ns/op  30.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=conform-http-2 10  4000 ns/op  24.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=genai-2        10  4000 ns/op  12.00 MB/s  9 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=naive-2        10  4000 ns/op  10.00 MB/s  4 allocs/event  4.000 streams  8000 B/op  160 allocs/op
# pass 3, 16:02:00Z, load average 22.00 19.00 18.00
BenchmarkStream/stream=reference/subject=indexbyte-2  10  100 ns/op  10000.00 MB/s  0 allocs/event  0 B/op  0 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=conform-2   10  100 ns/op  150.00 MB/s  0.5 allocs/event  1000 B/op  10 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=openai-go-2 10  100 ns/op   10.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=openai-chat-4x2KB/subject=naive-2     10  100 ns/op   30.00 MB/s  20 allocs/event  9000 B/op  400 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=conform-2      10  4000 ns/op  30.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=conform-http-2 10  4000 ns/op  22.00 MB/s  2 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=genai-2        10  4000 ns/op  11.00 MB/s  9 allocs/event  4.000 streams  4000 B/op  80 allocs/op
BenchmarkStream/stream=gemini-corpus/subject=naive-2        10  4000 ns/op   5.00 MB/s  4 allocs/event  4.000 streams  8000 B/op  160 allocs/op
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Run of 2026-11-26T16:00:00Z: 3 passes of -count 1, -benchtime 300ms; 1-minute load average 20.5 at the median pass start (18.0–22.0).",
		"bytes.IndexByte splits stream (a) into lines at 9000 MB/s (median of the passes; 8000–10000).",
		// Per-pass ratios 5, 4, 5 (naive) and 20, 25, 15 (SDK): medians of
		// the ratios, not ratios of the medians (150/30 = 5, 150/10 = 15).
		"| openai-chat-4x2KB | 150.0 | 5.00× (4.00–5.00) | 20.00× (15.00–25.00) openai-go | 0.500 | none |",
		// genai is driven over HTTP: conform-http ÷ genai, 2, 2, 2; a
		// median of exactly 3× naive meets that target.
		"| gemini-corpus (4 recorded streams) | 30.0 | 3.00× (2.00–6.00) | 2.00× (2.00–2.00) genai (both over HTTP) | 2.000 | **SDK, allocs** |",
		"| genai | 11.0 | 1.0 | 2.73× (2.50–3.00) | 2.00× (2.00–2.00) | 20 | 9.000 | 1000 |",
		"| conform | 150.0 | 0.1 | — | — | 10 | 0.500 | 1000 |",
		"**every recorded stream, conform alone**",
		"| gemini | 7 | 20.0 | 30 | 3.000 | 1000 |",
		"| 1KB | 50.0 | 2000 | 2.50 | 3.00 | 7 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q; got:\n%s", want, got)
		}
	}
	if strings.Count(got, "bytes.IndexByte") != 1 {
		t.Errorf("the reference is not shown exactly once; got:\n%s", got)
	}
	if strings.Contains(got, "**gemini-corpus-all**") || strings.Contains(got, "**reference**") {
		t.Errorf("corpus-all or the reference has a table of its own; got:\n%s", got)
	}
	if err := run(strings.NewReader("PASS\n"), &out); err == nil {
		t.Error("no results: no error")
	}
}
