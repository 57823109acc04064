package providers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolconform/conform/providers/protocol"
)

// separatePrograms are the module's directories that hold programs of
// their own, not conform's packages: benchmarks (their own go.mod), the
// client matrix's subjects, scripts, and examples written as a user's
// program would be, naming the protocol it talks to.
var separatePrograms = []string{"bench", "clients", "scripts", "examples"}

// notProtocols are literals that spell a protocol's name but name
// something else, by file: model families and Bedrock model-id vendor
// prefixes in the agent's capability table, and the names SGLang gives
// its Mistral tool-call detector in textcalls' alias table.
var notProtocols = map[string][]string{
	"agent/capabilities.go":    {"gemini", "mistral", "anthropic", "mistral", "cohere"},
	"textcalls/jsonformats.go": {"mistral"},
	"textcalls/mistral.go":     {"mistral"},
}

// TestNoProtocolLiteralsOutsideProviders lists every string literal that
// is exactly a protocol's name in the module's non-test Go files outside
// providers/ and fails for each: a fact about a protocol belongs to its
// descriptor (Protocol), and a protocol's name to the one list
// (providers.go). The command-line help (cmd/conform) needs none either.
func TestNoProtocolLiteralsOutsideProviders(t *testing.T) {
	names := protocol.Names()
	root := ".."
	allowed := map[string][]string{}
	for f, lits := range notProtocols {
		allowed[f] = slices.Clone(lits)
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "providers" || slices.Contains(separatePrograms, rel) || d.Name() == "testdata" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !slices.Contains(names, s) {
				return true
			}
			if i := slices.Index(allowed[rel], s); i >= 0 {
				allowed[rel] = slices.Delete(allowed[rel], i, i+1)
				return true
			}
			t.Errorf("%s: protocol name %q outside providers/: ask the protocol's descriptor (providers.Describe) instead", fset.Position(lit.Pos()), s)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s; the walk did not find the module", files, root)
	}
	for f, left := range allowed {
		if len(left) > 0 {
			t.Errorf("%s: allowed literals %q no longer found; drop them from notProtocols", f, left)
		}
	}
}
