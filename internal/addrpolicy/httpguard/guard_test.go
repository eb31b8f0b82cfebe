package httpguard_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outboundConstructions are the expressions that make a connection, or a
// client or transport that makes them, without this package: a
// composite literal of one of the types, or a use of one of the package
// members (imported under its usual name).
var (
	outboundTypes   = []string{"http.Client", "http.Transport", "net.Dialer"}
	outboundMembers = []string{
		"http.DefaultClient", "http.DefaultTransport", "http.Get", "http.Head", "http.Post", "http.PostForm",
		"net.Dial", "net.DialTimeout", "net.DialTCP", "tls.Dial", "tls.DialWithDialer", "smtp.Dial", "smtp.SendMail",
	}
)

// guardedConstructions lists, by file (slash-separated, from the module
// root) and construction, every place outside this package allowed to
// build an outbound client, transport or dialer, and why it is safe. A
// new one must be added here with its reason, or use Client, Transport
// or addrpolicy.DialFunc.
var guardedConstructions = map[string]string{
	// The policy's own dialer.
	"internal/addrpolicy/addrpolicy.go net.Dialer": "the guarded dialer itself: Control refuses forbidden addresses",
	// Webhook deliveries: a transport of its own (timeouts, pool sizes)
	// whose DialContext is addrpolicy.Dialer's.
	"webhooksender/webhooksender.go http.Transport": "DialContext is addrpolicy.Dialer(timeout, AllowPrivate)",
	"webhooksender/webhooksender.go http.Client":    "its Transport is the guarded one above",
	// CalDAV: a client without a Transport gets Transport(AllowPrivateTargets).
	"provider/caldav/provider.go http.Client": "Transport set to httpguard.Transport when the caller gave none",
	// The ICS feed provider (which imports nothing internal) builds its
	// client over the kit's guarded transport.
	"provider/icsfeed/icsfeed.go http.Client": "Transport is httpkit.GuardedTransport(AllowPrivateTargets)",
	// The server's providers share one guarded client.
	"cmd/unicald/providers.go http.Client": "Transport is httpguard.Transport(--allow-private-targets)",
	// A library default: an embedding program passes its own client, as
	// unicald does (cmd/unicald/providers.go); tests point it at fakes.
	"internal/adapter/providerhttp/providerhttp.go http.Client": "Google's and Graph's default client when Config.HTTPClient is nil; unicald always passes a guarded one",
	// Clients of a unicald server, not of configured third-party URLs.
	"httpclient/client.go http.Client":             "the /v1 client library: it calls the server its user names",
	"cmd/unicald/admin.go http.Client":             "unicald's admin commands call the server the operator names",
	"cmd/unicald/mcp.go http.Client":               "unicald mcp calls the server the agent's operator names, without following redirects",
	"examples/restclient/main.go http.Client":      "an example program calling its own server",
	"scripts/benchhttp/main.go http.Client":        "a benchmark driving a local server",
	"scripts/benchhttp/main.go http.Transport":     "a benchmark driving a local server",
	"scripts/benchhttp/main.go http.DefaultClient": "a benchmark driving a local server",
	// The base of the guarded transport: cloned, never used itself.
	"internal/addrpolicy/httpguard/httpguard.go http.DefaultTransport": "cloned, then given the guarded dialer",
	"internal/addrpolicy/httpguard/httpguard.go http.Client":           "Client: over Transport",
}

// TestOutboundClientsAreGuarded walks every non-test Go file of the
// module and fails for a construction of an outbound client, transport
// or dialer that is not in guardedConstructions, so that a new client of
// a configured URL cannot forget the address policy. Test fakes under
// internal/*test and testdata are skipped: they only run in tests.
func TestOutboundClientsAreGuarded(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" ||
				(strings.HasPrefix(rel, "internal/") && strings.HasSuffix(name, "test"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if name := selectorName(n.Type); slices.Contains(outboundTypes, name) {
					found[rel+" "+name] = true
				}
			case *ast.SelectorExpr:
				if name := selectorName(n); slices.Contains(outboundMembers, name) {
					found[rel+" "+name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var unlisted, stale []string
	for k := range found {
		if _, ok := guardedConstructions[k]; !ok {
			unlisted = append(unlisted, k)
		}
	}
	for k := range guardedConstructions {
		if !found[k] {
			stale = append(stale, k)
		}
	}
	slices.Sort(unlisted)
	slices.Sort(stale)
	if d := cmp.Diff([]string(nil), unlisted); d != "" {
		t.Errorf("outbound clients, transports or dialers built without httpguard (use httpguard.Client, httpguard.Transport or addrpolicy.DialFunc, or list the construction in guardedConstructions with why it is safe) (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string(nil), stale); d != "" {
		t.Errorf("guardedConstructions lists constructions that are gone; remove them (-want +got):\n%s", d)
	}
}

// selectorName returns "pkg.Name" for a selector expression on a package
// identifier (also behind & or *), "" for anything else.
func selectorName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.UnaryExpr:
			e = x.X
			continue
		}
		break
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return pkg.Name + "." + sel.Sel.Name
}
