package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/davtest"
)

// dashboardServe is a unicald serve on a loopback port of its own, for
// a browser test: its admin token set, its first start's application and
// API key read from its output.
type dashboardServe struct {
	srv                         *running
	base, apiKey, appID, appURL string
	adminToken                  string
}

// serveDashboard starts unicald serve with adminToken and args (beyond
// --addr and --public-url).
func serveDashboard(t *testing.T, adminToken string, args ...string) *dashboardServe {
	t.Helper()
	addr := freeLoopbackPort(t)
	ds := &dashboardServe{base: "http://" + addr, adminToken: adminToken}
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminToken}
	ds.srv = startServe(t, &Main{Getenv: func(k string) string { return env[k] }}, t.TempDir(), append([]string{"--addr", addr, "--public-url", ds.base}, args...)...)
	ds.apiKey = apiKeyFrom(t, ds.srv.Stdout.String())
	ds.appID = regexp.MustCompile(`applicationId: +(\S+)`).FindStringSubmatch(ds.srv.Stdout.String())[1]
	ds.appURL = ds.base + "/dashboard/apps/" + ds.appID
	return ds
}

// login logs b in to the dashboard with the admin token, by keyboard.
func (ds *dashboardServe) login(b *browser) {
	b.open(ds.base + "/dashboard/login")
	b.submit("login", chromedp.KeyEvent(ds.adminToken+"\r"))
}

// create sends body to path with the API key and returns the id of what
// it made.
func (ds *dashboardServe) create(t *testing.T, what, path string, body any) string {
	t.Helper()
	status, resp := request(t, "POST", ds.base+path, ds.apiKey, body)
	if status != http.StatusOK {
		t.Fatalf("%s = %d %s", what, status, resp)
	}
	var created struct{ ID string }
	if err := json.Unmarshal(resp, &created); err != nil {
		t.Fatal(err)
	}
	return created.ID
}

// createQuickstart makes the README Quickstart's account and its two
// events (Planning, and three Standups) and returns the account's id.
func (ds *dashboardServe) createQuickstart(t *testing.T, quickstart map[string]string) string {
	t.Helper()
	id := ds.create(t, "the Quickstart's account", "/v1/endUserAccounts", quickstartBody(t, quickstart, "account"))
	for _, step := range []string{"event", "recurring"} {
		ds.create(t, "the Quickstart's "+step, "/v1/events/"+id+"/primary", quickstartBody(t, quickstart, step))
	}
	return id
}

// slotBlocks turns the slots of a POST /v1/availability answer into what
// browser.weekBlocks reads from a grid of free slots: the day, the start
// time, "Free" and the hour the block's top is drawn at, in loc.
func slotBlocks(t *testing.T, body []byte, loc *time.Location) []string {
	t.Helper()
	var res struct {
		Data []struct {
			Start struct{ DateTime string } `json:"start"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range res.Data {
		start, err := time.Parse(time.RFC3339, s.Start.DateTime)
		if err != nil {
			t.Fatalf("slot start %q: %v", s.Start.DateTime, err)
		}
		start = start.In(loc)
		hour := float64(start.Hour()) + float64(start.Minute())/60
		out = append(out, fmt.Sprintf("%s %s Free @%.2f", start.Format("2006-01-02"), start.Format("15:04"), hour))
	}
	// weekBlocks reads day by day, each day's blocks from the top.
	slices.Sort(out)
	return out
}

// TestDashboard_AvailabilityExplorer_Browser makes the Quickstart's
// account and events and a second account busy on Tuesday morning, then
// chooses both in the availability explorer with its form (three days
// from the Quickstart's Monday, 30 minutes, Europe/Berlin, 08:00 to
// 18:00): the grid paints exactly the slots POST /v1/availability answers
// for the same input. Then, at 390 px, it walks every page the
// navigation links (and the pages below them: an account, its calendar's
// week, the explorer's answer) and finds none wider than the screen.
func TestDashboard_AvailabilityExplorer_Browser(t *testing.T) {
	t.Parallel()
	_, quickstart := readQuickstart(t)
	b := newBrowser(t)
	ds := serveDashboard(t, "uat_browser-explorer-admin-token-0123456789ab")
	base, apiKey, appURL := ds.base, ds.apiKey, ds.appURL
	room := ds.createQuickstart(t, quickstart)
	grace := ds.create(t, "a second account", "/v1/endUserAccounts", map[string]any{"email": "grace@example.com", "providerType": "VIRTUAL"})
	ds.create(t, "Grace's event", "/v1/events/"+grace+"/primary", map[string]any{
		"title": "Dentist", "start": map[string]any{"dateTime": "2030-01-08T10:30:00+01:00", "timeZone": "Europe/Berlin"},
		"end": map[string]any{"dateTime": "2030-01-08T12:00:00+01:00", "timeZone": "Europe/Berlin"},
	})

	ds.login(b)
	if status := b.open(appURL + "/availability"); status != http.StatusOK {
		t.Fatalf("availability explorer = %d:\n%s", status, b.text())
	}
	if blocks := b.weekBlocks(); len(blocks) != 0 {
		t.Errorf("the explorer paints %q before anything is asked", blocks)
	}
	b.do("fill the explorer",
		chromedp.Click(chromedp.ID("acct-"+room)),
		chromedp.Click(chromedp.ID("acct-"+grace)),
		chromedp.SetValue(chromedp.ID("date"), "2030-01-07"),
		chromedp.SetValue(chromedp.ID("days"), "3"),
		chromedp.SetValue(chromedp.ID("duration"), "30"),
		chromedp.SetValue(chromedp.ID("step"), "30"),
		chromedp.SetValue(chromedp.ID("tz"), "Europe/Berlin"),
		chromedp.SetValue(chromedp.ID("from"), "08:00"),
		chromedp.SetValue(chromedp.ID("to"), "18:00"),
	)
	if status := b.submit("find slots", chromedp.Click(chromedp.CSS(`form.explorer button`))); status != http.StatusOK {
		t.Fatalf("find slots = %d:\n%s", status, b.text())
	}
	b.mustSee("explorer", "Free slots, week of 2030-01-07 (Europe/Berlin)")
	painted := b.weekBlocks()

	hours := map[string]any{"timeZone": "Europe/Berlin", "intervals": []map[string]string{}}
	for _, day := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		hours["intervals"] = append(hours["intervals"].([]map[string]string), map[string]string{"day": day, "start": "08:00", "end": "18:00"})
	}
	status, body := request(t, "POST", base+"/v1/availability", apiKey, map[string]any{
		"participants": []map[string]any{
			{"endUserAccountId": room, "workingHours": hours},
			{"endUserAccountId": grace, "workingHours": hours},
		},
		"startDateTime": "2030-01-07T00:00:00", "endDateTime": "2030-01-10T00:00:00", "timeZone": "Europe/Berlin",
		"durationMinutes": 30, "intervalMinutes": 30, "maxResults": 1000,
	})
	if status != http.StatusOK {
		t.Fatalf("POST /v1/availability = %d %s", status, body)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	want := slotBlocks(t, body, berlin)
	// The answer leaves out the busy times: the Standups, Planning and
	// Grace's appointment.
	for _, busy := range []string{"2030-01-07 09:00", "2030-01-07 14:00", "2030-01-08 11:00", "2030-01-09 09:00"} {
		for _, s := range want {
			if strings.HasPrefix(s, busy) {
				t.Errorf("POST /v1/availability offers %s, a busy time", s)
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("POST /v1/availability offers no slot")
	}
	if diff := cmp.Diff(want, painted); diff != "" {
		t.Errorf("the explorer's slots differ from POST /v1/availability's (-api +explorer):\n%s", diff)
	}
	b.mustSee("explorer", fmt.Sprintf("%d free slots of 30 minutes from 2030-01-07 for 3 days, in Europe/Berlin.", len(want)))
	explorerURL, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	b.shot("explorer-01-slots")

	// Every page at 390 px: the navigation's, and those below them.
	b.do("narrow", chromedp.EmulateViewport(390, 800))
	links := func(css string) []string {
		t.Helper()
		hrefs, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+jsString(css)+`)).map(a => a.href)`))
		if err != nil {
			t.Fatal(err)
		}
		return hrefs
	}
	b.open(appURL)
	pages := append(links(`nav a[href^="/dashboard/"]`), links(`nav.app a`)...)
	pages = append(pages, appURL+"/accounts/"+room, appURL+"/accounts/"+room+"/calendars/primary?week=2030-01-07&tz=Europe/Berlin", explorerURL)
	slices.Sort(pages)
	pages = slices.Compact(pages)
	if len(pages) < 12 {
		t.Errorf("the navigation links %d pages, want every page: %q", len(pages), pages)
	}
	for _, page := range pages {
		if u, err := url.Parse(page); err != nil || "http://"+u.Host != base {
			t.Errorf("the navigation links %q, outside the dashboard", page)
			continue
		}
		if status := b.open(page); status != http.StatusOK {
			t.Errorf("%s = %d", page, status)
		}
		if b.overflows() {
			t.Errorf("%s is wider than a 390 px screen", page)
		}
	}
	b.open(explorerURL)
	b.shot("explorer-02-narrow")
}

// TestDashboard_CalDAVForm_Browser connects a CalDAV account at a real
// Radicale through the dashboard's form with a wrong password: the page
// answers with every field as typed but the password, which is empty and
// nowhere in the HTML, and the error beside the password field; typing
// the right one then connects the account.
func TestDashboard_CalDAVForm_Browser(t *testing.T) {
	t.Parallel()
	const email = "form@example.com"
	dav := davtest.StartUser(t, davtest.Radicale, email)
	b := newBrowser(t)
	ds := serveDashboard(t, "uat_browser-caldav-admin-token-0123456789abc", "--allow-private-targets")
	ds.login(b)
	b.open(ds.appURL + "/accounts")
	const wrong = "not-the-password-needle"
	b.do("fill the CalDAV form",
		chromedp.SendKeys(chromedp.ID("caldav-email"), email),
		chromedp.SendKeys(chromedp.ID("caldav-password"), wrong),
		chromedp.SendKeys(chromedp.ID("caldav-username"), email),
		chromedp.SendKeys(chromedp.ID("caldav-server"), dav.URL))
	if status := b.submit("connect", chromedp.Submit(chromedp.ID("caldav-email"))); status != http.StatusBadRequest {
		t.Errorf("connect with a wrong password = %d, want 400", status)
	}
	got := map[string]string{}
	for _, id := range []string{"caldav-email", "caldav-password", "caldav-username", "caldav-server"} {
		got[id] = b.value(id)
	}
	want := map[string]string{"caldav-email": email, "caldav-password": "", "caldav-username": email, "caldav-server": dav.URL}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the form after the error (-want +got):\n%s", diff)
	}
	if strings.Contains(b.html(), wrong) {
		t.Error("the page holds the password typed")
	}
	// The error is the password field's description, right after it.
	described, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
		const input = document.getElementById("caldav-password");
		const next = input.nextElementSibling;
		return input.getAttribute("aria-invalid") + " " + (next && next.id === input.getAttribute("aria-describedby") ? next.textContent : "none");
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(described, "true ") || described == "true none" {
		t.Errorf("the password field: %q, want it invalid and described by the error after it", described)
	}
	b.mustSee("accounts", "The CalDAV account was not connected")
	b.shot("caldav-01-refused")

	b.do("type the password", chromedp.SendKeys(chromedp.ID("caldav-password"), dav.Password))
	b.submit("connect", chromedp.Submit(chromedp.ID("caldav-email")))
	b.mustSee("account", "The CalDAV account was connected.", email)
}
