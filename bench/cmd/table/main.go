// Command table reads raw `go test -bench` output of the bench module on
// standard input and writes the README's tables as Markdown: for every
// stream, each subject's median throughput with its ratio to conform and
// to the floor, allocations per stream and per event and bytes per stream;
// one table for the corpus-all streams (every recorded streamed body of a
// protocol, conform alone), a row per protocol; and for the growth
// benchmarks, time and bytes allocated per argument byte.
//
// A benchmark that covers several recorded streams reports their number
// as the "streams" metric; allocations and bytes per stream are the
// per-op figures divided by it (results without it count one stream).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// result is the values of one benchmark, by unit, one per run.
type result map[string][]float64

var nameRE = regexp.MustCompile(`^Benchmark(\w+)/(\w+)=([^/]+)/subject=(.+?)(-\d+)?$`)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

func run(r io.Reader, w io.Writer) error {
	results := map[[3]string]result{} // bench, stream or size, subject
	var order [][3]string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		m := nameRE.FindStringSubmatch(f[0])
		if m == nil {
			continue
		}
		key := [3]string{m[1], m[3], m[4]}
		res, ok := results[key]
		if !ok {
			res = result{}
			results[key] = res
			order = append(order, key)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("read %s: value %q: %w", f[0], f[i], err)
			}
			res[f[i+1]] = append(res[f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(order) == 0 {
		return fmt.Errorf("read: no benchmark results")
	}
	stream := ""
	for _, k := range order {
		if k[0] != "Stream" || strings.HasSuffix(k[1], "-corpus-all") {
			continue
		}
		if k[1] != stream {
			stream = k[1]
			fmt.Fprintf(w, "\n**%s**%s\n\n", stream, streamsNote(results[k]))
			fmt.Fprintln(w, "| subject | MB/s | × conform | × floor | allocs/stream | allocs/event | B/stream |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
		}
		res := results[k]
		mbs := median(res["MB/s"])
		conform := median(results[[3]string{"Stream", k[1], "conform"}]["MB/s"])
		floor := median(results[[3]string{"Stream", k[1], "floor"}]["MB/s"])
		n := streams(res)
		fmt.Fprintf(w, "| %s | %.1f | %.3f | %.4f | %.0f | %.3f | %.0f |\n", k[2], mbs, mbs/conform, mbs/floor,
			median(res["allocs/op"])/n, median(res["allocs/event"]), median(res["B/op"])/n)
	}
	header := false
	for _, k := range order {
		if k[0] != "Stream" || !strings.HasSuffix(k[1], "-corpus-all") || k[2] != "conform" {
			continue
		}
		if !header {
			header = true
			fmt.Fprint(w, "\n**every recorded stream, conform alone**\n\n")
			fmt.Fprintln(w, "| protocol | streams | MB/s | × floor | allocs/stream | allocs/event | B/stream |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
		}
		res := results[k]
		mbs := median(res["MB/s"])
		floor := median(results[[3]string{"Stream", k[1], "floor"}]["MB/s"])
		n := streams(res)
		fmt.Fprintf(w, "| %s | %.0f | %.1f | %.4f | %.0f | %.3f | %.0f |\n", strings.TrimSuffix(k[1], "-corpus-all"), n, mbs, mbs/floor,
			median(res["allocs/op"])/n, median(res["allocs/event"]), median(res["B/op"])/n)
	}
	fmt.Fprint(w, "\n**growth: one call, conform**\n\n")
	fmt.Fprintln(w, "| arguments | MB/s | ns/op | ns per argument byte | bytes allocated per argument byte | allocs/op |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, k := range order {
		if k[0] != "Growth" {
			continue
		}
		res := results[k]
		fmt.Fprintf(w, "| %s | %.1f | %.0f | %.2f | %.2f | %.0f |\n", k[1], median(res["MB/s"]), median(res["ns/op"]),
			median(res["ns/argB"]), median(res["allocB/argB"]), median(res["allocs/op"]))
	}
	return nil
}

// streams returns the number of recorded streams a benchmark covers (its
// "streams" metric), 1 when it reports none.
func streams(res result) float64 {
	if n := median(res["streams"]); n > 0 {
		return n
	}
	return 1
}

// streamsNote names the number of streams of a benchmark in a table's
// heading, when it covers more than one.
func streamsNote(res result) string {
	if n := streams(res); n > 1 {
		return fmt.Sprintf(" (%.0f recorded streams)", n)
	}
	return ""
}

// median returns the median of vs, or 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
