package core

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports fails if package core imports anything but the standard
// library and core's own sub-packages: core is the vocabulary every
// adapter imports, so a library it pulled in would reach them all.
func TestImports(t *testing.T) {
	ctx := build.Default
	ctx.UseAllFiles = true // every file, whatever its build constraints
	pkg, err := ctx.ImportDir(".", build.ImportComment)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range pkg.Imports {
		first, _, _ := strings.Cut(path, "/")
		standard := !strings.Contains(first, ".")
		own := strings.HasPrefix(path, "github.com/toolconform/conform/core/")
		if !standard && !own {
			t.Errorf("core imports %q, neither the standard library nor a package under core/", path)
		}
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("found no imports in package core; the test reads the wrong directory")
	}
}
