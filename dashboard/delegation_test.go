package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/memory"
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

// delegatingProvider is the memory provider standing in for Microsoft
// 365 with a delegation credential: it connects any of its users by
// email alone, as microsoft.Provider does through the tenant's
// app-only token.
type delegatingProvider struct{ *memory.Provider }

func (p delegatingProvider) ConnectDelegated(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	return &unical.Connection{Email: params.Email, ProviderAccountID: "uid-" + params.Email}, nil
}

// TestAccounts_Delegated: an account connected through the application's
// delegation credential says so on the Accounts list and on its own
// page; one connected with the user's refresh token does not.
func TestAccounts_Delegated(t *testing.T) {
	graph := delegatingProvider{memory.New(memory.Config{Type: unical.ProviderMicrosoft})}
	graph.AddUser("grace@corp.example.org", "", "")
	graph.AddUser("ada@corp.example.org", "refresh-ada", "")
	f := newFixture(t, "", graph)
	svc := admin.Of(f.client)
	created, err := svc.CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("corp")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetDelegation(t.Context(), created.ApplicationID, unical.ProviderMicrosoft, &admin.DelegationParams{
		TenantID: "tenant-1", ClientID: "daemon", ClientSecret: "d43mon-secret", Domains: []string{"corp.example.org"}}); err != nil {
		t.Fatal(err)
	}
	app, err := f.client.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, p := range []*unical.AccountCreateParams{
		{Email: "grace@corp.example.org", ProviderType: unical.ProviderMicrosoft},
		{Email: "ada@corp.example.org", ProviderType: unical.ProviderMicrosoft, RefreshToken: unical.Some("refresh-ada")},
	} {
		acct, err := app.CreateAccount(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		ids[p.Email] = acct.ID
	}

	b := f.browser(t)
	b.mustLogin()
	base := "/dashboard/apps/" + created.ApplicationID + "/accounts"
	p := b.get(base)
	if p.status != http.StatusOK {
		t.Fatalf("accounts = %d:\n%s", p.status, p.body)
	}
	var got []string
	for _, m := range regexp.MustCompile(`<tr><td>([^<]+)</td><td>([^<]+)</td>`).FindAllStringSubmatch(p.body, -1) {
		got = append(got, m[1]+": "+m[2])
	}
	slices.Sort(got)
	want := []string{"ada@corp.example.org: Microsoft (PROVIDER_B)", "grace@corp.example.org: Microsoft (PROVIDER_B) (delegated)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("accounts list (-want +got):\n%s", diff)
	}

	fact := regexp.MustCompile(`<dt>Delegated</dt><dd>([^<]+)</dd>`)
	for email, want := range map[string]string{
		"grace@corp.example.org": "yes: connected through the application's delegation credential",
		"ada@corp.example.org":   "no",
	} {
		p := b.get(base + "/" + ids[email])
		if p.status != http.StatusOK {
			t.Fatalf("account page of %s = %d:\n%s", email, p.status, p.body)
		}
		m := fact.FindStringSubmatch(html.UnescapeString(p.body))
		if m == nil || m[1] != want {
			t.Errorf("account page of %s: Delegated = %v, want %q", email, m, want)
		}
	}
}
