package googletest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

// instanceView is what the recurrence tests compare per instance.
type instanceView struct {
	ID, Summary, Start, Status, RecurringEventID, OriginalStart string
}

func viewInstances(its []map[string]any) []instanceView {
	out := make([]instanceView, len(its))
	for i, it := range its {
		out[i] = instanceView{
			ID: str(it, "id"), Summary: str(it, "summary"), Start: str(it, "start", "dateTime") + str(it, "start", "date"),
			Status: str(it, "status"), RecurringEventID: str(it, "recurringEventId"),
			OriginalStart: str(it, "originalStartTime", "dateTime") + str(it, "originalStartTime", "date"),
		}
	}
	return out
}

func TestEvents_RecurringInstances(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	// Weekly on Tuesdays 10:00 Berlin, five times, 2025-01-14 excluded, an
	// extra date added.
	master := MustInsertEvent(t, f, "primary", map[string]any{
		"id":      "rec00001",
		"summary": "Weekly",
		"start":   map[string]any{"dateTime": "2025-01-07T10:00:00+01:00", "timeZone": "Europe/Berlin"},
		"end":     map[string]any{"dateTime": "2025-01-07T11:00:00+01:00", "timeZone": "Europe/Berlin"},
		"recurrence": []any{
			"RRULE:FREQ=WEEKLY;COUNT=5",
			"EXDATE;TZID=Europe/Berlin:20250114T100000",
			"RDATE;TZID=Europe/Berlin:20250116T100000",
		},
	})
	if str(master, "id") != "rec00001" {
		t.Fatalf("master id = %q", str(master, "id"))
	}
	instURL := eventsURL(f, "primary", nil) + "/rec00001/instances"
	base := eventsURL(f, "primary", nil) + "/"

	// Override the 2025-01-21 instance (09:00Z) and delete the 2025-01-28 one.
	r := call(t, "PATCH", base+inst("rec00001", "20250121T090000Z"), f.token, map[string]any{"summary": "Moved", "start": map[string]any{"dateTime": "2025-01-21T12:00:00+01:00", "timeZone": "Europe/Berlin"}, "end": map[string]any{"dateTime": "2025-01-21T13:00:00+01:00", "timeZone": "Europe/Berlin"}})
	if r.status != 200 {
		t.Fatalf("patch instance: %d %s", r.status, r.raw)
	}
	if r := call(t, "DELETE", base+inst("rec00001", "20250128T090000Z"), f.token, nil); r.status != 204 {
		t.Fatalf("delete instance: %d %s", r.status, r.raw)
	}

	orig := func(s string) string { return s }
	want := []instanceView{
		{ID: inst("rec00001", "20250107T090000Z"), Summary: "Weekly", Start: "2025-01-07T10:00:00+01:00", Status: "confirmed", RecurringEventID: "rec00001", OriginalStart: orig("2025-01-07T10:00:00+01:00")},
		{ID: inst("rec00001", "20250116T090000Z"), Summary: "Weekly", Start: "2025-01-16T10:00:00+01:00", Status: "confirmed", RecurringEventID: "rec00001", OriginalStart: orig("2025-01-16T10:00:00+01:00")},
		{ID: inst("rec00001", "20250121T090000Z"), Summary: "Moved", Start: "2025-01-21T12:00:00+01:00", Status: "confirmed", RecurringEventID: "rec00001", OriginalStart: orig("2025-01-21T10:00:00+01:00")},
		{ID: inst("rec00001", "20250204T090000Z"), Summary: "Weekly", Start: "2025-02-04T10:00:00+01:00", Status: "confirmed", RecurringEventID: "rec00001", OriginalStart: orig("2025-02-04T10:00:00+01:00")},
	}
	got := call(t, "GET", instURL, f.token, nil)
	if diff := cmp.Diff(want, viewInstances(items(t, got))); diff != "" {
		t.Errorf("instances mismatch (-want +got):\n%s", diff)
	}
	if got.body["nextSyncToken"] != nil {
		t.Errorf("instances returned a nextSyncToken")
	}

	t.Run("ShowDeleted", func(t *testing.T) {
		r := call(t, "GET", instURL+"?showDeleted=true", f.token, nil)
		var cancelled []instanceView
		for _, v := range viewInstances(items(t, r)) {
			if v.Status == "cancelled" {
				cancelled = append(cancelled, v)
			}
		}
		want := []instanceView{{ID: inst("rec00001", "20250128T090000Z"), Status: "cancelled", RecurringEventID: "rec00001", OriginalStart: "2025-01-28T10:00:00+01:00"}}
		if diff := cmp.Diff(want, cancelled); diff != "" {
			t.Errorf("cancelled instances mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("TimeWindow", func(t *testing.T) {
		q := url.Values{"timeMin": {"2025-01-15T00:00:00Z"}, "timeMax": {"2025-01-22T00:00:00Z"}}
		r := call(t, "GET", instURL+"?"+q.Encode(), f.token, nil)
		if diff := cmp.Diff([]string{inst("rec00001", "20250116T090000Z"), inst("rec00001", "20250121T090000Z")}, ids(items(t, r))); diff != "" {
			t.Errorf("windowed instances mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("SingleEventsList", func(t *testing.T) {
		q := url.Values{"singleEvents": {"true"}, "orderBy": {"startTime"}, "timeMin": {"2025-01-01T00:00:00Z"}, "timeMax": {"2025-03-01T00:00:00Z"}}
		r := call(t, "GET", eventsURL(f, "primary", q), f.token, nil)
		if diff := cmp.Diff(want, viewInstances(items(t, r))); diff != "" {
			t.Errorf("singleEvents list mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("MasterListShowsExceptions", func(t *testing.T) {
		// With singleEvents and showDeleted both false the master and its
		// exceptions come back, the cancelled one included.
		r := call(t, "GET", eventsURL(f, "primary", nil), f.token, nil)
		got := ids(items(t, r))
		want := []string{"rec00001", inst("rec00001", "20250121T090000Z"), inst("rec00001", "20250128T090000Z")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("non-expanded list mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("GetInstance", func(t *testing.T) {
		r := call(t, "GET", base+inst("rec00001", "20250204T090000Z"), f.token, nil)
		if r.status != 200 || str(r.body, "recurringEventId") != "rec00001" || r.body["recurrence"] != nil {
			t.Fatalf("get instance: %d %s", r.status, r.raw)
		}
		if code, _ := errorReason(t, call(t, "GET", base+inst("rec00001", "20250114T090000Z"), f.token, nil)); code != 404 {
			t.Errorf("EXDATE'd instance: status %d, want 404", code)
		}
	})
}

func TestEvents_AllDayRecurring(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	MustInsertEvent(t, f, "primary", map[string]any{
		"id":         "allda001",
		"summary":    "Daily",
		"start":      map[string]any{"date": "2025-01-07"},
		"end":        map[string]any{"date": "2025-01-08"},
		"recurrence": []any{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;VALUE=DATE:20250108"},
	})
	r := call(t, "GET", eventsURL(f, "primary", nil)+"/allda001/instances", f.token, nil)
	want := []instanceView{
		{ID: inst("allda001", "20250107"), Summary: "Daily", Start: "2025-01-07", Status: "confirmed", RecurringEventID: "allda001", OriginalStart: "2025-01-07"},
		{ID: inst("allda001", "20250109"), Summary: "Daily", Start: "2025-01-09", Status: "confirmed", RecurringEventID: "allda001", OriginalStart: "2025-01-09"},
	}
	if diff := cmp.Diff(want, viewInstances(items(t, r))); diff != "" {
		t.Errorf("all-day instances mismatch (-want +got):\n%s", diff)
	}
}

func TestEvents_RecurringIncrementalSync(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	MustInsertEvent(t, f, "primary", map[string]any{
		"id": "series01", "summary": "S",
		"start":      map[string]any{"dateTime": "2025-01-07T10:00:00Z", "timeZone": "UTC"},
		"end":        map[string]any{"dateTime": "2025-01-07T11:00:00Z", "timeZone": "UTC"},
		"recurrence": []any{"RRULE:FREQ=DAILY;COUNT=3"},
	})
	_, tok, _ := listAll(t, f, "primary", nil)
	if r := call(t, "DELETE", eventsURL(f, "primary", nil)+"/"+inst("series01", "20250108T100000Z"), f.token, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete instance: %d %s", r.status, r.raw)
	}
	changes, _, _ := listAll(t, f, "primary", url.Values{"syncToken": {tok}})
	// The removed instance is a cancelled exception that keeps
	// recurringEventId and originalStartTime.
	want := []map[string]any{{
		"kind": "calendar#event", "id": inst("series01", "20250108T100000Z"), "status": "cancelled",
		"etag": changes[0]["etag"], "recurringEventId": "series01",
		"originalStartTime": map[string]any{"dateTime": "2025-01-08T11:00:00+01:00", "timeZone": "UTC"},
	}}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("incremental changes mismatch (-want +got):\n%s", diff)
	}
}

// inst is the fake's id for the instance of series master whose original
// start is utc, given as YYYYMMDDTHHMMSSZ, or YYYYMMDD for an all-day series.
// Instance ids are opaque (see googletest.InstanceID).
func inst(master, utc string) string {
	if len(utc) == 8 {
		t, err := time.Parse("20060102", utc)
		if err != nil {
			panic(err)
		}
		return googletest.InstanceID(master, t, true)
	}
	t, err := time.Parse("20060102T150405Z", utc)
	if err != nil {
		panic(err)
	}
	return googletest.InstanceID(master, t, false)
}
