package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestYearBoundsOverHTTP: 0001-01-01T00:00:00Z is a window start like any
// other (expanded listings and occurrences need one, and used to answer
// that it was missing), and an instant outside the years 1 to 9999 in UTC
// is a 400 naming the field, in a query or in an event.
func TestYearBoundsOverHTTP(t *testing.T) {
	ts, acct, base := newExpandServer(t)
	var series unical.Event
	ts.must(t, "POST", base, timed("first days", "0001-01-02T09:00:00Z", "0001-01-02T10:00:00Z", "RRULE:FREQ=DAILY;COUNT=3")).Into(t, &series)
	first := "startDateTime=0001-01-01T00:00:00Z&endDateTime=0001-02-01T00:00:00Z"
	for _, path := range []string{base + "?expandRecurrences=true&" + first, base + "/" + esc(series.ID) + "/occurrences?" + first} {
		var page unical.SyncPage[unical.Event]
		ts.must(t, "GET", path, nil).Into(t, &page)
		var got []string
		for _, e := range page.Data {
			got = append(got, e.Start.DateTime)
		}
		if diff := cmp.Diff([]string{"0001-01-02T09:00:00Z", "0001-01-03T09:00:00Z", "0001-01-04T09:00:00Z"}, got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
		}
	}
	for _, tt := range []struct {
		what  string
		send  func() *response
		field string
	}{
		{"a listing from the year 0", func() *response {
			return ts.do(t, "GET", base+"?startDateTime=0000-12-31T00:00:00Z", nil)
		}, "startDateTime"},
		{"a listing to the year 10000 in UTC", func() *response {
			return ts.do(t, "GET", base+"?endDateTime=9999-12-31T23:00:00-05:00", nil)
		}, "endDateTime"},
		{"free/busy from the year 0", func() *response {
			return ts.do(t, "POST", "/v1/freeBusy/"+acct, map[string]any{
				"startDateTime": "0000-12-31T00:00:00Z", "endDateTime": "0001-01-02T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{"primary/" + davUser},
			})
		}, "startDateTime"},
		{"an event starting in the year 0", func() *response {
			return ts.do(t, "POST", base, timed("early", "0000-12-31T09:00:00Z", "0001-01-01T10:00:00Z"))
		}, "start"},
	} {
		if r := tt.send(); r.Status != http.StatusBadRequest || r.Error(t).Field != tt.field {
			t.Errorf("%s = %d %s, want 400 naming %s", tt.what, r.Status, r.Body, tt.field)
		}
	}
}
