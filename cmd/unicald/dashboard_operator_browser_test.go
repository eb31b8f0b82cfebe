package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
)

// adminRequest sends an admin API request with the admin token.
func adminRequest(t *testing.T, method, url, token string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// rows returns the trimmed cell texts of the rows of the page's tables
// matching css.
func (b *browser) rows(css string) [][]string {
	b.t.Helper()
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[][]string](
		`Array.from(document.querySelectorAll(`+jsString(css)+`)).map(r => Array.from(r.cells).map(c => c.textContent.trim()))`))
	if err != nil {
		b.t.Fatal(err)
	}
	return rows
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDashboard_OperatorPages_Browser drives the operator's pages in
// headless Chromium: create a VIRTUAL account (by keyboard) and see its
// calendar's events of a week with a recurring event expanded, connect a
// CalDAV account (a throwaway Radicale; a server URL that is not CalDAV
// is refused naming the field), pause, resume and delete a subscription, label an API key,
// read the health panel, and find each change in the audit log, the
// admin API's change under admin-token and the dashboard's under
// dashboard. Every page fits a 390 px screen and labels its fields.
func TestDashboard_OperatorPages_Browser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	const email = "ops@example.com"
	dav := davtest.StartUser(t, davtest.Radicale, email)
	rcv := apitest.NewReceiverAnswering(t, func(int) int { return http.StatusNoContent })
	const adminToken = "uat_browser-ops-admin-token-0123456789abcdef"
	addr := freeLoopbackPort(t)
	base := "http://" + addr
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminToken}
	srv := startServe(t, &Main{WebhookTLS: rcv.TLSConfig(), Getenv: func(k string) string { return env[k] }}, t.TempDir(),
		"--addr", addr, "--public-url", base, "--allow-private-targets")
	apiKey := apiKeyFrom(t, srv.Stdout.String())
	appID := regexp.MustCompile(`applicationId: +(\S+)`).FindStringSubmatch(srv.Stdout.String())[1]
	dash := base + "/dashboard"
	appURL := dash + "/apps/" + appID

	// The CalDAV server is set through the admin API (so the audit log
	// names the admin token for it).
	if status, body := adminRequest(t, "PUT", base+"/admin/v1/applications/"+appID+"/providers/provider_c", adminToken, map[string]any{"serverUrl": dav.URL}); status != http.StatusOK {
		t.Fatalf("set CalDAV settings = %d %s", status, body)
	}

	b.open(dash + "/")
	b.submit("login", chromedp.KeyEvent(adminToken+"\r"))
	b.open(dash + "/apps")
	b.mustSee("applications", "Applications", "default")

	// A VIRTUAL account, by keyboard: Tab reaches the email field, Enter
	// submits; the answer is the account's page with its primary calendar.
	b.open(appURL + "/accounts")
	focused := ""
	for range 40 {
		b.do("tab", chromedp.KeyEvent("\t"))
		id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement.id`))
		if err != nil {
			t.Fatal(err)
		}
		if focused = id; focused == "virtual-email" {
			break
		}
	}
	if focused != "virtual-email" {
		t.Fatal("40 presses of Tab did not reach the VIRTUAL account's email field")
	}
	b.submit("create virtual", chromedp.KeyEvent("virtual@example.com\r"))
	b.mustSee("account", "The VIRTUAL account was created.", "virtual@example.com", "Calendars", "primary")
	b.shot("ops-01-virtual-account")
	accountURL, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	virtualID := accountURL[strings.LastIndexByte(accountURL, '/')+1:]

	// A daily series from Saturday 6 June 2026, nine times: two
	// occurrences in the week of 1 June, seven in the next.
	status, body := request(t, "POST", base+"/v1/events/"+virtualID+"/primary", apiKey, map[string]any{
		"title": "Stand-up", "start": map[string]any{"dateTime": "2026-06-06T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-06-06T09:15:00Z"},
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=9"},
	})
	if status != http.StatusOK {
		t.Fatalf("create series = %d %s", status, body)
	}
	b.submit("open calendar", chromedp.Click(chromedp.CSS(`a[href$="/calendars/primary"]`)))
	b.open(appURL + "/accounts/" + virtualID + "/calendars/primary?week=2026-06-03")
	b.mustSee("calendar", "Week of 2026-06-01 (UTC)", "Stand-up")
	want := []string{"2026-06-06 09:00 ↻ Stand-up @9.00", "2026-06-07 09:00 ↻ Stand-up @9.00"}
	if diff := cmp.Diff(want, b.weekBlocks()); diff != "" {
		t.Errorf("week of 2026-06-01 (-want +got):\n%s", diff)
	}
	b.shot("ops-02-calendar-week")
	b.submit("next week", chromedp.Click(chromedp.CSS(`nav.week a[rel=next]`)))
	b.mustSee("next week", "Week of 2026-06-08 (UTC)")
	if events := b.weekBlocks(); len(events) != 7 {
		t.Errorf("week of 2026-06-08 has %d events, want 7: %q", len(events), events)
	}

	// CalDAV: a server URL that answers but is not CalDAV (this unicald's
	// own reference page) is refused, naming the field; without one the
	// account connects to the application's server.
	b.open(appURL + "/accounts")
	b.do("fill caldav",
		chromedp.SendKeys(chromedp.ID("caldav-email"), email),
		chromedp.SendKeys(chromedp.ID("caldav-password"), dav.Password),
		chromedp.SendKeys(chromedp.ID("caldav-server"), base+"/docs"))
	if status := b.submit("connect caldav elsewhere", chromedp.Submit(chromedp.ID("caldav-email"))); status != http.StatusBadRequest {
		t.Errorf("connect with a server URL that is not CalDAV = %d, want 400", status)
	}
	// The form keeps what was typed but the password, the error beside
	// the server URL.
	b.mustSee("refused caldav", "The CalDAV account was not connected")
	if got := b.value("caldav-email"); got != email {
		t.Errorf("the refused form's email = %q, want %q", got, email)
	}
	if got, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.ID("caldav-server-error"))); err != nil || got == "" {
		t.Errorf("no error beside the server URL (%v)", err)
	}
	b.do("fill caldav",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("caldav-server").value = ""`),
		chromedp.SendKeys(chromedp.ID("caldav-password"), dav.Password))
	b.submit("connect caldav", chromedp.Submit(chromedp.ID("caldav-email")))
	b.mustSee("caldav account", "The CalDAV account was connected.", email, "CalDAV (PROVIDER_C)")
	b.shot("ops-03-caldav-account")

	// A subscription on the VIRTUAL calendar: paused, resumed, deleted.
	status, body = request(t, "POST", base+"/v1/calendarSubscriptions/"+virtualID, apiKey, map[string]any{"calendarId": "primary", "webhookUrl": rcv.URL + "/calendar"})
	if status != http.StatusOK {
		t.Fatalf("create subscription = %d %s", status, body)
	}
	var sub struct {
		ID     string `json:"webhookSubscriptionId"`
		Secret string `json:"endpointSecret"`
	}
	json.Unmarshal(body, &sub)
	rcv.SetSecret(sub.Secret)
	state := func() string {
		for _, r := range b.rows("main table:not(.log) tbody tr") {
			if len(r) > 4 && r[0] == sub.ID {
				return r[4]
			}
		}
		return "gone"
	}
	b.open(appURL + "/webhooks")
	b.submit("pause", chromedp.Click(chromedp.CSS(`form[action$="/subscriptions/`+sub.ID+`/pause"] button`)))
	b.mustSee("paused", "The subscription was paused")
	if got := state(); got != "paused" {
		t.Errorf("state after pause = %q, want paused", got)
	}
	b.shot("ops-04-subscription-paused")
	b.submit("resume", chromedp.Click(chromedp.CSS(`form[action$="/subscriptions/`+sub.ID+`/resume"] button`)))
	if got := state(); got != "working" {
		t.Errorf("state after resume = %q, want working", got)
	}
	// A change on the resumed subscription's calendar is delivered.
	if status, body := request(t, "POST", base+"/v1/events/"+virtualID+"/primary", apiKey, map[string]any{
		"title": "Review", "start": map[string]any{"dateTime": "2026-06-10T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-06-10T10:00:00Z"},
	}); status != http.StatusOK {
		t.Fatalf("create event = %d %s", status, body)
	}
	rcv.WaitFor(t, 1)
	b.submit("delete subscription", chromedp.Click(chromedp.CSS(`form[action$="/subscriptions/`+sub.ID+`/delete"] button`)))
	b.mustSee("deleted", "The subscription was deleted.")
	if got := state(); got != "gone" {
		t.Errorf("state after delete = %q, want the subscription gone", got)
	}

	// An API key labelled at creation, then relabelled in its row.
	b.open(appURL + "/keys")
	b.do("fill label", chromedp.SendKeys(chromedp.ID("newlabel"), "billing service"))
	b.submit("create key", chromedp.Submit(chromedp.ID("newlabel")))
	keyID, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("#newkey-label strong").textContent.split(" ")[3]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.value("label-" + keyID); got != "billing service" {
		t.Errorf("label of the new key = %q, want %q", got, "billing service")
	}
	b.do("relabel", chromedp.Evaluate[chromedp.Void](`document.getElementById(`+jsString("label-"+keyID)+`).value = ""`),
		chromedp.SendKeys(chromedp.ID("label-"+keyID), "billing v2"))
	b.submit("save label", chromedp.Submit(chromedp.ID("label-"+keyID)))
	b.mustSee("keys", "The API key's label was saved.")
	if got := b.value("label-" + keyID); got != "billing v2" {
		t.Errorf("label after saving = %q, want %q", got, "billing v2")
	}
	b.shot("ops-05-key-labels")

	// The health panel: ready, the outbox, and the delivery counters,
	// which read as /metrics does once the delivery is counted (10 s at
	// most).
	counts := func() (page, metrics map[string]string) {
		b.open(dash + "/overview")
		page, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]string](
			`Object.fromEntries(Array.from(document.querySelectorAll("section[aria-labelledby=deliveries-h] dt")).map(d => [d.textContent.toLowerCase(), d.nextElementSibling.textContent]))`))
		if err != nil {
			t.Fatal(err)
		}
		_, body := request(t, "GET", base+"/metrics", "", nil)
		metrics = map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^unical_webhook_deliveries_total\{outcome="(\w+)"\} (\d+)$`).FindAllSubmatch(body, -1) {
			metrics[string(m[1])] = string(m[2])
		}
		return page, metrics
	}
	page, metrics := counts()
	for deadline := time.Now().Add(10 * time.Second); page["delivered"] == "0" && time.Now().Before(deadline); page, metrics = counts() {
		time.Sleep(200 * time.Millisecond)
	}
	if d := cmp.Diff(map[string]string{"delivered": "1", "retrying": "0", "failed": "0", "skipped": "0"}, metrics); d != "" {
		t.Errorf("/metrics delivery counts mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(metrics, page); d != "" {
		t.Errorf("health panel counts differ from /metrics (-metrics +panel):\n%s", d)
	}
	b.mustSee("health", "Ready", "Store", "Webhook engine", "running", "Webhook outbox", "waiting for delivery", "Error rate: 0.0% of 1 attempts")
	b.shot("ops-06-health")

	// The overview's accounts by provider and status are the
	// unical_accounts gauge's (read from the store at most every 10 s).
	accounts := func() (page, metrics map[string]string) {
		page = map[string]string{}
		for _, r := range b.rows("section[aria-labelledby=accounts-h] tbody tr") {
			label := strings.ToLower(strings.Trim(r[0][strings.LastIndexByte(r[0], ' ')+1:], "()"))
			page[label+" active"], page[label+" expired"] = r[1], r[2]
		}
		_, body := request(t, "GET", base+"/metrics", "", nil)
		metrics = map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^unical_accounts\{provider="(\w+)",status="(\w+)"\} (\d+)$`).FindAllSubmatch(body, -1) {
			metrics[string(m[1])+" "+string(m[2])] = string(m[3])
		}
		return page, metrics
	}
	b.open(dash + "/overview")
	page, metrics = accounts()
	for deadline := time.Now().Add(15 * time.Second); !cmp.Equal(page, metrics) && time.Now().Before(deadline); page, metrics = accounts() {
		time.Sleep(500 * time.Millisecond)
		b.open(dash + "/overview")
	}
	if d := cmp.Diff(metrics, page); d != "" {
		t.Errorf("the overview's accounts differ from /metrics' unical_accounts (-metrics +overview):\n%s", d)
	}
	if page["virtual active"] != "1" || page["provider_c active"] != "1" {
		t.Errorf("the overview counts %v, want the VIRTUAL and the CalDAV account active", page)
	}

	// The audit log: the dashboard's changes and the admin API's, newest
	// first, naming ids and never a secret.
	b.open(dash + "/audit")
	log := b.rows("main table tbody tr")
	var got []string
	for _, r := range log {
		got = append(got, r[1]+" "+r[2]+" "+r[4])
	}
	for _, want := range []string{
		"dashboard apiKey.label " + keyID,
		"dashboard apiKey.create " + keyID,
		"dashboard subscription.delete " + sub.ID,
		"dashboard subscription.resume " + sub.ID,
		"dashboard subscription.pause " + sub.ID,
		"dashboard account.create " + virtualID,
		"admin-token provider.set provider_c",
	} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("the audit log has no %q; it has:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) == 0 || got[0] != "dashboard apiKey.label "+keyID {
		t.Errorf("the newest audit entry is not the label change: %q", got)
	}
	if strings.Contains(b.html(), dav.Password) {
		t.Error("the audit log page shows the CalDAV password")
	}
	b.shot("ops-07-audit")

	// Every new page fits a phone's width and labels its fields.
	b.do("narrow", chromedp.EmulateViewport(390, 800))
	for _, page := range []string{
		appURL + "/accounts", appURL + "/accounts/" + virtualID, appURL + "/accounts/" + virtualID + "/calendars/primary?week=2026-06-08",
		appURL + "/keys", appURL + "/webhooks", dash + "/overview", dash + "/audit",
	} {
		b.open(page)
		if b.overflows() {
			t.Errorf("%s is wider than a 390 px screen", page)
		}
	}
	b.shot("ops-08-narrow-audit")
}
