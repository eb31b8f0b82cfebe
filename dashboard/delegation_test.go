package dashboard_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/unical/unical/admin"
)

// TestDelegationForms sets a Microsoft 365 credential from the Providers
// page, which then shows its status and the admin consent URL but never
// the secret; a mailbox outside its domains is refused naming email, and
// the credential can be removed.
func TestDelegationForms(t *testing.T) {
	f := newFixture(t, "")
	b := f.browser(t)
	token := b.mustLogin()
	b.post("/dashboard/apps", url.Values{"csrf": {token}, "name": {"corp"}})
	apps, _ := admin.Of(f.client).ListApplicationViews(t.Context())
	app := "/dashboard/apps/" + apps[0].ID

	if p := b.get(app + "/providers"); !strings.Contains(p.body, "No delegation credential") {
		t.Fatalf("the providers page does not say there is no credential:\n%s", p.body)
	}
	const secret = "tenant-secret-needle-8c1d"
	p := b.post(app+"/delegations/provider_b", url.Values{"csrf": {token}, "tenantId": {"tenant-1"}, "clientId": {"app-1"}, "clientSecret": {secret}, "domains": {"corp.example.org"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("save delegation = %d:\n%s", p.status, p.body)
	}
	page := html.UnescapeString(b.get(app + "/providers").body)
	for _, want := range []string{"Status: <strong class=\"status-pending\">pending</strong>", "Domains: corp.example.org", "https://login.microsoftonline.com/tenant-1/adminconsent?client_id=app-1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the providers page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, secret) || strings.Contains(f.logs.String(), secret) {
		t.Errorf("the client secret is on the page or in the logs")
	}

	for _, c := range []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"mailbox outside the domains", app + "/delegations/provider_b/verify", url.Values{"email": {"grace@elsewhere.example"}}, 400, "email"},
		{"Google key that is not JSON", app + "/delegations/provider_a", url.Values{"serviceAccountKey": {"not json"}, "domains": {"corp.example.com"}}, 400, "serviceAccountKey"},
		{"Microsoft without domains", app + "/delegations/provider_b", url.Values{"tenantId": {"t"}, "clientId": {"c"}, "clientSecret": {"s"}}, 400, "domains"},
	} {
		form := url.Values{"csrf": {token}}
		for k, v := range c.form {
			form[k] = v
		}
		p := b.post(c.path, form)
		if p.status != c.status || !strings.Contains(p.body, `class="error"`) || !strings.Contains(p.body, c.want) {
			t.Errorf("%s: = %d, want %d with an error naming %q:\n%s", c.name, p.status, c.status, c.want, p.body)
		}
	}

	if p := b.post(app+"/delegations/provider_b/remove", url.Values{"csrf": {token}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove delegation = %d:\n%s", p.status, p.body)
	}
	if _, err := admin.Of(f.client).GetDelegation(t.Context(), apps[0].ID, "PROVIDER_B"); err == nil {
		t.Errorf("the credential is still there after remove")
	}
}
