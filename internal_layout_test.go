package unical_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInternalDirections guards the whole of internal/, whose folder says
// which way a package may depend:
//
//   - internal/<name>: leaf helpers. They import nothing of this module
//     but other leaf helpers, so anything (the root included) can use them.
//   - internal/adapter/<name>: code between the domain and the outside
//     (provider HTTP, iCalendar, wire codes). It may import the root and
//     leaf helpers, never a transport, the engine, a store or a test kit.
//   - internal/testkit/<name>: fakes and test servers. Only tests import
//     them; a test kit may import anything.
//
// A new package under internal/ is checked by where it is put.
func TestInternalDirections(t *testing.T) {
	t.Parallel()
	const mod = "github.com/unical/unical"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	kind := func(pkg string) string {
		switch {
		case strings.HasPrefix(pkg, mod+"/internal/testkit/"):
			return "testkit"
		case strings.HasPrefix(pkg, mod+"/internal/adapter/"):
			return "adapter"
		case strings.HasPrefix(pkg, mod+"/internal/"):
			return "leaf"
		case pkg == mod || strings.HasPrefix(pkg, mod+"/"):
			return "module"
		}
		return "outside"
	}
	outsideAdapters := []string{"/httpapi", "/adminapi", "/dashboard", "/cmd/", "/engine", "/store/"}
	checked := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		k := kind(pkg)
		checked[k]++
		for _, imp := range imports {
			ik := kind(imp)
			switch {
			case ik == "testkit" && k != "testkit":
				t.Errorf("%s imports the test kit %s outside its tests", pkg, imp)
			case k == "leaf" && ik != "leaf" && ik != "outside":
				t.Errorf("leaf helper %s imports %s; leaves import only other leaves", pkg, imp)
			case k == "adapter" && ik == "module":
				for _, banned := range outsideAdapters {
					if strings.Contains(strings.TrimPrefix(imp, mod)+"/", banned) {
						t.Errorf("adapter %s imports %s", pkg, imp)
					}
				}
			}
		}
	}
	for _, k := range []string{"leaf", "adapter", "testkit"} {
		if checked[k] == 0 {
			t.Errorf("found no %s package under internal/; the layout this test guards has moved", k)
		}
	}
}
