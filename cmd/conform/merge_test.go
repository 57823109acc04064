package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/gateway"
)

// conformRun runs conform with args and returns its status and stderr.
func conformRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return status, stderr.String()
}

// TestShardsMergeToTheWholeRun runs gateway and run --client whole and in
// two shards, merges the shards and checks the merged results equal the
// whole run's: every run made once, none lost, the same outcome.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }

	t.Run("gateway", func(t *testing.T) {
		sel := []string{"gateway", "--reference", "--front", "anthropic", "--upstream", "anthropic,openai-chat,gemini", "--run", ".*/streaming/A05.*", "--format", "json"}
		runs := map[string][]string{
			"whole.json":  append(sel[:len(sel):len(sel)], "--out", path("gw-whole.json")),
			"shard1.json": append(sel[:len(sel):len(sel)], "--shard", "1/2", "--out", path("gw-shard1.json")),
			"shard2.json": append(sel[:len(sel):len(sel)], "--shard", "2/2", "--out", path("gw-shard2.json")),
		}
		for name, args := range runs {
			if status, stderr := conformRun(t, args...); status != exitOK {
				t.Fatalf("%s: status %d: %s", name, status, stderr)
			}
		}
		if status, stderr := conformRun(t, "merge", "--format", "json", "--out", path("gw-merged.json"), path("gw-shard1.json"), path("gw-shard2.json")); status != exitOK {
			t.Fatalf("merge: status %d: %s", status, stderr)
		}
		files := map[string]gateway.File{}
		read := func(name string) []gateway.Result {
			data, err := os.ReadFile(path(name))
			if err != nil {
				t.Fatal(err)
			}
			file, err := gateway.ParseFile(data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			files[name] = file
			return file.Results
		}
		whole, s1, s2, merged := read("gw-whole.json"), read("gw-shard1.json"), read("gw-shard2.json"), read("gw-merged.json")
		// The merge says what it joined: the shards' provenances.
		if p := files["gw-merged.json"].Provenance; p.Command != "merge" || len(p.Inputs) != 2 || p.Inputs[0].Command != "gateway" || p.Inputs[0].Scenarios == "" {
			t.Errorf("merged provenance %+v: want merge of two gateway results", p)
		}
		if len(whole) < 6 || len(s1) == 0 || len(s2) == 0 {
			t.Fatalf("whole %d results, shards %d and %d: want both shards non-empty", len(whole), len(s1), len(s2))
		}
		if d := len(s1) - len(s2); d < -2 || d > 2 {
			t.Errorf("shards of %d and %d results: want within one run (two results) of each other", len(s1), len(s2))
		}
		sort.SliceStable(whole, func(i, j int) bool { return whole[i].Name < whole[j].Name })
		if diff := cmp.Diff(whole, merged); diff != "" {
			t.Errorf("merged shards differ from the whole run (-whole +merged):\n%s", diff)
		}
		// A shard given twice overlaps itself.
		status, stderr := conformRun(t, "merge", path("gw-shard1.json"), path("gw-shard1.json"))
		if status != exitUsage || !strings.Contains(stderr, "shards overlap") {
			t.Errorf("merging a shard with itself: status %d, %s", status, stderr)
		}
	})

	t.Run("client", func(t *testing.T) {
		sel := []string{"run", "--client", helperCmd("good"), "--run", "anthropic/streaming/A19-interleaved-content-blocks", "--run", "openai-chat/streaming/^A05-", "--chaos", "split=3", "--reduce=false", "--parallel", "2", "--format", "json"}
		runs := map[string][]string{
			"whole":  append(sel[:len(sel):len(sel)], "--out", path("cl-whole.json")),
			"shard1": append(sel[:len(sel):len(sel)], "--shard", "1/2", "--out", path("cl-shard1.json")),
			"shard2": append(sel[:len(sel):len(sel)], "--shard", "2/2", "--out", path("cl-shard2.json")),
		}
		for name, args := range runs {
			if status, stderr := conformRun(t, args...); status != exitOK {
				t.Fatalf("%s: status %d: %s", name, status, stderr)
			}
		}
		if status, stderr := conformRun(t, "merge", "--format", "json", "--out", path("cl-merged.json"), path("cl-shard1.json"), path("cl-shard2.json")); status != exitOK {
			t.Fatalf("merge: status %d: %s", status, stderr)
		}
		// Elapsed is the one field that differs between two runs of the
		// same case.
		read := func(name string) ([]string, clientCounts) {
			data, err := os.ReadFile(path(name))
			if err != nil {
				t.Fatal(err)
			}
			results, totals := clientLines(t, data)
			var out []string
			for _, r := range results {
				r.Elapsed = ""
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, string(b))
			}
			sort.Strings(out)
			return out, totals
		}
		whole, wholeTotals := read("cl-whole.json")
		s1, _ := read("cl-shard1.json")
		s2, _ := read("cl-shard2.json")
		merged, mergedTotals := read("cl-merged.json")
		if len(whole) < 4 || len(s1) == 0 || len(s2) == 0 {
			t.Fatalf("whole %d runs, shards %d and %d: want both shards non-empty", len(whole), len(s1), len(s2))
		}
		if diff := cmp.Diff(whole, merged); diff != "" {
			t.Errorf("merged shards differ from the whole run (-whole +merged):\n%s", diff)
		}
		if diff := cmp.Diff(wholeTotals, mergedTotals); diff != "" {
			t.Errorf("totals (-whole +merged):\n%s", diff)
		}
		for _, format := range []string{"text", "html"} {
			var stdout, stderr bytes.Buffer
			if status := Run(context.Background(), []string{"merge", "--format", format, path("cl-shard1.json"), path("cl-shard2.json")}, strings.NewReader(""), &stdout, &stderr); status != exitOK {
				t.Fatalf("merge --format %s: status %d: %s", format, status, stderr.String())
			}
			want := wholeTotals.String()
			if format == "html" {
				want = "<td>openai-chat/streaming/A05-round-robin-interleaving[split=3]</td>"
			}
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("merge --format %s does not say %q:\n%s", format, want, stdout.String())
			}
		}
		// Client and gateway results do not mix.
		status, stderr := conformRun(t, "merge", path("cl-shard1.json"), path("gw-shard1.json"))
		if status != exitUsage || !strings.Contains(stderr, "holds gateway results") {
			t.Errorf("merging client and gateway results: status %d, %s", status, stderr)
		}
	})
}

func TestShardFlag(t *testing.T) {
	for _, bad := range []string{"0/2", "3/2", "1/0", "1", "a/b", "-1/2", "1/2/3"} {
		var s shardFlag
		if err := s.Set(bad); err == nil {
			t.Errorf("--shard %q accepted as %s", bad, s.String())
		}
	}
	// Every run lands in exactly one of n shards.
	for n := 1; n <= 5; n++ {
		for k := range 23 {
			owners := 0
			for i := 1; i <= n; i++ {
				if (shardFlag{i, n}).keep(k) {
					owners++
				}
			}
			if owners != 1 {
				t.Errorf("run %d of %d shards is in %d shards", k, n, owners)
			}
		}
	}
}
