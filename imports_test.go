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
		for _, banned := range []string{"/httpapi", "/store/", "/provider/", "golang.org/x/oauth2", "/engine", "/availability", "/adminapi", "/dashboard"} {
			if strings.Contains(dep, banned) {
				t.Errorf("the root package depends on %s", dep)
			}
		}
		if dep == "net/http" {
			t.Errorf("the root package depends on net/http")
		}
	}
}

// TestImportRules keeps the parts apart: the engine is built on the root
// and the root never reaches it; the Go client of the API reads the error
// table without linking the server; the providers' retry loop stays free
// of the domain.
func TestImportRules(t *testing.T) {
	t.Parallel()
	const mod = "github.com/unical/unical"
	tests := []struct {
		pkg    string
		need   []string // depended on
		banned []string // never depended on
	}{
		{pkg: "./engine", need: []string{mod}},
		{pkg: ".", banned: []string{mod + "/engine", mod + "/availability", mod + "/oauth", mod + "/observe", mod + "/rooms", mod + "/subscriptions", mod + "/booking", mod + "/series"}},
		// Webhook subscriptions and their provider watches are built on the
		// Client and serve no routes; the engine renews watches through
		// them, and the Go client of the API shares their types.
		{pkg: "./subscriptions", need: []string{mod}, banned: []string{mod + "/engine", mod + "/httpapi", "net/http"}},
		{pkg: "./engine", need: []string{mod + "/subscriptions"}},
		// The browser OAuth flow is built on the Client and serves no routes itself.
		{pkg: "./oauth", need: []string{mod}, banned: []string{mod + "/httpapi", "net/http"}},
		// The measuring provider wrapper is built on the Provider contract alone.
		{pkg: "./observe", need: []string{mod}, banned: []string{"net/http"}},
		// The front ends share their wire code through internal/adapter/httpwire;
		// none imports another.
		{pkg: "./adminapi", banned: []string{mod + "/httpapi", mod + "/dashboard"}},
		// The public booking pages are a front end of their own over
		// package booking; unicald hands them httpapi's address limiters.
		{pkg: "./bookingpage", need: []string{mod + "/booking"}, banned: []string{mod + "/httpapi", mod + "/adminapi", mod + "/dashboard", mod + "/engine"}},
		{pkg: "./dashboard", banned: []string{mod + "/httpapi", mod + "/adminapi"}},
		{pkg: "./httpclient", banned: []string{mod + "/httpapi", mod + "/engine", mod + "/ics", mod + "/internal/adapter/icalmap", mod + "/internal/winzone"}},
		{pkg: "./internal/retry", banned: []string{mod}},
		// Retries are counted in the one retry loop, through the call's
		// context: the bundled providers do not report them themselves.
		{pkg: "./internal/retrynote", banned: []string{mod, "net/http"}},
		{pkg: "./provider/google", banned: []string{mod + "/observe"}},
		{pkg: "./provider/microsoft", banned: []string{mod + "/observe"}},
		{pkg: "./provider/caldav", banned: []string{mod + "/observe"}},
		// Helpers the root imports: they must not import it back.
		{pkg: "./internal/ttlcache", banned: []string{mod}},
		{pkg: "./internal/recur", banned: []string{mod}},
		{pkg: "./internal/pagetoken", banned: []string{mod}},
		{pkg: "./internal/reserved", banned: []string{mod}},
		{pkg: "./internal/seal", banned: []string{mod}},
		// The Idempotency-Key store contract and runner: an outsider's Store implements it.
		{pkg: "./idempotency", banned: []string{mod}},
		// The versioned records extensions keep in the Store: the Store embeds the contract.
		{pkg: "./records", banned: []string{mod}},
		{pkg: "./internal/webhook", banned: []string{mod}},
		// The outbox's contracts are public and embedded in unical.Store:
		// the root imports them, so they import no part of unical.
		{pkg: "./outbox", banned: []string{mod}},
		{pkg: "./internal/timefmt", banned: []string{mod}},
		{pkg: "./internal/addrpolicy", banned: []string{mod}},
		{pkg: "./internal/identity", banned: []string{mod}},
		{pkg: "./internal/revocation", banned: []string{mod}},
		// Public contracts the root's Store embeds: leaves, as a Store
		// outside the module implements them.
		{pkg: "./audit", banned: []string{mod}},
		{pkg: "./sweep", banned: []string{mod}},
		// The sealing under the master key, which the root uses and hands
		// to the parts beside it: it takes ids and bytes, not records.
		{pkg: "./keys", banned: []string{mod}},
		{pkg: "./storeversion", banned: []string{mod}},
		{pkg: "./availability", need: []string{mod}, banned: []string{mod + "/httpapi", mod + "/engine"}},
		// The "this and following" edits are built on the App's exported
		// operations and serve no routes themselves.
		{pkg: "./series", need: []string{mod}, banned: []string{mod + "/httpapi", mod + "/engine", "net/http"}},
		// The room directory is built on the Client and serves no routes itself.
		{pkg: "./rooms", need: []string{mod}, banned: []string{mod + "/httpapi", mod + "/engine", "net/http"}},
		// The booking layer is built on the Client and on availability,
		// reaches the Store only through the root's interfaces, and serves
		// no routes itself.
		{pkg: "./booking", need: []string{mod, mod + "/availability"}, banned: []string{mod + "/httpapi", mod + "/engine", mod + "/store/bolt", mod + "/store/postgres", "net/http"}},
		// Scoped tokens are decided and kept over the Client and the
		// Store's interfaces; httpapi serves them, stores implement their
		// GrantStore without importing the package.
		{pkg: "./scopedtoken", need: []string{mod}, banned: []string{mod + "/httpapi", mod + "/engine", mod + "/store/bolt", mod + "/store/postgres"}},
		{pkg: "./store/bolt", banned: []string{mod + "/scopedtoken"}},
		{pkg: "./store/postgres", banned: []string{mod + "/scopedtoken"}},
		// The MCP server reaches unical only through the /v1 API, so that
		// its tools are checked and answered as /v1 requests are.
		{pkg: "./mcpserver", banned: []string{mod + "/httpapi", mod + "/engine", mod + "/store/bolt", mod + "/store/postgres", mod + "/httpclient"}},
	}
	for _, tt := range tests {
		out, err := exec.Command("go", "list", "-deps", tt.pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", tt.pkg, err)
		}
		deps := map[string]bool{}
		for _, dep := range strings.Fields(string(out)) {
			deps[dep] = true
		}
		for _, want := range tt.need {
			if !deps[want] {
				t.Errorf("%s does not depend on %s", tt.pkg, want)
			}
		}
		for _, banned := range tt.banned {
			if deps[banned] {
				t.Errorf("%s depends on %s", tt.pkg, banned)
			}
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
