package unical_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestConstructorShape holds the one constructor style of
// docs/development.md ("Constructors"): every exported New* or Open*
// function outside internal/ that builds something takes
//
//   - nothing,
//   - one value of a struct type of its own package whose name ends in
//     Config (never a pointer, never functional options), or
//   - a context.Context and then that Config,
//
// or is a handle over a Client: (*unical.Client) or (*unical.Client,
// *unical.App), the two things a handle scopes, as Client.App takes an
// application's id. A function named New* that makes a plain value
// (unical.NewID's string, a master key's bytes) is not a constructor.
func TestConstructorShape(t *testing.T) {
	t.Parallel()
	checked := 0
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if dir != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "internal") {
			return filepath.SkipDir
		}
		if dir != "." {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		funcs, structs := parseConstructors(t, dir)
		for _, fn := range funcs {
			checked++
			if why := constructorShapeFault(fn.decl, structs, dir == "."); why != "" {
				t.Errorf("%s: %s %s; constructors take one Config (docs/development.md, Constructors)", fn.pos, fn.decl.Name.Name, why)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked %d constructors; the walk no longer finds the module's packages", checked)
	}
}

type constructorDecl struct {
	decl *ast.FuncDecl
	pos  string
}

// parseConstructors returns the exported New*/Open* functions of the
// package in dir (its non-test files, package main left out) and the
// names of the struct types it declares.
func parseConstructors(t *testing.T, dir string) ([]constructorDecl, map[string]bool) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var funcs []constructorDecl
	structs := map[string]bool{}
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			continue
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						if _, ok := ts.Type.(*ast.StructType); ok {
							structs[ts.Name.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if decl.Recv == nil && isConstructorName(decl.Name.Name) && makesSomething(decl) {
					funcs = append(funcs, constructorDecl{decl: decl, pos: fset.Position(decl.Pos()).String()})
				}
			}
		}
	}
	return funcs, structs
}

// isConstructorName reports whether name is New, Open, or New/Open
// followed by a capitalised word (NewHandler, not Newest).
func isConstructorName(name string) bool {
	for _, prefix := range []string{"New", "Open"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok && (rest == "" || unicode.IsUpper(rune(rest[0]))) {
			return true
		}
	}
	return false
}

// makesSomething reports whether fn's first result is a pointer, a named
// type or an interface: a thing built, not a plain string or byte array.
func makesSomething(fn *ast.FuncDecl) bool {
	if fn.Type.Results == nil || len(fn.Type.Results.List) == 0 {
		return false
	}
	switch r := fn.Type.Results.List[0].Type.(type) {
	case *ast.StarExpr, *ast.SelectorExpr:
		return true
	case *ast.Ident:
		return !basicTypes[r.Name]
	}
	return false
}

var basicTypes = map[string]bool{
	"string": true, "bool": true, "int": true, "int64": true, "uint64": true, "byte": true, "error": true,
}

// constructorShapeFault says what is wrong with fn's parameters, or ""
// when they have one of the shapes of TestConstructorShape.
func constructorShapeFault(fn *ast.FuncDecl, structs map[string]bool, root bool) string {
	var params []ast.Expr
	for _, field := range fn.Type.Params.List {
		n := max(len(field.Names), 1)
		for range n {
			params = append(params, field.Type)
		}
	}
	isConfig := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && strings.HasSuffix(id.Name, "Config") && structs[id.Name]
	}
	isContext := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Context" && isIdent(sel.X, "context")
	}
	isRootPtr := func(e ast.Expr, name string) bool {
		star, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		if root {
			return isIdent(star.X, name)
		}
		sel, ok := star.X.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == name && isIdent(sel.X, "unical")
	}
	switch {
	case len(params) == 0:
		return ""
	case len(params) == 1 && isConfig(params[0]):
		return ""
	case len(params) == 2 && isContext(params[0]) && isConfig(params[1]):
		return ""
	case len(params) == 1 && isRootPtr(params[0], "Client"):
		return "" // a handle over the Client
	case len(params) == 2 && isRootPtr(params[0], "Client") && isRootPtr(params[1], "App"):
		return "" // a handle over one application
	}
	return "takes " + describeParams(params)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func describeParams(params []ast.Expr) string {
	var b strings.Builder
	b.WriteString("(")
	for i, p := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(exprString(p))
	}
	b.WriteString(")")
	return b.String()
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.Ellipsis:
		return "..." + exprString(e.Elt)
	case *ast.ArrayType:
		return "[]" + exprString(e.Elt)
	case *ast.FuncType:
		return "func(...)"
	}
	return "?"
}
