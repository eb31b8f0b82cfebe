package dashboard_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/provider/memory"
)

// mustApp creates an application named name and returns its id and App.
func mustApp(t *testing.T, c *unical.Client, name string) (string, *unical.App) {
	t.Helper()
	created, err := admin.Of(c).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some(name)})
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	return created.ApplicationID, app
}

// mustGoogleAccount connects a user of the memory Google provider.
func mustGoogleAccount(t *testing.T, app *unical.App, google *memory.Provider, who string) *unical.Account {
	t.Helper()
	google.AddUser(who+"@example.com", "refresh-"+who, "")
	acct, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: who + "@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-" + who)})
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

// mustSubscription stores a subscription record of an account as the
// subscriptions package would, with its sync times.
func mustSubscription(t *testing.T, c *unical.Client, appID, id string, acct *unical.Account, cursorAt, nextCheck time.Time) {
	t.Helper()
	rec := &unical.SubscriptionRecord{
		Subscription:  unical.Subscription{ID: id, Provider: acct.ProviderType, URL: "https://hooks.example.com/" + id, CalendarID: "primary", EndUserAccountID: acct.ID, CreatedAt: cursorAt, UpdatedAt: cursorAt},
		ApplicationID: appID, Cursor: "cursor", CursorAt: cursorAt, NextCheckAt: nextCheck,
	}
	if err := c.Store().CreateSubscription(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
}

// freeBlocks lists the free slots the explorer paints, as "date from
// title" per block in page order.
func freeBlocks(body string) []string {
	var out []string
	days := regexp.MustCompile(`(?s)<ul class="wk-day" data-date="([0-9-]+)"[^>]*>(.*?)</ul>`)
	blocks := regexp.MustCompile(`<span class="at" aria-hidden="true">([0-9:]+)</span> <span class="what">([^<]+)</span>`)
	for _, d := range days.FindAllStringSubmatch(body, -1) {
		for _, b := range blocks.FindAllStringSubmatch(d[2], -1) {
			out = append(out, d[1]+" "+b[1]+" "+b[2])
		}
	}
	return out
}

// TestAvailabilityExplorer paints the free slots of two accounts, one
// busy for an hour, inside working hours in Europe/Berlin: the slots
// around the busy hour, in its week's grid, and refuses bad input naming
// the field.
func TestAvailabilityExplorer(t *testing.T) {
	t.Parallel()
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	f := newFixture(t, "", google)
	appID, app := mustApp(t, f.client, "explorer")
	ada, bob := mustGoogleAccount(t, app, google, "ada"), mustGoogleAccount(t, app, google, "bob")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	// Bob is busy 10:00 to 11:00 Berlin time on Wednesday 9 January 2030.
	if _, err := app.CreateEvent(t.Context(), bob.ID, "primary", &unical.EventParams{Title: unical.Some("Busy"),
		Start: unical.Some(*unical.TimedAt(time.Date(2030, 1, 9, 10, 0, 0, 0, berlin))), End: unical.Some(*unical.TimedAt(time.Date(2030, 1, 9, 11, 0, 0, 0, berlin)))}); err != nil {
		t.Fatal(err)
	}
	b := f.browser(t)
	b.mustLogin()
	page := "/dashboard/apps/" + appID + "/availability"

	empty := b.get(page)
	if empty.status != http.StatusOK {
		t.Fatalf("explorer = %d:\n%s", empty.status, empty.body)
	}
	for _, want := range []string{`value="` + ada.ID + `"`, `value="` + bob.ID + `"`, "ada@example.com", "bob@example.com"} {
		if !strings.Contains(empty.body, want) {
			t.Errorf("the explorer does not offer %s", want)
		}
	}
	if got := freeBlocks(empty.body); got != nil {
		t.Errorf("the explorer without accounts paints %q", got)
	}

	q := url.Values{"account": {ada.ID, bob.ID}, "date": {"2030-01-09"}, "days": {"1"}, "duration": {"60"}, "tz": {"Europe/Berlin"}, "from": {"09:00"}, "to": {"13:00"}}
	p := b.get(page + "?" + q.Encode())
	if p.status != http.StatusOK {
		t.Fatalf("explorer = %d:\n%s", p.status, p.body)
	}
	want := []string{"2030-01-09 09:00 Free", "2030-01-09 11:00 Free", "2030-01-09 12:00 Free"}
	if diff := cmp.Diff(want, freeBlocks(p.body)); diff != "" {
		t.Errorf("free slots painted (-want +got):\n%s", diff)
	}
	for _, s := range []string{"Free slots, week of 2030-01-07 (Europe/Berlin)", `<strong>3</strong> free slots of 60 minutes`, `checked><label for="acct-` + ada.ID, "&#34;durationMinutes&#34;: 60"} {
		if !strings.Contains(p.body, s) {
			t.Errorf("the answer does not show %q", s)
		}
	}

	for _, c := range []struct {
		name  string
		set   url.Values
		field string
	}{
		{"short duration", url.Values{"duration": {"1"}}, "durationMinutes"},
		{"not a number", url.Values{"days": {"a week"}}, "days"},
		{"long window", url.Values{"days": {"63"}}, "days"},
		{"one hour bound", url.Values{"to": {""}}, "to"},
		{"bad zone", url.Values{"tz": {"Mars/Olympus"}}, "timeZone"},
		{"foreign account", url.Values{"account": {"acc_nobody"}}, "participants[0].endUserAccountId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := url.Values{}
			for k, v := range q {
				bad[k] = v
			}
			for k, v := range c.set {
				bad[k] = v
			}
			p := b.get(page + "?" + bad.Encode())
			if p.status != http.StatusBadRequest && p.status != http.StatusNotFound {
				t.Errorf("status = %d, want 400 or 404", p.status)
			}
			if !strings.Contains(p.body, c.field) {
				t.Errorf("the error does not name %s:\n%s", c.field, p.body)
			}
			if got := freeBlocks(p.body); got != nil {
				t.Errorf("a refused query paints %q", got)
			}
		})
	}
}

// TestCalDAVFormKeepsFields sends the CalDAV form with a password the
// server refuses, without a password and with an email that is not one:
// the form comes back with every field as typed except the password, and
// the error beside the field it names.
func TestCalDAVFormKeepsFields(t *testing.T) {
	t.Parallel()
	dav := memory.New(memory.Config{Type: unical.ProviderCalDAV})
	dav.AddUser("cy@example.com", "", "right-password")
	f := newFixture(t, "", dav)
	appID, _ := mustApp(t, f.client, "caldav")
	b := f.browser(t)
	token := b.mustLogin()
	const password = "wrong-password-needle"
	for _, c := range []struct {
		name, email, password, field string
		status                       int
	}{
		{"wrong password", "cy@example.com", password, "password", http.StatusBadRequest},
		{"no password", "cy@example.com", "", "password", http.StatusBadRequest},
		{"not an email", "cy-at-example.com", password, "email", http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := b.post("/dashboard/apps/"+appID+"/accounts/caldav", url.Values{"csrf": {token}, "email": {c.email}, "password": {c.password}, "username": {"cy-login"}, "serverUrl": {"https://dav.example.org/"}})
			if p.status != c.status {
				t.Fatalf("connect = %d, want %d:\n%s", p.status, c.status, p.body)
			}
			got := map[string]string{}
			value := regexp.MustCompile(` value="([^"]*)"`)
			for _, m := range regexp.MustCompile(`<input id="caldav-(\w+)"[^>]*>`).FindAllStringSubmatch(p.body, -1) {
				got[m[1]] = ""
				if v := value.FindStringSubmatch(m[0]); v != nil {
					got[m[1]] = v[1]
				}
			}
			want := map[string]string{"email": c.email, "password": "", "username": "cy-login", "server": "https://dav.example.org/"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the form's fields after the error (-want +got):\n%s", diff)
			}
			if strings.Contains(p.body, password) {
				t.Error("the page echoes the password")
			}
			id := "caldav-" + c.field
			if !regexp.MustCompile(`id="` + id + `"[^>]*aria-invalid="true" aria-describedby="` + id + `-error`).MatchString(p.body) {
				t.Errorf("the %s field is not marked invalid", c.field)
			}
			if !regexp.MustCompile(`<input id="` + id + `"[^>]*>\s*<p class="error field-error" id="` + id + `-error">[^<]+</p>`).MatchString(p.body) {
				t.Errorf("no error beside the %s field:\n%s", c.field, p.body)
			}
		})
	}
	// A fresh page shows the form empty.
	p := b.get("/dashboard/apps/" + appID + "/accounts")
	if strings.Contains(p.body, `value="cy-login"`) || strings.Contains(p.body, "field-error") {
		t.Error("the accounts page keeps the failed form's fields on a later visit")
	}
}

// TestWebhooksOpensOnSubscriptions checks which delivery log the Webhooks
// page opens on: the application webhook's without subscriptions, the
// first subscription's with some, and the application webhook's again
// when the address asks for it with sub= empty.
func TestWebhooksOpensOnSubscriptions(t *testing.T) {
	t.Parallel()
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	f := newFixture(t, "", google)
	appID, app := mustApp(t, f.client, "hooks")
	b := f.browser(t)
	b.mustLogin()
	page := "/dashboard/apps/" + appID + "/webhooks"
	heading := regexp.MustCompile(`<h2 id="log-h">([^<]+)</h2>`)
	logOf := func(query string) string {
		t.Helper()
		p := b.get(page + query)
		if p.status != http.StatusOK {
			t.Fatalf("webhooks%s = %d:\n%s", query, p.status, p.body)
		}
		m := heading.FindStringSubmatch(p.body)
		if m == nil {
			t.Fatalf("webhooks%s has no delivery log heading", query)
		}
		return m[1]
	}
	if got, want := logOf(""), "Delivery log of the application webhook"; got != want {
		t.Errorf("without subscriptions the page opens on %q, want %q", got, want)
	}
	ada := mustGoogleAccount(t, app, google, "ada")
	now := time.Now().UTC()
	mustSubscription(t, f.client, appID, "sub_b", ada, now, now)
	mustSubscription(t, f.client, appID, "sub_a", ada, now, now)
	for _, c := range []struct{ query, want string }{
		{"", "Delivery log of subscription sub_a"},
		{"?sub=sub_b", "Delivery log of subscription sub_b"},
		{"?sub=", "Delivery log of the application webhook"},
	} {
		if got := logOf(c.query); got != c.want {
			t.Errorf("webhooks%s opens on %q, want %q", c.query, got, c.want)
		}
	}
}

// TestOverview reads the overview with counters as /metrics would give
// them: accounts by provider and status, the delivery and request error
// rates, and the accounts with subscriptions, the longest unsynced first.
func TestOverview(t *testing.T) {
	t.Parallel()
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	f := newFixture(t, "", google)
	appID, app := mustApp(t, f.client, "overview")
	ada, bob := mustGoogleAccount(t, app, google, "ada"), mustGoogleAccount(t, app, google, "bob")
	mustGoogleAccount(t, app, google, "cy")
	google.Revoke("cy@example.com")
	accounts, err := app.ListAccounts(t.Context(), &unical.AccountListParams{Search: "cy@"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.ListCalendars(t.Context(), accounts.Data[0].ID, nil); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Fatalf("calendars of a revoked account: %v, want account_expired", err)
	}
	synced := time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)
	mustSubscription(t, f.client, appID, "sub_1", ada, synced, synced.Add(time.Minute))
	mustSubscription(t, f.client, appID, "sub_2", ada, synced.Add(time.Hour), synced.Add(2*time.Minute))
	mustSubscription(t, f.client, appID, "sub_3", bob, synced.Add(-time.Hour), synced.Add(3*time.Minute))

	h, err := dashboard.New(dashboard.Config{
		Admin: admin.Of(f.client), SessionKey: f.key, SessionTTL: time.Hour, Logger: slog.New(slog.NewTextHandler(f.logs, nil)),
		DeliveryCounts: func() map[string]float64 {
			return map[string]float64{"delivered": 3, "retrying": 1, "failed": 0, "skipped": 2}
		},
		RequestCounts: func() map[string]float64 { return map[string]float64{"200": 14, "404": 4, "500": 2} },
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	b := f.browser(t)
	b.base = srv.URL
	if p := b.login(adminToken); p.location != "/dashboard/overview" {
		t.Errorf("login leads to %q, want the overview", p.location)
	}
	if p := b.get("/dashboard/"); p.location != "/dashboard/overview" {
		t.Errorf("/dashboard/ leads to %q, want the overview", p.location)
	}
	if p := b.get("/dashboard/health"); p.status != http.StatusMovedPermanently || p.location != "/dashboard/overview" {
		t.Errorf("/dashboard/health = %d to %q, want 301 to the overview", p.status, p.location)
	}
	p := b.get("/dashboard/overview")
	if p.status != http.StatusOK {
		t.Fatalf("overview = %d:\n%s", p.status, p.body)
	}
	var counts []string
	for _, m := range regexp.MustCompile(`<tr><th scope="row">([^<]+)</th><td>(\d+)</td><td>(\d+)</td></tr>`).FindAllStringSubmatch(p.body, -1) {
		counts = append(counts, strings.Join(m[1:], " "))
	}
	wantCounts := []string{"Google (PROVIDER_A) 2 1", "Microsoft (PROVIDER_B) 0 0", "CalDAV (PROVIDER_C) 0 0", "VIRTUAL 0 0"}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("accounts by provider and status (-want +got):\n%s", diff)
	}
	for _, s := range []string{
		"Success rate: <strong>75.0%</strong>. Error rate: <strong>25.0%</strong> of 4 attempts",
		"Error rate: <strong>10.0%</strong> of 20 requests failed on the server (5xx); 20.0% were refused (4xx).",
	} {
		if !strings.Contains(p.body, s) {
			t.Errorf("the overview does not show %q", s)
		}
	}
	var rows []string
	for _, m := range regexp.MustCompile(`<tr><td><a href="[^"]+">([^<]+)</a></td><td><a href="[^"]+">([^<]+)</a></td><td>[^<]+</td><td><span class="status \w+">(\w+)</span></td><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td></tr>`).FindAllStringSubmatch(p.body, -1) {
		rows = append(rows, strings.Join(m[1:], " | "))
	}
	wantRows := []string{
		"bob@example.com | overview | ACTIVE | 1 | 2030-01-07 08:00:00 UTC | 2030-01-07 09:03:00 UTC",
		"ada@example.com | overview | ACTIVE | 2 | 2030-01-07 10:00:00 UTC | 2030-01-07 09:01:00 UTC",
	}
	if diff := cmp.Diff(wantRows, rows); diff != "" {
		t.Errorf("last sync per account (-want +got):\n%s", diff)
	}
}
