package adminapi_test

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/microsoft"
)

// delegatedOrg is a Google Workspace domain and a Microsoft 365 tenant,
// each with two users, behind a server whose application holds a
// delegation credential for both, set through the admin API.
type delegatedOrg struct {
	*server
	app    created
	google *googletest.Server
	graph  *graphtest.Server
	// graphIDs are the Graph object ids of grace and hopper.
	graphIDs map[string]string
	// credentials are the PUT bodies of the two credentials.
	credentials map[string]map[string]any
}

const (
	workspaceDomain = "corp.example.com"
	tenantDomain    = "corp.example.org"
)

func startDelegatedOrg(t *testing.T) *delegatedOrg {
	t.Helper()
	o := &delegatedOrg{graphIDs: map[string]string{}}
	o.google = googletest.NewServer(t, googletest.Options{AllowHTTPPush: true})
	for _, u := range []string{"alice", "bob"} {
		o.google.AddUser(googletest.User{Email: u + "@" + workspaceDomain, Name: u})
	}
	// A Google user outside the credential's domains.
	o.google.AddUser(googletest.User{Email: "eve@elsewhere.example", Name: "Eve"})
	key, _ := serviceAccountKey(t)
	block, _ := pem.Decode([]byte(key["private_key"].(string)))
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	o.google.AddServiceAccount(googletest.ServiceAccount{Email: key["client_email"].(string), ClientID: key["client_id"].(string),
		PublicKey: &priv.(*rsa.PrivateKey).PublicKey, Scopes: admin.GoogleDelegationScopes})

	o.graph = graphtest.NewServer(t, graphtest.Options{AllowHTTPNotificationURLs: true})
	for _, u := range []string{"grace", "hopper"} {
		o.graphIDs[u] = o.graph.AddUser(graphtest.User{DisplayName: u, UserPrincipalName: u + "@" + tenantDomain})
	}
	o.graph.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon-secret", ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All"}})

	gp, err := google.New(google.Config{})
	if err != nil {
		t.Fatal(err)
	}
	mp, err := microsoft.New(microsoft.Config{HTTPClient: o.graph.Client()})
	if err != nil {
		t.Fatal(err)
	}
	o.server = startServer(t, func(cfg *apitest.Config) { cfg.Providers = append(cfg.Providers, gp, mp) })
	o.app = o.createApp(t, "delegated")
	base := "/admin/v1/applications/" + o.app.Application.ID
	var set admin.WebhookSet
	o.must(t, "PUT", base+"/webhook", map[string]string{"url": o.receiver.URL + "/hook"}, &set)
	o.receiver.SetSecret(set.Secret)
	o.credentials = map[string]map[string]any{
		"provider_a": {"serviceAccountKey": key, "domains": []string{workspaceDomain}, "tokenUrl": o.google.TokenURL(), "apiBaseUrl": o.google.APIBaseURL()},
		"provider_b": {"tenantId": graphtest.DefaultTenant, "clientId": "daemon", "clientSecret": "d43mon-secret", "domains": []string{tenantDomain},
			"tokenUrl": o.graph.TokenURL(), "apiBaseUrl": o.graph.GraphBaseURL()},
	}
	for provider, body := range o.credentials {
		o.must(t, "PUT", base+"/delegations/"+provider, body, nil)
	}
	return o
}

// connect connects email through delegation and returns the account.
func (o *delegatedOrg) connect(t *testing.T, providerType, email string) unical.Account {
	t.Helper()
	r := o.v1(t, o.app.APIKey, "POST", "/v1/endUserAccounts", map[string]any{"providerType": providerType, "email": email})
	if r.status != http.StatusOK {
		t.Fatalf("connect %s = %d\n%s", email, r.status, r.body)
	}
	var acct unical.Account
	r.into(t, &acct)
	return acct
}

// primary returns the id of the account's primary calendar.
func (o *delegatedOrg) primary(t *testing.T, accountID string) string {
	t.Helper()
	var cals struct{ Data []unical.Calendar }
	o.mustV1(t, "GET", "/v1/calendars/"+accountID, nil, &cals)
	for _, c := range cals.Data {
		if c.IsPrimary {
			return c.ID
		}
	}
	t.Fatalf("account %s has no primary calendar among %+v", accountID, cals.Data)
	return ""
}

// mustV1 sends a /v1 request that must answer 200 and decodes it into v.
func (o *delegatedOrg) mustV1(t *testing.T, method, path string, body, v any) {
	t.Helper()
	r := o.v1(t, o.app.APIKey, method, path, body)
	if r.status != http.StatusOK {
		t.Fatalf("%s %s = %d, want 200\n%s", method, path, r.status, r.body)
	}
	if v != nil {
		r.into(t, v)
	}
}

// graphGet reads a Graph path as user would with their own token.
func (o *delegatedOrg) graphGet(t *testing.T, user, path string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", o.graph.GraphBaseURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+o.graph.IssueAccessToken("daemon", o.graphIDs[user], "Calendars.Read"))
	resp, err := o.graph.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestDelegatedAccounts connects a Workspace domain's and a tenant's
// users without a browser, through the credentials set in the admin API;
// writes an event in each user's own calendar, finds a slot across all
// four, watches a calendar at Graph with the app-only token, and revokes
// the credentials, which expires the accounts and tells the application.
func TestDelegatedAccounts(t *testing.T) {
	o := startDelegatedOrg(t)
	accounts := map[string]unical.Account{}
	for _, u := range []struct{ providerType, name, domain string }{
		{"PROVIDER_A", "alice", workspaceDomain}, {"PROVIDER_A", "bob", workspaceDomain},
		{"PROVIDER_B", "grace", tenantDomain}, {"PROVIDER_B", "hopper", tenantDomain},
	} {
		acct := o.connect(t, u.providerType, u.name+"@"+u.domain)
		if acct.Status != unical.AccountStatusActive || !acct.Delegated || acct.Email != u.name+"@"+u.domain {
			t.Errorf("%s connected as %+v; want an ACTIVE delegated account", u.name, acct)
		}
		accounts[u.name] = acct
	}
	if got := accounts["grace"].ProviderAccountID; got == nil || *got != o.graphIDs["grace"] {
		t.Errorf("grace's providerAccountId = %v; want her Graph id %s", got, o.graphIDs["grace"])
	}
	// Reconnecting updates the account; the address is compared without case.
	if again := o.connect(t, "PROVIDER_A", "Alice@Corp.Example.com"); again.ID != accounts["alice"].ID {
		t.Errorf("reconnecting alice made account %s; want %s", again.ID, accounts["alice"].ID)
	}

	// Each user's event lands in that user's calendar only.
	type slotEvent struct{ user, start, end string }
	for _, e := range []slotEvent{
		{"alice", "2031-03-03T09:00:00Z", "2031-03-03T10:00:00Z"}, {"bob", "2031-03-03T10:00:00Z", "2031-03-03T11:00:00Z"},
		{"grace", "2031-03-03T11:00:00Z", "2031-03-03T12:00:00Z"}, {"hopper", "2031-03-03T13:00:00Z", "2031-03-03T14:00:00Z"},
	} {
		acct := accounts[e.user]
		cal := o.primary(t, acct.ID)
		var ev unical.Event
		o.mustV1(t, "POST", "/v1/events/"+acct.ID+"/"+url.PathEscape(cal), map[string]any{"title": "Busy " + e.user,
			"start": map[string]string{"dateTime": e.start}, "end": map[string]string{"dateTime": e.end}}, &ev)
		switch e.user {
		case "alice", "bob":
			other := map[string]string{"alice": "bob", "bob": "alice"}[e.user]
			if _, ok := o.google.GetEvent(e.user+"@"+workspaceDomain, ev.ID); !ok {
				t.Errorf("%s's event is not in %s's Google calendar", e.user, e.user)
			}
			if _, ok := o.google.GetEvent(other+"@"+workspaceDomain, ev.ID); ok {
				t.Errorf("%s's event is in %s's Google calendar", e.user, other)
			}
		default:
			other := map[string]string{"grace": "hopper", "hopper": "grace"}[e.user]
			if st := o.graphGet(t, e.user, "/me/events/"+url.PathEscape(ev.ID)); st != http.StatusOK {
				t.Errorf("%s reads her event at Graph: %d; want 200", e.user, st)
			}
			if st := o.graphGet(t, other, "/me/events/"+url.PathEscape(ev.ID)); st != http.StatusNotFound {
				t.Errorf("%s reads %s's event at Graph: %d; want 404", other, e.user, st)
			}
		}
	}

	// One token per Workspace user and one for the whole tenant serve
	// every call so far: minted tokens are kept until they expire.
	if n := o.google.RequestCount("POST", "/token"); n != 2 {
		t.Errorf("Google minted %d tokens; want 2, one per user", n)
	}
	if n := o.graph.RequestCount("/" + graphtest.DefaultTenant + "/oauth2/v2.0/token"); n != 1 {
		t.Errorf("Microsoft minted %d tokens; want 1 for the tenant", n)
	}

	// A slot across the four: each is busy one hour of the morning.
	var avail struct {
		Data []struct {
			Start        unical.EventDateTime `json:"start"`
			Participants []string             `json:"participants"`
		} `json:"data"`
	}
	var participants []map[string]any
	var ids []string
	for _, u := range []string{"alice", "bob", "grace", "hopper"} {
		participants = append(participants, map[string]any{"endUserAccountId": accounts[u].ID})
		ids = append(ids, accounts[u].ID)
	}
	o.mustV1(t, "POST", "/v1/availability", map[string]any{"participants": participants,
		"startDateTime": "2031-03-03T08:00:00Z", "endDateTime": "2031-03-03T16:00:00Z",
		"durationMinutes": 60, "intervalMinutes": 60, "timeZone": "UTC"}, &avail)
	var starts []string
	for _, s := range avail.Data {
		starts = append(starts, s.Start.DateTime)
		if !cmp.Equal(s.Participants, ids) {
			t.Errorf("slot %s names %v; want all four", s.Start.DateTime, s.Participants)
		}
	}
	if d := cmp.Diff([]string{"2031-03-03T08:00:00Z", "2031-03-03T12:00:00Z", "2031-03-03T14:00:00Z", "2031-03-03T15:00:00Z"}, starts); d != "" {
		t.Errorf("slots across the four (-want +got):\n%s", d)
	}

	// After all these calls, no token of the users is kept or handed out.
	for _, u := range []string{"alice", "grace"} {
		var cred unical.Credentials
		o.mustV1(t, "GET", "/v1/endUserAccounts/"+accounts[u].ID+"/credentials", nil, &cred)
		if cred.AccessToken != "" || cred.RefreshToken != "" || !cred.ExpiresAt.IsZero() {
			t.Errorf("credentials of %s's delegated account = %+v; want no tokens", u, cred)
		}
	}

	// Push at Graph works with the app-only token, on the user's path.
	graceCal := o.primary(t, accounts["grace"].ID)
	o.mustV1(t, "POST", "/v1/calendarSubscriptions/"+accounts["grace"].ID, map[string]any{"calendarId": graceCal, "webhookUrl": o.receiver.URL + "/events"}, nil)
	subs := o.graph.Subscriptions()
	if len(subs) != 1 || subs[0].UserID != o.graphIDs["grace"] || !strings.HasPrefix(subs[0].Resource, "users/"+o.graphIDs["grace"]+"/") {
		t.Errorf("Graph subscriptions = %+v; want one on users/%s/...", subs, o.graphIDs["grace"])
	}

	aliceCal := o.primary(t, accounts["alice"].ID)
	o.mustV1(t, "POST", "/v1/calendarSubscriptions/"+accounts["alice"].ID, map[string]any{"calendarId": aliceCal, "webhookUrl": o.receiver.URL + "/events"}, nil)
	if chans := o.google.Channels(); len(chans) != 1 || chans[0].CalendarID != aliceCal {
		t.Errorf("Google channels = %+v; want one on alice's calendar", chans)
	}

	// Setting a credential again leaves its accounts alone.
	base := "/admin/v1/applications/" + o.app.Application.ID + "/delegations/"
	o.must(t, "PUT", base+"provider_a", o.credentials["provider_a"], nil)
	o.primary(t, accounts["bob"].ID)

	// Revoking both credentials expires the four accounts, which answer
	// account_expired from then on, and the application hears of each.
	before := len(o.receiver.Deliveries())
	o.must(t, "DELETE", base+"provider_a", nil, nil)
	o.must(t, "DELETE", base+"provider_b", nil, nil)
	for name, acct := range accounts {
		var got unical.Account
		o.mustV1(t, "GET", "/v1/endUserAccounts/"+acct.ID, nil, &got)
		if got.Status != unical.AccountStatusExpired || got.StatusReason != unical.StatusReasonDelegationRevoked {
			t.Errorf("%s after revocation = %s/%q; want EXPIRED/delegation_revoked", name, got.Status, got.StatusReason)
		}
		wantError(t, o.v1(t, o.app.APIKey, "GET", "/v1/calendars/"+acct.ID, nil), http.StatusConflict, "account_expired", "")
	}
	var expired []string
	for _, d := range o.receiver.WaitFor(t, before+4)[before:] {
		p := d.Payload(t)
		if p.EventType == unical.EventTypeAccountUpdated && p.EndUserAccount != nil && p.EndUserAccount.StatusReason == unical.StatusReasonDelegationRevoked {
			expired = append(expired, p.EndUserAccountID)
		}
	}
	slices.Sort(expired)
	want := slices.Clone(ids)
	slices.Sort(want)
	if d := cmp.Diff(want, expired); d != "" {
		t.Errorf("enduseraccount.updated with delegation_revoked (-want +got):\n%s", d)
	}

	// Once the credential is set again, reconnecting makes the account
	// ACTIVE again.
	o.must(t, "PUT", base+"provider_a", o.credentials["provider_a"], nil)
	if again := o.connect(t, "PROVIDER_A", "bob@"+workspaceDomain); again.ID != accounts["bob"].ID || again.Status != unical.AccountStatusActive || again.StatusReason != "" {
		t.Errorf("bob reconnected = %+v; want his account ACTIVE again", again)
	}
	o.primary(t, accounts["bob"].ID)

	// Deleting a delegated account revokes nothing at Google: the grant
	// is the application's credential, not the user's.
	o.mustV1(t, "DELETE", "/v1/endUserAccounts/"+accounts["bob"].ID, nil, nil)
	if n := o.google.RequestCount("POST", "/revoke"); n != 0 {
		t.Errorf("deleting a delegated account sent %d revocations to Google; want none", n)
	}
}

// TestDelegatedAccounts_Refused: an address outside the credential's
// domains, a user the provider does not know, and a provider without a
// credential are each a 400 naming the field at fault, and store
// nothing.
func TestDelegatedAccounts_Refused(t *testing.T) {
	o := startDelegatedOrg(t)
	other := o.createApp(t, "no credential")
	tests := []struct {
		name, key, providerType, email, field string
	}{
		{"outside the domains", o.app.APIKey, "PROVIDER_A", "eve@elsewhere.example", "email"},
		{"outside the tenant's domains", o.app.APIKey, "PROVIDER_B", "grace@corp.example.com", "email"},
		{"unknown Workspace user", o.app.APIKey, "PROVIDER_A", "nobody@" + workspaceDomain, "email"},
		{"unknown tenant user", o.app.APIKey, "PROVIDER_B", "nobody@" + tenantDomain, "email"},
		{"no credential", other.APIKey, "PROVIDER_A", "alice@" + workspaceDomain, "refreshToken"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := o.v1(t, tc.key, "POST", "/v1/endUserAccounts", map[string]any{"providerType": tc.providerType, "email": tc.email})
			wantError(t, r, http.StatusBadRequest, "invalid_request", tc.field)
		})
	}
	for _, key := range []string{o.app.APIKey, other.APIKey} {
		var list struct{ Data []unical.Account }
		r := o.v1(t, key, "GET", "/v1/endUserAccounts", nil)
		r.into(t, &list)
		if len(list.Data) != 0 {
			t.Errorf("refused connections stored %+v", list.Data)
		}
	}
}

// TestDelegatedAccounts_WithdrawnAtProvider: when the provider stops
// honouring the credential (the Workspace administrator withdrew the
// domain-wide delegation, the tenant's client secret was replaced), the
// access token in hand ends and the next one is refused: the account
// expires with delegation_revoked, as an OAuth account expires when its
// grant is revoked.
func TestDelegatedAccounts_WithdrawnAtProvider(t *testing.T) {
	o := startDelegatedOrg(t)
	alice := o.connect(t, "PROVIDER_A", "alice@"+workspaceDomain)
	grace := o.connect(t, "PROVIDER_B", "grace@"+tenantDomain)
	o.primary(t, alice.ID)
	o.primary(t, grace.ID)

	// A token endpoint that fails says nothing about the credential: the
	// call answers 503 and the account stays ACTIVE.
	o.google.InjectFault(googletest.Fault{PathPrefix: "/calendar/v3/", Status: http.StatusUnauthorized, Times: 1})
	o.google.InjectFault(googletest.Fault{PathPrefix: "/token", Status: http.StatusServiceUnavailable, Times: 1})
	wantError(t, o.v1(t, o.app.APIKey, "GET", "/v1/calendars/"+alice.ID, nil), http.StatusServiceUnavailable, "provider_unavailable", "")
	var still unical.Account
	o.mustV1(t, "GET", "/v1/endUserAccounts/"+alice.ID, nil, &still)
	if still.Status != unical.AccountStatusActive {
		t.Errorf("after a failing token endpoint alice is %s; want ACTIVE", still.Status)
	}

	key := o.credentials["provider_a"]["serviceAccountKey"].(map[string]any)
	block, _ := pem.Decode([]byte(key["private_key"].(string)))
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	o.google.AddServiceAccount(googletest.ServiceAccount{Email: key["client_email"].(string), ClientID: key["client_id"].(string),
		PublicKey: &priv.(*rsa.PrivateKey).PublicKey, Scopes: []string{"https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly"}})
	o.google.InjectFault(googletest.Fault{PathPrefix: "/calendar/v3/", Status: http.StatusUnauthorized, Times: 1})
	o.graph.AddClient(graphtest.Client{ID: "daemon", Secret: "rotated", ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All"}})
	o.graph.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/users/", Status: http.StatusUnauthorized})

	for _, acct := range []unical.Account{alice, grace} {
		wantError(t, o.v1(t, o.app.APIKey, "GET", "/v1/calendars/"+acct.ID, nil), http.StatusConflict, "account_expired", "")
		var got unical.Account
		o.mustV1(t, "GET", "/v1/endUserAccounts/"+acct.ID, nil, &got)
		if got.Status != unical.AccountStatusExpired || got.StatusReason != unical.StatusReasonDelegationRevoked {
			t.Errorf("%s = %s/%q; want EXPIRED/delegation_revoked", acct.Email, got.Status, got.StatusReason)
		}
	}
	// Connecting another user now names the credential as the problem.
	r := o.v1(t, o.app.APIKey, "POST", "/v1/endUserAccounts", map[string]any{"providerType": "PROVIDER_A", "email": "bob@" + workspaceDomain})
	wantError(t, r, http.StatusBadRequest, "invalid_request", "providerType")
}

// TestDelegatedAccounts_AdminConsentWithdrawn: a tenant administrator
// withdraws the admin consent of the application behind the Microsoft
// credential. The token endpoint still mints tokens, without permissions,
// and Graph answers 403 to all of them: the account expires with
// delegation_revoked and the application hears of it, as when Google
// refuses a withdrawn domain-wide delegation. A 403 to one request the
// user may not make (a calendar shared read-only) stays a 400 and leaves
// the account ACTIVE.
func TestDelegatedAccounts_AdminConsentWithdrawn(t *testing.T) {
	o := startDelegatedOrg(t)
	grace := o.connect(t, "PROVIDER_B", "grace@"+tenantDomain)
	alice := o.connect(t, "PROVIDER_A", "alice@"+workspaceDomain)
	shared, err := o.graph.AddCalendar(o.graphIDs["grace"], graphtest.Calendar{Name: "Team (read-only)", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	o.primary(t, grace.ID)

	event := map[string]any{"title": "Review", "start": map[string]any{"dateTime": "2030-01-07T10:00:00Z"}, "end": map[string]any{"dateTime": "2030-01-07T11:00:00Z"}}
	r := o.v1(t, o.app.APIKey, "POST", "/v1/events/"+grace.ID+"/"+url.PathEscape(shared), event)
	wantError(t, r, http.StatusBadRequest, "invalid_request", "")
	if n := o.graph.RequestCount("/v1.0/users/" + o.graphIDs["grace"] + "/calendars/" + shared + "/events"); n != 1 {
		t.Errorf("Graph saw %d writes to the read-only calendar; want the one it refused", n)
	}
	var got unical.Account
	o.mustV1(t, "GET", "/v1/endUserAccounts/"+grace.ID, nil, &got)
	if got.Status != unical.AccountStatusActive {
		t.Errorf("grace after a write to a read-only calendar = %s/%q; want ACTIVE", got.Status, got.StatusReason)
	}

	// The access token in hand works until it expires.
	o.graph.WithdrawAdminConsent("daemon")
	o.primary(t, grace.ID)

	before := len(o.receiver.Deliveries())
	o.graph.ExpireAccessTokens("") // app-only tokens have no user
	wantError(t, o.v1(t, o.app.APIKey, "GET", "/v1/calendars/"+grace.ID, nil), http.StatusConflict, "account_expired", "")
	o.mustV1(t, "GET", "/v1/endUserAccounts/"+grace.ID, nil, &got)
	if got.Status != unical.AccountStatusExpired || got.StatusReason != unical.StatusReasonDelegationRevoked {
		t.Errorf("grace after the consent was withdrawn = %s/%q; want EXPIRED/delegation_revoked", got.Status, got.StatusReason)
	}
	// Messages queued before (alice's enduseraccount.created) may still
	// arrive first: wait for one more until grace's update is among them.
	var updated []unical.StatusReason
	for n := before + 1; len(updated) == 0 && n <= before+5; n++ {
		for _, d := range o.receiver.WaitFor(t, n)[before:] {
			if p := d.Payload(t); p.EventType == unical.EventTypeAccountUpdated && p.EndUserAccountID == grace.ID && p.EndUserAccount != nil {
				updated = append(updated, p.EndUserAccount.StatusReason)
			}
		}
	}
	if d := cmp.Diff([]unical.StatusReason{unical.StatusReasonDelegationRevoked}, updated); d != "" {
		t.Errorf("enduseraccount.updated for grace (-want +got):\n%s", d)
	}

	// Nothing else changed: the Google account is ACTIVE, and connecting
	// another tenant user names the credential and stores nothing.
	o.mustV1(t, "GET", "/v1/endUserAccounts/"+alice.ID, nil, &got)
	if got.Status != unical.AccountStatusActive {
		t.Errorf("alice = %s; want ACTIVE", got.Status)
	}
	r = o.v1(t, o.app.APIKey, "POST", "/v1/endUserAccounts", map[string]any{"providerType": "PROVIDER_B", "email": "hopper@" + tenantDomain})
	wantError(t, r, http.StatusBadRequest, "invalid_request", "providerType")
	var list struct{ Data []unical.Account }
	o.v1(t, o.app.APIKey, "GET", "/v1/endUserAccounts", nil).into(t, &list)
	if len(list.Data) != 2 {
		t.Errorf("accounts after the refused connection = %+v; want grace and alice only", list.Data)
	}
}
