package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// bookingSite is a unicald with a VIRTUAL host and a booking type
// published at /book/intro-call.
type bookingSite struct {
	base, apiKey, appID, host, typeID string
}

// bookingAdminToken is the booking sites' admin token.
const bookingAdminToken = "uat_browser-booking-admin-token-0123456789abcdef"

func startBookingSite(t *testing.T) *bookingSite {
	t.Helper()
	addr := freeLoopbackPort(t)
	base := "http://" + addr
	env := map[string]string{"UNICAL_ADMIN_TOKEN": bookingAdminToken}
	srv := startServe(t, &Main{Getenv: func(k string) string { return env[k] }}, t.TempDir(), "--addr", addr, "--public-url", base)
	out := srv.Stdout.String()
	s := &bookingSite{base: base, apiKey: apiKeyFrom(t, out), appID: regexp.MustCompile(`applicationId: +(\S+)`).FindStringSubmatch(out)[1]}
	var acct struct{ ID string }
	s.mustPost(t, "/v1/endUserAccounts", map[string]any{"email": "host@example.com", "providerType": "VIRTUAL"}, &acct)
	s.host = acct.ID
	var bt struct{ ID string }
	s.mustPost(t, "/v1/bookingTypes", map[string]any{"name": "Intro call", "durationMinutes": 30, "intervalMinutes": 30,
		"timeZone": "Europe/Berlin", "minimumNoticeMinutes": 60, "participants": []map[string]any{{"endUserAccountId": acct.ID}},
		"public": true, "slug": "intro-call", "frameAncestors": []string{"https://www.example.com"}}, &bt)
	s.typeID = bt.ID
	return s
}

func (s *bookingSite) mustPost(t *testing.T, path string, body, v any) {
	t.Helper()
	status, data := request(t, "POST", s.base+path, s.apiKey, body)
	if status != http.StatusOK && status != http.StatusCreated {
		t.Fatalf("POST %s = %d %s", path, status, data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// bookingJSON is what the test reads of a booking from /v1.
type bookingJSON struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Start  struct {
		DateTime string `json:"dateTime"`
	} `json:"start"`
	Guest struct {
		Email    string `json:"email"`
		TimeZone string `json:"timeZone"`
	} `json:"guest"`
}

func (s *bookingSite) bookings(t *testing.T) []bookingJSON {
	t.Helper()
	status, body := request(t, "GET", s.base+"/v1/bookings", s.apiKey, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /v1/bookings = %d %s", status, body)
	}
	var page struct{ Data []bookingJSON }
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	return page.Data
}

// hostEvents are the start times of the events in the host's calendar.
func (s *bookingSite) hostEvents(t *testing.T) []string {
	t.Helper()
	status, body := request(t, "GET", s.base+"/v1/events/"+s.host+"/primary", s.apiKey, nil)
	if status != http.StatusOK {
		t.Fatalf("GET host events = %d %s", status, body)
	}
	var page struct {
		Data []struct {
			Start struct {
				DateTime string `json:"dateTime"`
			} `json:"start"`
		}
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Data {
		out = append(out, e.Start.DateTime)
	}
	return out
}

// eval runs a JavaScript expression in b's page.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitLocation waits up to five seconds for the page's address to hold
// part, and returns it.
func (b *browser) waitLocation(part string) string {
	b.t.Helper()
	var loc string
	for range 50 {
		loc = eval[string](b, `location.href`)
		if strings.Contains(loc, part) {
			return loc
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("the page's address %s does not reach %q", loc, part)
	return ""
}

func sameTime(t *testing.T, a, b string) bool {
	t.Helper()
	ta, err1 := time.Parse(time.RFC3339, a)
	tb, err2 := time.Parse(time.RFC3339, b)
	if err1 != nil || err2 != nil {
		t.Fatalf("times %q, %q: %v %v", a, b, err1, err2)
	}
	return ta.Equal(tb)
}

// TestBookingPage_Browser books through /book/{slug} in Chromium as a
// guest in Tokyo (the browser's zone emulated; the type's is Berlin) on
// a 390 px wide screen: the page detects the zone and shows Tokyo's
// times, a slot is held and booked with a name and an email, the
// booking is in GET /v1/bookings and its event on the host's calendar;
// the reschedule link moves both; then the guest opens the emailed-style
// cancel link, confirms, and the booking is cancelled and the event gone. No page needs scrolling
// sideways, and every field has a label.
func TestBookingPage_Browser(t *testing.T) {
	t.Parallel()
	s := startBookingSite(t)
	b := newBrowser(t)
	if _, err := chromedp.Call(b.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	b.do("narrow", chromedp.EmulateViewport(390, 800))
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	narrow := func(page string) {
		t.Helper()
		if b.overflows() {
			t.Errorf("the %s page is wider than 390 px", page)
		}
	}

	// The page loads in the type's zone and its script reloads it in the
	// browser's.
	if status := b.open(s.base + "/book/intro-call"); status != http.StatusOK {
		t.Fatalf("GET /book/intro-call = %d:\n%s", status, b.text())
	}
	b.waitLocation("tz=Asia%2FTokyo")
	if got := eval[string](b, `document.getElementById("tz").value`); got != "Asia/Tokyo" {
		t.Errorf("the zone chosen is %q, want the browser's Asia/Tokyo", got)
	}
	b.mustSee("pick", "Intro call", "30 minutes")
	narrow("pick")
	b.shot("booking-01-pick")
	start := eval[string](b, `document.querySelector("ul.slots button").value`)
	label := eval[string](b, `document.querySelector("ul.slots button").textContent`)
	slot, err := time.Parse(time.RFC3339, start)
	if err != nil {
		t.Fatal(err)
	}
	if want := slot.In(tokyo).Format("15:04"); label != want || !strings.HasSuffix(start, "+09:00") {
		t.Errorf("the first slot %s reads %q, want Tokyo's %s", start, label, want)
	}

	if status := b.submit("hold", chromedp.Click(chromedp.CSS(`ul.slots button`))); status != http.StatusOK {
		t.Fatalf("hold = %d:\n%s", status, b.text())
	}
	b.mustSee("details", "held for you until")
	if fields := b.unlabelled(); len(fields) > 0 {
		t.Errorf("the details form has fields without a label: %v", fields)
	}
	narrow("details")
	b.do("fill", chromedp.SendKeys(chromedp.ID("name"), "Grace Guest"), chromedp.SendKeys(chromedp.ID("email"), "grace@example.org"))
	if status := b.submit("book", chromedp.Submit(chromedp.ID("email"))); status != http.StatusOK {
		t.Fatalf("book = %d:\n%s", status, b.text())
	}
	b.mustSee("confirmation", "You are booked.", slot.In(tokyo).Format("15:04"), "(Asia/Tokyo)", "grace@example.org")
	narrow("confirmation")
	b.shot("booking-02-confirmed")

	bookings := s.bookings(t)
	if len(bookings) != 1 || bookings[0].Status != "confirmed" || bookings[0].Guest.Email != "grace@example.org" ||
		bookings[0].Guest.TimeZone != "Asia/Tokyo" || !sameTime(t, bookings[0].Start.DateTime, start) {
		t.Fatalf("GET /v1/bookings = %+v, want one confirmed booking of grace@example.org at %s", bookings, start)
	}
	events := s.hostEvents(t)
	if len(events) != 1 || !sameTime(t, events[0], start) {
		t.Fatalf("the host's calendar holds %v, want one event at %s", events, start)
	}

	// The reschedule link offers the days again (not the booked slot)
	// and moves the booking and its event to the slot chosen.
	if status := b.submit("reschedule link", chromedp.Click(chromedp.ID("reschedule"))); status != http.StatusOK {
		t.Fatalf("reschedule link = %d:\n%s", status, b.text())
	}
	b.mustSee("reschedule", "Your booking is on")
	narrow("reschedule")
	moved := eval[string](b, `document.querySelector("ul.slots button").value`)
	if moved == start {
		t.Fatalf("the reschedule page offers the booked slot %s", start)
	}
	if status := b.submit("reschedule", chromedp.Click(chromedp.CSS(`ul.slots button`))); status != http.StatusOK {
		t.Fatalf("reschedule = %d:\n%s", status, b.text())
	}
	movedAt, err := time.Parse(time.RFC3339, moved)
	if err != nil {
		t.Fatal(err)
	}
	b.mustSee("rescheduled", "You are booked.", movedAt.In(tokyo).Format("15:04"))
	if got := s.bookings(t); len(got) != 1 || !sameTime(t, got[0].Start.DateTime, moved) {
		t.Fatalf("GET /v1/bookings after the reschedule = %+v, want it at %s", got, moved)
	}
	if events := s.hostEvents(t); len(events) != 1 || !sameTime(t, events[0], moved) {
		t.Fatalf("the host's calendar holds %v after the reschedule, want one event at %s", events, moved)
	}

	// The cancel link works on its own, as from an email: a fresh tab.
	cancelURL := eval[string](b, `document.getElementById("cancel").href`)
	c := newBrowser(t)
	c.do("narrow", chromedp.EmulateViewport(390, 800))
	if status := c.open(cancelURL); status != http.StatusOK {
		t.Fatalf("cancel link = %d:\n%s", status, c.text())
	}
	c.mustSee("cancel", "Cancel this booking")
	if c.overflows() {
		t.Error("the cancel page is wider than 390 px")
	}
	if status := c.submit("cancel", chromedp.Click(chromedp.CSS(`button.danger`))); status != http.StatusOK {
		t.Fatalf("cancel = %d:\n%s", status, c.text())
	}
	c.mustSee("cancelled", "Your booking is cancelled.")
	c.shot("booking-03-cancelled")
	if got := s.bookings(t); len(got) != 1 || got[0].Status != "cancelled" {
		t.Errorf("GET /v1/bookings after the cancel link = %+v, want it cancelled", got)
	}
	if events := s.hostEvents(t); len(events) != 0 {
		t.Errorf("the host's calendar holds %v after the cancel, want nothing", events)
	}
}

// TestBookingPage_TwoGuests_Browser opens the booking page in two
// browsers that both offer the same first slot: the first guest holds
// and books it, and the second, choosing it next, is told that the time
// is gone and shown the day again without it. One booking is made.
func TestBookingPage_TwoGuests_Browser(t *testing.T) {
	t.Parallel()
	s := startBookingSite(t)
	ada, bob := newBrowser(t), newBrowser(t)
	for _, b := range []*browser{ada, bob} {
		if status := b.open(s.base + "/book/intro-call?tz=UTC"); status != http.StatusOK {
			t.Fatalf("GET /book/intro-call = %d:\n%s", status, b.text())
		}
	}
	first := eval[string](ada, `document.querySelector("ul.slots button").value`)
	if got := eval[string](bob, `document.querySelector("ul.slots button").value`); got != first {
		t.Fatalf("the two browsers offer %s and %s first", first, got)
	}
	if status := ada.submit("ada holds", chromedp.Click(chromedp.CSS(`ul.slots button`))); status != http.StatusOK {
		t.Fatalf("ada's hold = %d:\n%s", status, ada.text())
	}
	ada.do("fill", chromedp.SendKeys(chromedp.ID("name"), "Ada"), chromedp.SendKeys(chromedp.ID("email"), "ada@example.org"))
	if status := ada.submit("ada books", chromedp.Submit(chromedp.ID("email"))); status != http.StatusOK {
		t.Fatalf("ada's booking = %d:\n%s", status, ada.text())
	}
	ada.mustSee("ada's confirmation", "You are booked.")

	if status := bob.submit("bob chooses the same slot", chromedp.Click(chromedp.CSS(`ul.slots button`))); status != http.StatusConflict {
		t.Fatalf("bob's hold of the booked slot = %d, want 409:\n%s", status, bob.text())
	}
	bob.mustSee("bob's answer", "that time is gone")
	bob.shot("booking-04-slot-gone")
	if got := eval[string](bob, `document.querySelector("ul.slots button") ? document.querySelector("ul.slots button").value : ""`); got == first {
		t.Errorf("bob is offered the booked slot %s again", first)
	}
	if got := s.bookings(t); len(got) != 1 || got[0].Guest.Email != "ada@example.org" {
		t.Errorf("GET /v1/bookings = %+v, want ada's booking alone", got)
	}
}

// TestBookingPage_DashboardEmbed_Browser finds a public booking type's
// link and iframe snippet on the dashboard's Bookings page, which fits
// 390 px, and follows the link to the booking page.
func TestBookingPage_DashboardEmbed_Browser(t *testing.T) {
	t.Parallel()
	s := startBookingSite(t)
	b := newBrowser(t)
	b.do("narrow", chromedp.EmulateViewport(390, 800))
	b.open(s.base + "/dashboard/")
	b.submit("login", chromedp.KeyEvent(bookingAdminToken+"\r"))
	if status := b.open(s.base + "/dashboard/apps/" + s.appID + "/bookings"); status != http.StatusOK {
		t.Fatalf("bookings page = %d:\n%s", status, b.text())
	}
	link := s.base + "/book/intro-call"
	b.mustSee("bookings", "Booking page: Intro call", "Public link: "+link, "(frameAncestors): https://www.example.com")
	if got, want := b.value("embed-"+s.typeID), `<iframe src="`+link+`" title="Intro call" width="100%" height="760" style="border:0"></iframe>`; got != want {
		t.Errorf("embed snippet = %q, want %q", got, want)
	}
	if b.overflows() {
		t.Error("the dashboard's bookings page is wider than 390 px")
	}
	b.shot("booking-05-dashboard-embed")
	if status := b.submit("follow the public link", chromedp.Click(chromedp.CSS(`section.bookpage a`))); status != http.StatusOK {
		t.Fatalf("public link = %d", status)
	}
	b.mustSee("booking page", "Intro call", "30 minutes")
}
