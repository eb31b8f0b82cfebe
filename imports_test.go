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
