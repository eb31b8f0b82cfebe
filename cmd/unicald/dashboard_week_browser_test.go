package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// weekBlocks is what the calendar page's week grid shows: for each event
// block, its day column's date, its text (the start time, ↻ for an
// occurrence of a recurring event, the title) and the hour of the day its
// top edge is drawn at, read from where the browser laid it out; all-day
// events with "all day" in place of the hour.
func (b *browser) weekBlocks() []string {
	b.t.Helper()
	blocks, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [];
		for (const day of document.querySelectorAll("ul.wk-allday")) {
			for (const li of day.querySelectorAll("li")) out.push(day.dataset.date + " all day " + li.textContent.replace("Repeats: ", "").trim());
		}
		for (const day of document.querySelectorAll("ul.wk-day")) {
			const box = day.getBoundingClientRect();
			for (const li of day.querySelectorAll("li")) {
				const r = li.getBoundingClientRect();
				const hour = Math.round((r.top - box.top) / box.height * 24 * 4) / 4;
				const mark = li.classList.contains("rec") ? "↻ " : "";
				out.push(day.dataset.date + " " + li.querySelector(".at").textContent + " " + mark + li.querySelector(".what").textContent + " @" + hour.toFixed(2) + (r.width > 0 && r.height > 0 ? "" : " hidden"));
			}
		}
		return out;
	})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	return blocks
}

// quickstartBody is the JSON body the README's Quickstart block name sends
// with curl -d.
func quickstartBody(t *testing.T, blocks map[string]string, name string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)-d '(.*?)'`).FindStringSubmatch(blocks[name])
	if m == nil {
		t.Fatalf("the Quickstart's %s block sends no body", name)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(m[1]), &body); err != nil {
		t.Fatalf("the Quickstart's %s body: %v", name, err)
	}
	return body
}

// TestDashboard_WeekGrid_Browser creates the README Quickstart's account
// and events through /v1 and finds them in the dashboard's week grid: the
// calendar opens on this week in the calendar's zone (UTC); choosing the
// Quickstart's week with the date picker shows Planning and the three
// Standup occurrences in their day columns at their hours in UTC, and
// typing Europe/Berlin an hour later; "Next event after this week" leads
// from today's empty week to the Quickstart's. The page fits 390 px.
func TestDashboard_WeekGrid_Browser(t *testing.T) {
	t.Parallel()
	_, quickstart := readQuickstart(t)
	b := newBrowser(t)
	const adminToken = "uat_browser-week-admin-token-0123456789abcdef"
	ds := serveDashboard(t, adminToken)
	acctID := ds.createQuickstart(t, quickstart)

	ds.login(b)
	calendarURL := ds.appURL + "/accounts/" + acctID + "/calendars/primary"
	if status := b.open(calendarURL); status != http.StatusOK {
		t.Fatalf("calendar page = %d:\n%s", status, b.text())
	}
	if got := b.value("tz"); got != "UTC" {
		t.Errorf("the calendar opens in zone %q, want the calendar's, UTC", got)
	}
	if blocks := b.weekBlocks(); len(blocks) != 0 {
		t.Errorf("this week shows %q, want no events (the Quickstart's are in 2030)", blocks)
	}

	// The date picker: a date of the week, then Show.
	b.do("pick the week", chromedp.SetValue(chromedp.ID("week"), "2030-01-09"))
	b.submit("show week", chromedp.Click(chromedp.CSS(`form.weekpick button`)))
	b.mustSee("week in UTC", "Week of 2030-01-07 (UTC)")
	inUTC := []string{
		"2030-01-07 08:00 ↻ Standup @8.00",
		"2030-01-07 13:00 Planning @13.00",
		"2030-01-08 08:00 ↻ Standup @8.00",
		"2030-01-09 08:00 ↻ Standup @8.00",
	}
	if diff := cmp.Diff(inUTC, b.weekBlocks()); diff != "" {
		t.Errorf("the Quickstart's week in UTC (-want +got):\n%s", diff)
	}
	b.shot("week-01-utc")

	b.do("pick the zone", chromedp.SetValue(chromedp.ID("tz"), "Europe/Berlin"))
	b.submit("show week in Berlin", chromedp.Click(chromedp.CSS(`form.weekpick button`)))
	b.mustSee("week in Berlin", "Week of 2030-01-07 (Europe/Berlin)")
	inBerlin := []string{
		"2030-01-07 09:00 ↻ Standup @9.00",
		"2030-01-07 14:00 Planning @14.00",
		"2030-01-08 09:00 ↻ Standup @9.00",
		"2030-01-09 09:00 ↻ Standup @9.00",
	}
	if diff := cmp.Diff(inBerlin, b.weekBlocks()); diff != "" {
		t.Errorf("the Quickstart's week in Europe/Berlin (-want +got):\n%s", diff)
	}
	b.shot("week-02-berlin")

	// The zone is kept from week to week; a week without events is empty.
	b.submit("next week", chromedp.Click(chromedp.CSS(`nav.week a[rel=next]`)))
	b.mustSee("next week", "Week of 2030-01-14 (Europe/Berlin)")
	if blocks := b.weekBlocks(); len(blocks) != 0 {
		t.Errorf("the week after the Quickstart's shows %q, want none", blocks)
	}

	// From this week, "Next event after this week" opens the Quickstart's.
	b.open(calendarURL + "?tz=Europe/Berlin")
	b.submit("jump", chromedp.Click(chromedp.CSS(`nav.week a[href*="jump=next"]`)))
	b.mustSee("jumped", "The next event: Standup, Monday 7 January 2030 09:00 CET.", "Week of 2030-01-07 (Europe/Berlin)")
	if diff := cmp.Diff(inBerlin, b.weekBlocks()); diff != "" {
		t.Errorf("the week of the next event (-want +got):\n%s", diff)
	}
	// From the last week with events, there is no next one.
	b.open(calendarURL + "?week=2030-01-07&tz=UTC&jump=next")
	b.mustSee("no next", "No event starts in the 10 years after the week of 2030-01-07.", "Week of 2030-01-07 (UTC)")

	// A zone that is not one is refused, naming the field.
	if status := b.open(calendarURL + "?week=2030-01-07&tz=Mars/Olympus"); status != http.StatusBadRequest {
		t.Errorf("a zone that is not one = %d, want 400", status)
	}
	b.mustSee("bad zone", "tz must be an IANA time zone name")

	// At 390 px the week fits the width, its blocks still in place.
	b.do("narrow", chromedp.EmulateViewport(390, 800))
	b.open(calendarURL + "?week=2030-01-07&tz=Europe/Berlin")
	if b.overflows() {
		t.Error("the week grid is wider than a 390 px screen")
	}
	if diff := cmp.Diff(inBerlin, b.weekBlocks()); diff != "" {
		t.Errorf("the week at 390 px (-want +got):\n%s", diff)
	}
	if !strings.Contains(b.html(), `class="wk"`) {
		t.Error("no week grid at 390 px")
	}
	b.shot("week-03-narrow")
}
