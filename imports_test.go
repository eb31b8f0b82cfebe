package unical_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports keeps the root package free of server, store and provider
// code: those depend on the root, never the reverse.
func TestImports(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/httpapi", "/store/", "/provider/", "golang.org/x/oauth2"} {
			if strings.Contains(dep, banned) {
				t.Errorf("the root package depends on %s", dep)
			}
		}
		if dep == "net/http" {
			t.Errorf("the root package depends on net/http")
		}
	}
}

// TestExamplesImportNoInternal keeps examples/ to what a program outside
// this module can import: an example that needs an internal package shows
// a door that is locked to everyone else, and the package should be made
// public instead.
func TestExamplesImportNoInternal(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./examples/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 3 {
		t.Fatalf("go list found %d example packages, want at least 3:\n%s", len(lines), out)
	}
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if internalPath(imp) {
				t.Errorf("%s imports %s; examples may import only public packages", pkg, imp)
			}
		}
	}
}

// internalPath reports whether an import path names an internal package,
// which only code inside the same tree may import.
func internalPath(path string) bool {
	return strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal") || path == "internal"
}

// TestImportsNoOperatorSide keeps the operator side (package admin, the
// admin API and the dashboard) out of the root: it is built on the root.
func TestImportsNoOperatorSide(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/unical/unical/admin", "github.com/unical/unical/adminapi", "github.com/unical/unical/dashboard":
			t.Errorf("the root package depends on %s", dep)
		}
	}
}
