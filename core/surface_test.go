package core

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
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

// maxExported bounds core's exported surface (issue 16: core is the
// vocabulary, and a small one).
const maxExported = 150

// TestExportedSurface counts core's exported identifiers the way go doc
// lists them: functions, types, methods of exported types, constants and
// variables. It fails when the count passes maxExported.
func TestExportedSurface(t *testing.T) {
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, ".", notTest, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range pkgs["core"].Files {
		for _, d := range f.Decls {
			names = append(names, exportedNames(d)...)
		}
	}
	if len(names) > maxExported {
		slices.Sort(names)
		t.Errorf("core exports %d identifiers, more than %d:\n%s", len(names), maxExported, strings.Join(names, "\n"))
	}
	if len(names) < 50 {
		t.Fatalf("counted %d exported identifiers in core; the count reads the wrong files", len(names))
	}
}

// exportedNames returns the exported identifiers d declares, methods
// named Type.Method.
func exportedNames(d ast.Decl) []string {
	var out []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
		typ := d.Recv.List[0].Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
			out = append(out, id.Name+"."+d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					out = append(out, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}
