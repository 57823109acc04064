package cassettes

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the imported cassettes and PROVENANCE.md from testdata/corpus")

// corpusDir is the recorded traffic the cassettes are imported from.
const corpusDir = "../testdata/corpus"

// corpusFile is one source file of the corpus.
type corpusFile struct {
	protocol string // its folder
	name     string // its file name
}

func (f corpusFile) source() string { return filepath.Join(corpusDir, f.protocol, f.name) }

// cassette returns the path of the cassette imported from f.
func (f corpusFile) cassette() string { return filepath.Join(f.protocol, CassetteName(f.name)) }

// options returns the import options for f: the folder names the protocol,
// except other/, whose files say theirs.
func (f corpusFile) options() []Option {
	switch {
	case f.protocol != "other":
		return []Option{WithProtocol(f.protocol)}
	case strings.Contains(f.name, "google-interactions"):
		return []Option{WithProtocol("google-interactions")}
	}
	return nil
}

// corpusFiles lists every source file of the corpus.
func corpusFiles(t *testing.T) []corpusFile {
	t.Helper()
	dirs, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusFile
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(corpusDir, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !f.IsDir() {
				out = append(out, corpusFile{d.Name(), f.Name()})
			}
		}
	}
	if len(out) < 199 {
		t.Fatalf("corpus has %d files, want at least 199", len(out))
	}
	return out
}

// TestImportCorpus imports every corpus file and checks the committed
// cassette equals the fresh import byte for byte, and that no committed
// cassette lacks a source. With -update it rewrites them instead.
func TestImportCorpus(t *testing.T) {
	files := corpusFiles(t)
	want := map[string]bool{}
	for _, f := range files {
		want[f.cassette()] = true
		res, err := Import(f.source(), mustRead(t, f.source()), f.options()...)
		if err != nil {
			t.Errorf("%s: %v", f.source(), err)
			continue
		}
		data, err := Marshal(res.Cassette)
		if err != nil {
			t.Errorf("%s: %v", f.source(), err)
			continue
		}
		if *update {
			if err := WriteFile(f.cassette(), data, true); err != nil {
				t.Error(err)
			}
			continue
		}
		got, err := os.ReadFile(f.cassette())
		if err != nil {
			t.Errorf("%s: %v (run go test ./cassettes -run TestImportCorpus -update)", f.source(), err)
			continue
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s drifted from a fresh import of %s at line %d (run go test ./cassettes -run TestImportCorpus -update)", f.cassette(), f.source(), firstDiffLine(got, data))
		}
	}
	committed, err := filepath.Glob("*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range committed {
		if strings.HasPrefix(c, "testdata"+string(filepath.Separator)) {
			continue
		}
		if !want[c] {
			if *update {
				if err := os.Remove(c); err != nil {
					t.Error(err)
				}
				continue
			}
			t.Errorf("%s has no source in %s", c, corpusDir)
		}
	}
	prov, err := provenance(files)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := WriteFile("PROVENANCE.md", prov, true); err != nil {
			t.Error(err)
		}
		return
	}
	if got := mustRead(t, "PROVENANCE.md"); !bytes.Equal(got, prov) {
		t.Errorf("PROVENANCE.md drifted at line %d (run go test ./cassettes -run TestImportCorpus -update)", firstDiffLine(got, prov))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// firstDiffLine returns the 1-based line where a and b first differ.
func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for n := 0; n < len(la) && n < len(lb); n++ {
		if !bytes.Equal(la[n], lb[n]) {
			return n + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// sourceRow is what the corpus PROVENANCE.md says of one file.
type sourceRow struct {
	repo, commit, path, license, shows string
}

// provenance builds cassettes/PROVENANCE.md from the corpus PROVENANCE.md:
// one row per cassette with its source file, repository, full commit, path
// upstream and license. A corpus file the corpus PROVENANCE.md does not
// list is an error.
func provenance(files []corpusFile) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "PROVENANCE.md"))
	if err != nil {
		return nil, err
	}
	fullCommit := map[string]string{} // abbreviated -> full
	rows := map[string]sourceRow{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 7 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for n := range cells {
			cells[n] = strings.Trim(strings.TrimSpace(cells[n]), "`")
		}
		if len(cells[3]) == 40 { // the sources table: short name, repository, commit
			fullCommit[cells[3][:12]] = cells[3]
			continue
		}
		shows := ""
		if len(cells) > 7 {
			shows = cells[6]
		}
		rows[cells[1]] = sourceRow{repo: cells[2], commit: cells[3], path: cells[4], license: cells[5], shows: shows}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# Imported cassettes\n\n")
	b.WriteString("Generated by `go test ./cassettes -run TestImportCorpus -update` from `testdata/corpus/` and its\n")
	b.WriteString("PROVENANCE.md; do not edit by hand. Each cassette is the go-vcr v4 YAML import of one corpus file, redacted\n")
	b.WriteString("(see doc.go). Cassettes from response-only fixtures carry a made-up request marked\n")
	b.WriteString("`X-Conform-Response-Only: true`. The corpus files are verbatim copies of data files from the repositories\n")
	b.WriteString("below, under the licenses named.\n\n")
	fmt.Fprintf(&b, "%d cassettes.\n\n", len(files))
	b.WriteString("The last column repeats what the corpus PROVENANCE.md says the recording shows.\n\n")
	b.WriteString("| cassette | source file | format | repository | commit | path in repository | license | what it shows |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	sorted := append([]corpusFile(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].cassette() < sorted[j].cassette() })
	for _, f := range sorted {
		key := f.protocol + "/" + f.name
		row, ok := rows[key]
		if !ok {
			return nil, fmt.Errorf("provenance: %s is not listed in %s/PROVENANCE.md", key, corpusDir)
		}
		commit := row.commit
		if full, ok := fullCommit[commit]; ok {
			commit = full
		}
		data, err := os.ReadFile(f.source())
		if err != nil {
			return nil, err
		}
		format, err := DetectFormat(f.name, data)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "| `%s` | `testdata/corpus/%s` | %s | %s | `%s` | `%s` | %s | %s |\n",
			filepath.ToSlash(f.cassette()), key, format, row.repo, commit, row.path, row.license, row.shows)
	}
	return b.Bytes(), nil
}
