package icsfeed_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoInternal: the provider is built on the root package and
// provider/kit alone, as one outside this module would be.
func TestImportsNoInternal(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.Contains(imp, "/internal/") {
			t.Errorf("provider/icsfeed imports %s", imp)
		}
	}
}
