package caldav

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestCalendarCache: entries are per account, a member is found only at
// the ETag it was kept at, a new listing drops what changed, and the
// cache stays within its bound by dropping the calendars used least
// recently.
func TestCalendarCache(t *testing.T) {
	t.Parallel()
	calURL, _ := url.Parse("https://dav.example.com/cal/work/")
	ada := &unical.Session{ApplicationID: "app_1", AccountID: "acc_ada", Email: "ada@example.com"}
	bob := &unical.Session{ApplicationID: "app_1", AccountID: "acc_bob", Email: "bob@example.com"}
	c := &calendarCache{maxBytes: 1 << 20}
	va, vb := c.view(ada, calURL), c.view(bob, calURL)

	va.putObject("a.ics", `"1"`, "BEGIN:VCALENDAR")
	if _, ok := vb.object("a.ics", `"1"`); ok {
		t.Error("another account's view finds a member the first account read")
	}
	if _, ok := va.object("a.ics", `"2"`); ok {
		t.Error("a member is found at an ETag it was not kept at")
	}
	if data, ok := va.object("a.ics", `"1"`); !ok || data != "BEGIN:VCALENDAR" {
		t.Errorf("object(a.ics, \"1\") = %q, %v; want what was kept", data, ok)
	}

	// A listing where a.ics changed and b.ics is gone drops both.
	va.putObject("b.ics", `"1"`, "BEGIN:VCALENDAR")
	va.putObject("c.ics", `"1"`, "BEGIN:VCALENDAR")
	first := newListing("t1", map[string]string{"a.ics": `"1"`, "b.ics": `"1"`, "c.ics": `"1"`})
	va.setListing(nil, first)
	va.setListing(first, newListing("t2", map[string]string{"a.ics": `"2"`, "c.ics": `"1"`}))
	var kept []string
	for _, name := range []string{"a.ics", "b.ics", "c.ics"} {
		if _, ok := va.object(name, `"1"`); ok {
			kept = append(kept, name)
		}
	}
	if diff := cmp.Diff([]string{"c.ics"}, kept); diff != "" {
		t.Errorf("members kept after a listing that changed a.ics and lost b.ics (-want +got):\n%s", diff)
	}
	// A listing made from one that is no longer current is not taken.
	va.setListing(first, newListing("t9", map[string]string{}))
	if l := va.listing(); l == nil || l.token != "t2" {
		t.Errorf("listing after a stale update = %+v, want t2's", l)
	}
	if diff := cmp.Diff([]string{"c.ics"}, va.listing().after("a.ics")); diff != "" {
		t.Errorf("after(a.ics) (-want +got):\n%s", diff)
	}

	// The bound: 30 calendars of about 10 KB each in 100 KB.
	small := &calendarCache{maxBytes: 100 << 10}
	data := strings.Repeat("x", 10<<10)
	for i := range 30 {
		u := calURL.JoinPath(string(rune('a' + i)))
		small.view(ada, u).putObject("e.ics", `"1"`, data)
		if small.bytes > small.maxBytes {
			t.Fatalf("after %d calendars the cache holds %d bytes, over its bound of %d", i+1, small.bytes, small.maxBytes)
		}
	}
	if _, ok := small.view(ada, calURL.JoinPath("a")).object("e.ics", `"1"`); ok {
		t.Error("the calendar used least recently is still held past the bound")
	}
	if _, ok := small.view(ada, calURL.JoinPath(string(rune('a'+29)))).object("e.ics", `"1"`); !ok {
		t.Error("the calendar used last was dropped")
	}
	// A member larger than the bound is not kept at all.
	small.view(bob, calURL).putObject("huge.ics", `"1"`, strings.Repeat("x", 200<<10))
	if _, ok := small.view(bob, calURL).object("huge.ics", `"1"`); ok || small.bytes > small.maxBytes {
		t.Errorf("a member over the bound: kept %v, cache at %d bytes of %d", ok, small.bytes, small.maxBytes)
	}
}
