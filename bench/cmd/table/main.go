// Command table reads the raw output of bench/run (results.txt: `go test
// -bench` passes, each after a "# pass N, time, load average a b c" line)
// on standard input and writes the README's tables as Markdown.
//
// Ratios are medians of per-pass ratios with their min–max range: in each
// pass, conform's MB/s on a stream divided by the other subject's on the
// same stream, measured minutes apart at most, so that load which comes
// and goes on a shared machine cancels within a pass. The i-th result of a
// benchmark is taken as pass i.
//
// The tables: the run (date, passes, load average at each pass's start,
// and the reference, bytes.IndexByte's MB/s over stream (a), shown once);
// a summary row per stream with conform ÷ naive, conform ÷ the official SDK
// and conform's allocations per event against the targets; a
// table per stream with every subject; every recorded stream of each
// protocol with conform alone; and growth per argument byte.
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

// result is the values of one benchmark, by unit, one per pass.
type result map[string][]float64

// The targets for conform on every stream.
const (
	targetNaive  = 3.0 // conform ÷ naive at least
	targetSDK    = 10.0
	targetAllocs = 1.0 // allocations per event below
)

// officialSDK names the official Go SDK of each protocol that is in the
// race, and whether it is driven through HTTP (then conform's ratio to it
// is conform-http's, which takes the same path).
var officialSDK = map[string]struct {
	name string
	http bool
}{
	"openai-chat":      {"openai-go", false},
	"anthropic":        {"anthropic-sdk-go", false},
	"openai-responses": {"openai-go", false},
	"gemini":           {"genai", true},
	"bedrock":          {"aws-sdk-go-v2", true},
	"ollama":           {"ollama", true},
}

// The targets for the tiny stream.
const (
	targetTinyPeer   = 2.0 // conform ÷ the fastest peer at least
	targetTinyMicros = 10.0
)

// isTiny reports whether a stream is the tiny one-call stream.
func isTiny(stream string) bool { return strings.HasSuffix(stream, "-1x20B") }

// isPeer reports whether a subject is another project's SDK rather than
// conform, conform-http or the naive decoder.
func isPeer(subject string) bool {
	return subject != "conform" && subject != "conform-http" && subject != "naive"
}

// httpPeers are the subjects driven through an http.Client, whose ratio
// is given to conform-http as well.
var httpPeers = map[string]bool{"go-openai": true, "genai": true, "aws-sdk-go-v2": true, "ollama": true}

var (
	nameRE = regexp.MustCompile(`^Benchmark(\w+)/(\w+)=([^/]+)/subject=(.+?)(-\d+)?$`)
	runRE  = regexp.MustCompile(`^# (\d{4}-\d\d-\d\dT[\d:]+Z), (\d+) passes of -count 1, -benchtime (\S+)`)
	passRE = regexp.MustCompile(`^# pass \d+, \S+, load average ([\d.]+)`)
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

// key names one benchmark: its function (Stream, Growth), its stream or
// size, and its subject.
type key [3]string

func run(r io.Reader, w io.Writer) error {
	results := map[key]result{}
	var order []key
	var loads []float64
	date, passes, benchtime := "", "", ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if m := runRE.FindStringSubmatch(line); m != nil {
			date, passes, benchtime = m[1], m[2], m[3]
			continue
		}
		if m := passRE.FindStringSubmatch(line); m != nil {
			l, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return fmt.Errorf("read %q: %w", line, err)
			}
			loads = append(loads, l)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		m := nameRE.FindStringSubmatch(f[0])
		if m == nil {
			continue
		}
		k := key{m[1], m[3], m[4]}
		res, ok := results[k]
		if !ok {
			res = result{}
			results[k] = res
			order = append(order, k)
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

	if date != "" {
		fmt.Fprintf(w, "Run of %s: %s passes of -count 1, -benchtime %s", date, passes, benchtime)
		if len(loads) > 0 {
			lo, mid, hi := spread(loads)
			fmt.Fprintf(w, "; 1-minute load average %.1f at the median pass start (%.1f–%.1f)", mid, lo, hi)
		}
		fmt.Fprintln(w, ".")
	}
	if ref, ok := results[key{"Stream", "reference", "indexbyte"}]; ok {
		lo, mid, hi := spread(ref["MB/s"])
		fmt.Fprintf(w, "Reference: bytes.IndexByte splits stream (a) into lines at %.0f MB/s (median of the passes; %.0f–%.0f).\n", mid, lo, hi)
	}

	// ratio returns the per-pass ratios of a's MB/s to b's on stream.
	ratio := func(stream, a, b string) []float64 {
		x := results[key{"Stream", stream, a}]["MB/s"]
		y := results[key{"Stream", stream, b}]["MB/s"]
		var out []float64
		for i := 0; i < len(x) && i < len(y); i++ {
			if y[i] > 0 {
				out = append(out, x[i]/y[i])
			}
		}
		return out
	}

	var streams []string
	seen := map[string]bool{}
	for _, k := range order {
		if k[0] == "Stream" && k[1] != "reference" && !strings.HasSuffix(k[1], "-corpus-all") && !seen[k[1]] {
			seen[k[1]] = true
			streams = append(streams, k[1])
		}
	}

	fmt.Fprint(w, "\n**Summary: conform against the issue's targets** (≥ 3× naive, ≥ 10× the official SDK, < 1 allocation per event)\n\n")
	fmt.Fprintln(w, "| stream | conform MB/s | conform ÷ naive | conform ÷ official SDK | allocs/event | below target |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	var tiny []string
	for _, s := range streams {
		if isTiny(s) {
			tiny = append(tiny, s)
			continue
		}
		conform := results[key{"Stream", s, "conform"}]
		var below []string
		naive := "—"
		if rs := ratio(s, "conform", "naive"); len(rs) > 0 {
			naive = rangeCell(rs)
			if _, mid, _ := spread(rs); mid < targetNaive {
				below = append(below, "naive")
			}
		}
		sdk := "—"
		if o, ok := officialSDK[protocol(s)]; ok {
			from := "conform"
			if o.http {
				from = "conform-http"
			}
			if rs := ratio(s, from, o.name); len(rs) > 0 {
				sdk = rangeCell(rs) + " " + o.name
				if o.http {
					sdk += " (both over HTTP)"
				}
				if _, mid, _ := spread(rs); mid < targetSDK {
					below = append(below, "SDK")
				}
			}
		}
		allocs := median(conform["allocs/event"])
		if allocs >= targetAllocs {
			below = append(below, "allocs")
		}
		verdict := "none"
		if len(below) > 0 {
			verdict = "**" + strings.Join(below, ", ") + "**"
		}
		fmt.Fprintf(w, "| %s%s | %.1f | %s | %s | %.3f | %s |\n", s, streamsNote(conform), median(conform["MB/s"]), naive, sdk, allocs, verdict)
	}

	for _, s := range tiny {
		fmt.Fprintf(w, "\n**Tiny stream %s: one call, 20 bytes of arguments** (targets: ≥ 2× the fastest peer, < %.0f µs)\n\n", s, targetTinyMicros)
		fmt.Fprintln(w, "| subject | µs/stream | conform ÷ it | allocs/stream |")
		fmt.Fprintln(w, "|---|---:|---:|---:|")
		fastest, fastestRatio := "", 0.0
		for _, k := range order {
			if k[0] != "Stream" || k[1] != s {
				continue
			}
			res := results[k]
			cell := "—"
			if k[2] != "conform" {
				rs := ratio(s, "conform", k[2])
				cell = rangeCell(rs)
				if _, mid, _ := spread(rs); isPeer(k[2]) && (fastest == "" || mid < fastestRatio) {
					fastest, fastestRatio = k[2], mid
				}
			}
			fmt.Fprintf(w, "| %s | %.1f | %s | %.0f |\n", k[2], median(res["ns/op"])/streamCount(res)/1000, cell, median(res["allocs/op"])/streamCount(res))
		}
		micros := median(results[key{"Stream", s, "conform"}]["ns/op"]) / 1000
		var below []string
		if fastest != "" && fastestRatio < targetTinyPeer {
			below = append(below, fmt.Sprintf("%.2f× %s, the fastest peer", fastestRatio, fastest))
		}
		if micros >= targetTinyMicros {
			below = append(below, fmt.Sprintf("%.1f µs", micros))
		}
		if len(below) > 0 {
			fmt.Fprintf(w, "\nBelow target: **%s**.\n", strings.Join(below, "; "))
		} else {
			fmt.Fprintln(w, "\nAt target.")
		}
	}

	for _, s := range streams {
		fmt.Fprintf(w, "\n**%s**%s\n\n", s, streamsNote(results[key{"Stream", s, "conform"}]))
		fmt.Fprintln(w, "| subject | MB/s | µs/stream | conform ÷ it | conform-http ÷ it | allocs/stream | allocs/event | B/stream |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
		for _, k := range order {
			if k[0] != "Stream" || k[1] != s {
				continue
			}
			res := results[k]
			n := streamCount(res)
			vsConform, vsHTTP := "—", "—"
			if k[2] != "conform" {
				vsConform = rangeCell(ratio(s, "conform", k[2]))
			}
			if httpPeers[k[2]] {
				vsHTTP = rangeCell(ratio(s, "conform-http", k[2]))
			}
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %s | %s | %.0f | %.3f | %.0f |\n", k[2], median(res["MB/s"]), median(res["ns/op"])/n/1000,
				vsConform, vsHTTP, median(res["allocs/op"])/n, median(res["allocs/event"]), median(res["B/op"])/n)
		}
	}

	header := false
	for _, k := range order {
		if k[0] != "Stream" || !strings.HasSuffix(k[1], "-corpus-all") || k[2] != "conform" {
			continue
		}
		if !header {
			header = true
			fmt.Fprint(w, "\n**every recorded stream, conform alone**\n\n")
			fmt.Fprintln(w, "| protocol | streams | MB/s | allocs/stream | allocs/event | B/stream |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		}
		res := results[k]
		n := streamCount(res)
		fmt.Fprintf(w, "| %s | %.0f | %.1f | %.0f | %.3f | %.0f |\n", strings.TrimSuffix(k[1], "-corpus-all"), n, median(res["MB/s"]),
			median(res["allocs/op"])/n, median(res["allocs/event"]), median(res["B/op"])/n)
	}

	header = false
	for _, k := range order {
		if k[0] != "Growth" {
			continue
		}
		if !header {
			header = true
			fmt.Fprint(w, "\n**growth: one call, conform**\n\n")
			fmt.Fprintln(w, "| arguments | MB/s | ns/op | ns per argument byte | bytes allocated per argument byte | allocs/op |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		}
		res := results[k]
		fmt.Fprintf(w, "| %s | %.1f | %.0f | %.2f | %.2f | %.0f |\n", k[1], median(res["MB/s"]), median(res["ns/op"]),
			median(res["ns/argB"]), median(res["allocB/argB"]), median(res["allocs/op"]))
	}
	return nil
}

// protocol returns the protocol a stream name starts with: the name less
// its "-corpus" or "-NxSIZE" suffix.
func protocol(stream string) string {
	if p, ok := strings.CutSuffix(stream, "-corpus"); ok {
		return p
	}
	if i := strings.LastIndexByte(stream, '-'); i > 0 {
		return stream[:i]
	}
	return stream
}

// rangeCell formats ratios as "median× (min–max)", or "—" for none.
func rangeCell(rs []float64) string {
	if len(rs) == 0 {
		return "—"
	}
	lo, mid, hi := spread(rs)
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", mid, lo, hi)
}

// spread returns the least, median and greatest of vs (zeros for none).
func spread(vs []float64) (lo, mid, hi float64) {
	if len(vs) == 0 {
		return 0, 0, 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	return s[0], median(s), s[len(s)-1]
}

// streamCount returns the number of recorded streams a benchmark covers (its
// "streams" metric), 1 when it reports none.
func streamCount(res result) float64 {
	if n := median(res["streams"]); n > 0 {
		return n
	}
	return 1
}

// streamsNote names the number of streams of a benchmark, when it covers
// more than one.
func streamsNote(res result) string {
	if n := streamCount(res); n > 1 {
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
