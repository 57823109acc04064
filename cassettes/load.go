package cassettes

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// corpus holds the cassettes imported from testdata/corpus, one folder per
// protocol.
//
//go:embed anthropic bedrock cohere gemini mistral openai-chat openai-responses other
var corpus embed.FS

// Corpus returns the imported cassettes as a file system whose names are
// "<protocol>/<file>.yaml".
func Corpus() fs.FS { return corpus }

// Folders returns the protocol folders of the built-in corpus, sorted:
// the protocols with recordings, and "other".
func Folders() []string {
	dirs, _ := fs.ReadDir(corpus, ".")
	var out []string
	for _, d := range dirs {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	return out
}

// Glob returns the names of the imported cassettes of one protocol folder
// ("anthropic", "openai-chat", ..., "other"), sorted, as
// "<protocol>/<file>.yaml"; Load reads them. An unknown folder is an error
// that lists the known ones.
//
//	names, err := cassettes.Glob("anthropic")
//	for _, name := range names {
//		c, err := cassettes.Load(name)
//		...
//	}
func Glob(protocol string) ([]string, error) {
	known := Folders()
	if protocol == "" || strings.ContainsAny(protocol, "/*?[\\") {
		return nil, fmt.Errorf("glob cassettes: bad protocol %q; known: %s", protocol, strings.Join(known, ", "))
	}
	names, err := fs.Glob(corpus, protocol+"/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("glob cassettes: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("glob cassettes: no cassettes for protocol %q; known: %s", protocol, strings.Join(known, ", "))
	}
	sort.Strings(names)
	return names, nil
}

// Load reads a cassette. A name returned by Glob ("<protocol>/<file>.yaml")
// is read from the imported corpus built into the package; any other path
// is read from disk. The cassette replays with Matcher.
func Load(p string) (*cassette.Cassette, error) {
	var (
		data []byte
		err  error
	)
	if inCorpus(p) {
		data, err = fs.ReadFile(corpus, p)
	}
	if data == nil {
		data, err = os.ReadFile(p)
	}
	if err != nil {
		return nil, fmt.Errorf("load cassette: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load cassette %s: %w", p, err)
	}
	c.Name = strings.TrimSuffix(path.Base(p), ".yaml")
	c.File = p
	return c, nil
}

// Parse decodes go-vcr v4 cassette YAML. The cassette replays with Matcher.
func Parse(data []byte) (*cassette.Cassette, error) {
	c := newCassette()
	c.IsNew = false
	if err := yaml.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("parse cassette: %w: %v", ErrMalformed, err)
	}
	if c.Version != cassette.CassetteFormatVersion {
		return nil, fmt.Errorf("parse cassette: %w: version %d, want %d", ErrMalformed, c.Version, cassette.CassetteFormatVersion)
	}
	for n, i := range c.Interactions {
		if i == nil {
			return nil, fmt.Errorf("parse cassette: %w: interaction %d is empty", ErrMalformed, n)
		}
	}
	return c, nil
}

// inCorpus reports whether name is a cassette of the built-in corpus.
func inCorpus(name string) bool {
	if !fs.ValidPath(name) || strings.Count(name, "/") != 1 {
		return false
	}
	fi, err := fs.Stat(corpus, name)
	return err == nil && !fi.IsDir()
}
