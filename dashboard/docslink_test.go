package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestNavLinksAPIReference checks that every page of a logged-in operator
// links the API reference at /docs, served by the same server.
func TestNavLinksAPIReference(t *testing.T) {
	f := newFixture(t, "")
	b := f.browser(t)
	b.mustLogin()
	for _, path := range []string{"/dashboard/apps", "/dashboard/overview", "/dashboard/audit"} {
		p := b.get(path)
		if p.status != http.StatusOK || !strings.Contains(p.body, `<a href="/docs">API reference</a>`) {
			t.Errorf("GET %s = %d without a link to /docs:\n%s", path, p.status, p.body)
		}
	}
}
