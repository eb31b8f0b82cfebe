package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/apidocs"
	"github.com/unical/unical/dashboard"
)

// firstStart creates a default application when there is none and
// returns it, so that a newcomer can call the API right away; nil when
// applications exist.
func (m *Main) firstStart(ctx context.Context, svc *admin.Service) (*admin.CreatedApplication, error) {
	apps, err := svc.ListApplications(ctx)
	if err != nil || len(apps) > 0 {
		return nil, err
	}
	return svc.CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("default")})
}

// adminToken sets the operator token of the admin API from
// UNICAL_ADMIN_TOKEN, or creates one on first start and returns it, to be
// printed once. Only its hash is stored; the token is never logged.
func (m *Main) adminToken(ctx context.Context, client *unical.Client) (string, error) {
	if v := m.Getenv("UNICAL_ADMIN_TOKEN"); v != "" {
		if err := admin.Of(client).SetAdminToken(ctx, v); err != nil {
			return "", fmt.Errorf("UNICAL_ADMIN_TOKEN: %s", unical.ErrorMessage(err))
		}
		return "", nil
	}
	return admin.Of(client).EnsureAdminToken(ctx)
}

// baseURL is where the server is reached: --public-url when set, else
// the listening address, with a wildcard host (0.0.0.0, ::) as loopback.
func baseURL(addr net.Addr, publicURL string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/")
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// printStart tells the operator, once the server listens, where it is and
// what to open. On first start (created or token set) it also prints the
// new API key and admin token, each shown only now, and a first request
// to try; later starts print only the addresses, no secret.
func (m *Main) printStart(addr net.Addr, publicURL string, created *admin.CreatedApplication, token string) {
	base := baseURL(addr, publicURL)
	var b strings.Builder
	fmt.Fprintf(&b, "unicald is listening on %s.\n", addr)
	if created != nil {
		fmt.Fprintf(&b, "\nCreated the default application.\n  applicationId: %s\n  apiKey:        %s\nThe API key is shown only now; keep it.\n", created.ApplicationID, created.APIKey)
	}
	if token != "" {
		fmt.Fprintf(&b, "\nCreated the admin token of /admin/v1 (Authorization: Bearer ...), also the dashboard's login.\n  adminToken:    %s\nIt is shown only now and stored only as a hash; keep it, or set UNICAL_ADMIN_TOKEN to replace it.\n", token)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  API:           %s/v1\n", base)
	fmt.Fprintf(&b, "  Dashboard:     %s%s (log in with the admin token)\n", base, dashboard.Prefix)
	fmt.Fprintf(&b, "  API reference: %s%s\n", base, apidocs.Prefix)
	if created == nil && token == "" {
		b.WriteString("\nThe API key and admin token were shown once, at first start. Lost them? Start with\n" +
			"UNICAL_ADMIN_TOKEN set to a new token (32 characters or more) to replace the admin token, then\n" +
			"make a new key: unicald keys create --app APP_ID --server " + base + " (application ids: unicald apps list).\n")
	}
	if created != nil {
		fmt.Fprintf(&b, "\nTry it:\n  curl -H 'x-api-key: %s' %s/v1/endUserAccounts\n", created.APIKey, base)
	}
	fmt.Fprint(m.Stdout, b.String())
}
