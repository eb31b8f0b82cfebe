package adminapi_test

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/audit"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// serviceAccountKey returns a Google JSON key file of a service account
// with a new RSA key, and the PEM of that key.
func serviceAccountKey(t *testing.T) (map[string]any, string) {
	t.Helper()
	file := googletest.NewServiceAccount(t, &googletest.ServiceAccount{Email: "unical@corp-calendars.iam.gserviceaccount.com", ClientID: "104857600000000000001"})
	return file, file["private_key"].(string)
}

// TestDelegations sets, reads and removes the delegation credentials of
// both providers: the answers never hold the secret, the store keeps it
// sealed, and bad input names the field and changes nothing.
func TestDelegations(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "delegations")
	base := "/admin/v1/applications/" + app.Application.ID + "/delegations"
	key, pemKey := serviceAccountKey(t)
	const clientSecret = "ms-client-secret-9c2f4e7a1b"

	wantError(t, s.admin(t, "GET", base+"/provider_a", nil), http.StatusNotFound, "not_found", "")

	ignoreTime := cmpopts.IgnoreFields(admin.DelegationView{}, "UpdatedAt")
	var google admin.DelegationView
	s.must(t, "PUT", base+"/provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"Corp.Example.com"}}, &google)
	wantGoogle := admin.DelegationView{
		Provider: unical.ProviderGoogle, ClientID: "104857600000000000001", ServiceAccount: "unical@corp-calendars.iam.gserviceaccount.com",
		Domains: []string{"corp.example.com"}, Status: admin.DelegationPending, Scopes: admin.GoogleDelegationScopes,
		RoomDirectory: "Rooms are not listed: set adminEmail to a Workspace administrator, whom Google's Directory API requires.",
	}
	if d := cmp.Diff(wantGoogle, google, ignoreTime); d != "" {
		t.Errorf("PUT provider_a (-want +got):\n%s", d)
	}
	if google.UpdatedAt.IsZero() {
		t.Errorf("PUT provider_a: no updatedAt")
	}

	var ms admin.DelegationView
	s.must(t, "PUT", base+"/provider_b", map[string]any{
		"tenantId": "0f6e2d1c-aaaa-bbbb-cccc-123456789abc", "clientId": "5a1b2c3d-1111-2222-3333-444455556666", "clientSecret": clientSecret,
		"domains": []string{"corp.example.org", "sub.corp.example.org"}, "tokenUrl": "https://login.example/token", "apiBaseUrl": "https://graph.example/v1.0",
	}, &ms)
	wantMS := admin.DelegationView{
		Provider: unical.ProviderMicrosoft, ClientID: "5a1b2c3d-1111-2222-3333-444455556666", TenantID: "0f6e2d1c-aaaa-bbbb-cccc-123456789abc",
		Domains: []string{"corp.example.org", "sub.corp.example.org"}, TokenURL: "https://login.example/token", APIBaseURL: "https://graph.example/v1.0",
		Status:          admin.DelegationPending,
		RoomDirectory:   "Rooms are listed through Graph's places API, with the application permission Place.Read.All.",
		AdminConsentURL: "https://login.microsoftonline.com/0f6e2d1c-aaaa-bbbb-cccc-123456789abc/adminconsent?client_id=5a1b2c3d-1111-2222-3333-444455556666",
	}
	if d := cmp.Diff(wantMS, ms, ignoreTime); d != "" {
		t.Errorf("PUT provider_b (-want +got):\n%s", d)
	}
	// Each GET decodes into a new value, so no field is left from another.
	get := func(provider string) admin.DelegationView {
		t.Helper()
		var v admin.DelegationView
		s.must(t, "GET", base+"/"+provider, nil, &v)
		return v
	}
	if d := cmp.Diff(ms, get("provider_b")); d != "" {
		t.Errorf("GET provider_b (-PUT +GET):\n%s", d)
	}

	// Bad input names the field and leaves the credential as it was.
	otherKey := func(field string, value any) map[string]any {
		k := map[string]any{}
		for f, v := range key {
			k[f] = v
		}
		k[field] = value
		return map[string]any{"serviceAccountKey": k, "domains": []string{"corp.example.com"}}
	}
	for _, tc := range []struct {
		name     string
		provider string
		body     any
		field    string
	}{
		{"no key", "provider_a", map[string]any{"domains": []string{"corp.example.com"}}, "serviceAccountKey"},
		{"key as a string", "provider_a", map[string]any{"serviceAccountKey": "{}", "domains": []string{"corp.example.com"}}, "serviceAccountKey"},
		{"not a service account", "provider_a", otherKey("type", "authorized_user"), "serviceAccountKey.type"},
		{"no client email", "provider_a", otherKey("client_email", ""), "serviceAccountKey.client_email"},
		{"bad private key", "provider_a", otherKey("private_key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "serviceAccountKey.private_key"},
		{"Microsoft field for Google", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"corp.example.com"}, "clientSecret": "x"}, "clientSecret"},
		{"no domains", "provider_a", map[string]any{"serviceAccountKey": key}, "domains"},
		{"bad domain", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"corp example"}}, "domains"},
		{"domain twice", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"a.example", "A.example"}}, "domains"},
		{"bad token URL", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"a.example"}, "tokenUrl": "/token"}, "tokenUrl"},
		{"bad directory URL", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"a.example"}, "directoryUrl": "ftp://x.example/"}, "directoryUrl"},
		{"admin outside the domains", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"corp.example.com"}, "adminEmail": "it@elsewhere.example"}, "adminEmail"},
		{"admin not an address", "provider_a", map[string]any{"serviceAccountKey": key, "domains": []string{"corp.example.com"}, "adminEmail": "it at corp.example.com"}, "adminEmail"},
		{"admin for Microsoft", "provider_b", map[string]any{"tenantId": "t", "clientId": "c", "clientSecret": "s", "domains": []string{"a.example"}, "adminEmail": "it@a.example"}, "adminEmail"},
		{"no tenant", "provider_b", map[string]any{"clientId": "c", "clientSecret": "s", "domains": []string{"a.example"}}, "tenantId"},
		{"no secret", "provider_b", map[string]any{"tenantId": "t", "clientId": "c", "domains": []string{"a.example"}}, "clientSecret"},
		{"tenant with a slash", "provider_b", map[string]any{"tenantId": "a/b", "clientId": "c", "clientSecret": "s", "domains": []string{"a.example"}}, "tenantId"},
		{"Google key for Microsoft", "provider_b", map[string]any{"serviceAccountKey": key, "tenantId": "t", "clientId": "c", "clientSecret": "s", "domains": []string{"a.example"}}, "serviceAccountKey"},
		{"read-only field", "provider_b", map[string]any{"tenantId": "t", "clientId": "c", "clientSecret": "s", "domains": []string{"a.example"}, "status": "active"}, "status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, s.admin(t, "PUT", base+"/"+tc.provider, tc.body), http.StatusBadRequest, "invalid_request", tc.field)
		})
	}
	if d := cmp.Diff(google, get("provider_a")); d != "" {
		t.Errorf("refused PUTs changed provider_a (-before +after):\n%s", d)
	}
	if d := cmp.Diff(ms, get("provider_b")); d != "" {
		t.Errorf("refused PUTs changed provider_b (-before +after):\n%s", d)
	}
	// CalDAV has no organisation-wide grant.
	wantError(t, s.admin(t, "PUT", base+"/provider_c", map[string]any{"domains": []string{"a.example"}}), http.StatusBadRequest, "invalid_request", "provider")
	wantError(t, s.admin(t, "PUT", "/admin/v1/applications/app_unknown/delegations/provider_b", map[string]any{
		"tenantId": "t", "clientId": "c", "clientSecret": "s", "domains": []string{"a.example"},
	}), http.StatusNotFound, "not_found", "")

	// Neither secret is in an answer, and the store holds them sealed.
	// The middle of the PEM is key material; its header is not secret.
	keyMaterial := strings.Split(pemKey, "\n")[5]
	for _, path := range []string{base + "/provider_a", base + "/provider_b", "/admin/v1/applications/" + app.Application.ID} {
		r := s.admin(t, "GET", path, nil)
		if strings.Contains(string(r.body), clientSecret) || strings.Contains(string(r.body), keyMaterial) {
			t.Errorf("GET %s holds a secret: %s", path, r.body)
		}
	}

	// The audit log records the changes.
	var audit struct {
		Data []audit.Entry `json:"data"`
	}
	s.must(t, "GET", "/admin/v1/applications/"+app.Application.ID+"/audit", nil, &audit)
	var ops []string
	for _, e := range audit.Data {
		if strings.HasPrefix(e.Operation, "delegation.") {
			ops = append(ops, e.Operation+" "+e.TargetID)
		}
	}
	if d := cmp.Diff([]string{"delegation.set provider_b", "delegation.set provider_a"}, ops); d != "" {
		t.Errorf("audit (-want +got):\n%s", d)
	}

	if file, err := os.ReadFile(s.dbPath); err != nil || bytes.Contains(file, []byte(keyMaterial)) {
		t.Errorf("the store file holds the service account's private key (read: %v)", err)
	}

	var done unical.Success
	s.must(t, "DELETE", base+"/provider_a", nil, &done)
	wantError(t, s.admin(t, "GET", base+"/provider_a", nil), http.StatusNotFound, "not_found", "")
	wantError(t, s.admin(t, "DELETE", base+"/provider_a", nil), http.StatusNotFound, "not_found", "")

	s.client.Close()
	if err := s.store.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(s.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(file, []byte(clientSecret)) {
		t.Errorf("the store file holds the Microsoft client secret")
	}
}

// TestDelegationVerify tries credentials on the Google and Graph fakes:
// a granted one becomes active, a missing grant, consent or mailbox makes
// it failing with a reason saying what to do, and an address outside the
// domains is refused.
func TestDelegationVerify(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "verify")
	base := "/admin/v1/applications/" + app.Application.ID + "/delegations"

	google := googletest.NewServer(t, googletest.Options{})
	google.AddUser(googletest.User{Email: "ada@corp.example.com", Name: "Ada"})
	key, _ := serviceAccountKey(t)
	block, _ := pem.Decode([]byte(key["private_key"].(string)))
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	granted := googletest.ServiceAccount{Email: key["client_email"].(string), ClientID: key["client_id"].(string), PublicKey: &priv.(*rsa.PrivateKey).PublicKey}
	s.must(t, "PUT", base+"/provider_a", map[string]any{
		"serviceAccountKey": key, "domains": []string{"corp.example.com"}, "tokenUrl": google.TokenURL(), "apiBaseUrl": google.APIBaseURL(),
	}, nil)

	graph := graphtest.NewServer(t, graphtest.Options{})
	graph.AddUser(graphtest.User{DisplayName: "Grace", UserPrincipalName: "grace@corp.example.org"})
	graph.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon-secret"})
	s.must(t, "PUT", base+"/provider_b", map[string]any{
		"tenantId": graphtest.DefaultTenant, "clientId": "daemon", "clientSecret": "d43mon-secret", "domains": []string{"corp.example.org"},
		"tokenUrl": graph.TokenURL(), "apiBaseUrl": graph.GraphBaseURL(),
	}, nil)

	verify := func(provider, email string) admin.DelegationView {
		t.Helper()
		var v admin.DelegationView
		s.must(t, "POST", base+"/"+provider+"/verify", map[string]string{"email": email}, &v)
		return v
	}
	tests := []struct {
		name, provider, email string
		before                func()
		status, reason        string
	}{
		{"Google without the Admin console grant", "provider_a", "ada@corp.example.com", func() {
			granted.Scopes = []string{"https://www.googleapis.com/auth/calendar"} // the directory scope is missing
			google.AddServiceAccount(granted)
		}, admin.DelegationFailing, "Domain-wide delegation is not granted: in the Google Admin console (Security, API controls, Domain-wide delegation) give client id 104857600000000000001 the scopes https://www.googleapis.com/auth/calendar,https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly."},
		{"Google granted", "provider_a", "ada@corp.example.com", func() {
			granted.Scopes = admin.GoogleDelegationScopes
			google.AddServiceAccount(granted)
		}, admin.DelegationActive, ""},
		{"Google, a user the domain does not have", "provider_a", "nobody@corp.example.com", nil,
			admin.DelegationFailing, "Google does not know the user nobody@corp.example.com in the Workspace domain."},
		{"Google rooms as a user who is no administrator", "provider_a", "ada@corp.example.com", func() {
			s.must(t, "PUT", base+"/provider_a", map[string]any{
				"serviceAccountKey": key, "domains": []string{"corp.example.com"}, "adminEmail": "ada@corp.example.com",
				"tokenUrl": google.TokenURL(), "apiBaseUrl": google.APIBaseURL(), "directoryUrl": google.DirectoryBaseURL(),
			}, nil)
		}, admin.DelegationFailing, "The room directory failed: Google's room directory refused the delegation credential (403): adminEmail ada@corp.example.com must be a Workspace administrator allowed to read calendar resources, and the client id granted https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly."},
		{"Google rooms as an administrator", "provider_a", "ada@corp.example.com", func() { google.SetAdmin("ada@corp.example.com") }, admin.DelegationActive, ""},
		{"Microsoft without admin consent", "provider_b", "grace@corp.example.org", nil, admin.DelegationFailing,
			"Admin consent is not granted: a tenant administrator must grant the application permissions Calendars.ReadWrite, User.Read.All and Place.Read.All at https://login.microsoftonline.com/" + graphtest.DefaultTenant + "/adminconsent?client_id=daemon"},
		{"Microsoft consented but for the rooms", "provider_b", "grace@corp.example.org", func() {
			graph.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon-secret", ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All"}})
		}, admin.DelegationFailing, "The room directory failed: Microsoft Graph's places refused the delegation credential (403): a tenant administrator must grant the application permission Place.Read.All."},
		{"Microsoft consented", "provider_b", "grace@corp.example.org", func() {
			graph.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon-secret", ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All", "Place.Read.All"}})
		}, admin.DelegationActive, ""},
		{"Microsoft, a mailbox the tenant does not have", "provider_b", "nobody@corp.example.org", nil,
			admin.DelegationFailing, "Microsoft 365 has no mailbox nobody@corp.example.org in the tenant."},
		{"Microsoft with an expired secret", "provider_b", "grace@corp.example.org", func() {
			graph.AddClient(graphtest.Client{ID: "daemon", Secret: "rotated", ApplicationPermissions: []string{"Calendars.ReadWrite"}})
		}, admin.DelegationFailing, "Microsoft refused the client secret: it is wrong or has expired; add a new one to the application."},
	}
	for _, tc := range tests {
		if tc.before != nil {
			tc.before()
		}
		got := verify(tc.provider, tc.email)
		if got.Status != tc.status || got.StatusReason != tc.reason {
			t.Errorf("%s: status %q, reason %q; want %q, %q", tc.name, got.Status, got.StatusReason, tc.status, tc.reason)
		}
		// GET shows what the verification found.
		var again admin.DelegationView
		s.must(t, "GET", base+"/"+tc.provider, nil, &again)
		if again.Status != tc.status || again.StatusReason != tc.reason {
			t.Errorf("%s: GET shows %q, %q", tc.name, again.Status, again.StatusReason)
		}
	}

	wantError(t, s.admin(t, "POST", base+"/provider_a/verify", map[string]string{"email": "ada@elsewhere.example"}), http.StatusBadRequest, "invalid_request", "email")
	wantError(t, s.admin(t, "POST", base+"/provider_b/verify", map[string]string{"email": "not an address"}), http.StatusBadRequest, "invalid_request", "email")
	s.must(t, "DELETE", base+"/provider_b", nil, nil)
	wantError(t, s.admin(t, "POST", base+"/provider_b/verify", map[string]string{"email": "grace@corp.example.org"}), http.StatusNotFound, "not_found", "")
}
