package scenario

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// layerOf is the room a file of this package belongs to (doc.go): 0 the
// fleet and the JVM plumbing every scenario runs on, 1 the query loads on
// top of it, 2 the scenarios on top of both.
func layerOf(file string) int {
	switch {
	case strings.HasPrefix(file, "queries"):
		return 1
	case file == "scenario.go", file == "doc.go", file == "owned.go", file == "source_table.go",
		file == "changelog_read.go", file == "verify_restore.go", file == "ks_single.go",
		strings.HasPrefix(file, "fleet"), strings.HasPrefix(file, "kstreams_"):
		return 0
	}
	return 2
}

var layerNames = []string{"fleet and JVM plumbing", "query loads", "scenarios"}

// TestNoFileReachesUpALayer holds the package's rooms apart: no file of
// the fleet names a package-level function, type, variable or constant of
// the query loads or the scenarios, and no query load names one of a
// scenario. (It reads names, not types: a method reached through a value
// of an upper layer's type is caught where that type or its constructor is
// named.)
func TestNoFileReachesUpALayer(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	definedIn := map[string]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = f
		for name := range topLevelNames(f) {
			definedIn[name] = p
		}
	}
	var problems []string
	for p, f := range files {
		own := topLevelNames(f)
		seen := map[string]bool{}
		var walk func(n ast.Node) bool
		walk = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv != nil { // a method's name is its type's, not the package's
					ast.Inspect(n.Recv, walk)
					ast.Inspect(n.Type, walk)
					if n.Body != nil {
						ast.Inspect(n.Body, walk)
					}
					return false
				}
			case *ast.KeyValueExpr:
				if _, isField := n.Key.(*ast.Ident); isField { // a struct literal's field name
					ast.Inspect(n.Value, walk)
					return false
				}
			case *ast.SelectorExpr: // Sel is a field, a method or another package's name
				ast.Inspect(n.X, walk)
				return false
			case *ast.Ident:
				if n.Obj != nil || own[n.Name] || seen[n.Name] {
					return true // n.Obj: the parser resolved it inside the file (a local)
				}
				if def, ok := definedIn[n.Name]; ok && layerOf(def) > layerOf(p) {
					seen[n.Name] = true
					problems = append(problems, p+" ("+layerNames[layerOf(p)]+") names "+n.Name+" of "+def+" ("+layerNames[layerOf(def)]+")")
				}
			}
			return true
		}
		ast.Inspect(f, walk)
	}
	sort.Strings(problems)
	for _, pr := range problems {
		t.Error(pr)
	}
	if len(files) < 40 {
		t.Fatalf("read %d files: the glob missed the package", len(files))
	}
}

// topLevelNames are the package-level names a file declares (methods are
// reached through their type, so they are left out).
func topLevelNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" {
				out[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}
