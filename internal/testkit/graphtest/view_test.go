package graphtest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/graphtest"
)

func viewPath(base, start, end string, extra ...string) string {
	q := url.Values{"startDateTime": {start}, "endDateTime": {end}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return base + "?" + q.Encode()
}

type item struct {
	Type, Start, Subject string
	SeriesMaster         bool
	OriginalStart        any
}

func items(list []map[string]any, masterID string) []item {
	var out []item
	for _, m := range list {
		out = append(out, item{
			Type:          m["type"].(string),
			Start:         field(m, "start.dateTime").(string),
			Subject:       m["subject"].(string),
			SeriesMaster:  m["seriesMasterId"] == masterID && masterID != "",
			OriginalStart: m["originalStart"],
		})
	}
	return out
}

func TestCalendarView_Series(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	master := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "Standup",
		"start":   map[string]any{"dateTime": "2025-03-03T09:00:00", "timeZone": "W. Europe Standard Time"},
		"end":     map[string]any{"dateTime": "2025-03-03T09:15:00", "timeZone": "W. Europe Standard Time"},
		"recurrence": map[string]any{
			"pattern": map[string]any{"type": "weekly", "interval": 1, "daysOfWeek": []string{"monday", "wednesday"}},
			"range":   map[string]any{"type": "numbered", "startDate": "2025-03-03", "numberOfOccurrences": 6},
		},
	})
	mustStatus(t, master, http.StatusCreated)
	mid := master.str("id")
	if master.str("type") != "seriesMaster" || field(master.body, "recurrence.range.recurrenceTimeZone") != "W. Europe Standard Time" {
		t.Fatalf("created = %v, want a seriesMaster with recurrenceTimeZone defaulted", master.body)
	}
	if _, err := f.srv.AddEvent(f.user, "", `{"subject":"Lunch","start":{"dateTime":"2025-03-12T12:00:00","timeZone":"UTC"},"end":{"dateTime":"2025-03-12T13:00:00","timeZone":"UTC"}}`); err != nil {
		t.Fatal(err)
	}
	other, err := f.srv.AddCalendar(f.user, graphtest.Calendar{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.AddEvent(f.user, other, `{"subject":"Elsewhere","start":{"dateTime":"2025-03-12T12:00:00","timeZone":"UTC"},"end":{"dateTime":"2025-03-12T13:00:00","timeZone":"UTC"}}`); err != nil {
		t.Fatal(err)
	}

	// Occurrences of one week: move the 10th, delete the 12th.
	inst, _ := f.collect(t, viewPath("/v1.0/me/events/"+mid+"/instances", "2025-03-10T00:00:00Z", "2025-03-13T00:00:00Z"))
	if len(inst) != 2 {
		t.Fatalf("instances = %d, want 2", len(inst))
	}
	moved := f.do(t, http.MethodPatch, "/v1.0/me/events/"+inst[0]["id"].(string), map[string]any{
		"subject": "Standup (moved)",
		"start":   map[string]any{"dateTime": "2025-03-10T11:00:00", "timeZone": "W. Europe Standard Time"},
		"end":     map[string]any{"dateTime": "2025-03-10T11:15:00", "timeZone": "W. Europe Standard Time"},
	})
	mustStatus(t, moved, http.StatusOK)
	if moved.str("type") != "exception" || moved.str("id") != inst[0]["id"] {
		t.Errorf("patched occurrence = %s %s, want an exception with the occurrence's id", moved.str("type"), moved.str("id"))
	}
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/events/"+inst[1]["id"].(string), nil), http.StatusNoContent)

	list, pages := f.collect(t, viewPath("/v1.0/me/calendarView", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z", "$top", "2"))
	want := []item{
		{"occurrence", "2025-03-03T08:00:00.0000000", "Standup", true, "2025-03-03T08:00:00Z"},
		{"occurrence", "2025-03-05T08:00:00.0000000", "Standup", true, "2025-03-05T08:00:00Z"},
		{"exception", "2025-03-10T10:00:00.0000000", "Standup (moved)", true, "2025-03-10T08:00:00Z"},
		{"singleInstance", "2025-03-12T12:00:00.0000000", "Lunch", false, nil},
		{"occurrence", "2025-03-17T08:00:00.0000000", "Standup", true, "2025-03-17T08:00:00Z"},
		{"occurrence", "2025-03-19T08:00:00.0000000", "Standup", true, "2025-03-19T08:00:00Z"},
	}
	if diff := cmp.Diff(want, items(list, mid)); diff != "" {
		t.Errorf("calendarView mismatch (-want +got):\n%s", diff)
	}
	if pages != 3 {
		t.Errorf("pages = %d, want 3 with $top=2", pages)
	}
	if uids := map[any]bool{list[0]["iCalUId"]: true, list[1]["iCalUId"]: true}; len(uids) != 2 {
		t.Errorf("occurrences share an iCalUId; Graph gives each its own")
	}
	events, _ := f.collect(t, "/v1.0/me/calendar/events")
	if got := items(events, mid); len(got) != 2 || got[0].Type != "seriesMaster" || got[1].Type != "singleInstance" {
		t.Errorf("GET /me/calendar/events = %v, want the series master and the single event only", got)
	}
}

func TestCalendarView_Patterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		start      string
		zone       string
		pattern    map[string]any
		rng        map[string]any
		wantStarts []string // in UTC
	}{
		{"DailyAcrossDST", "2025-03-29T09:00:00", "W. Europe Standard Time",
			map[string]any{"type": "daily", "interval": 1},
			map[string]any{"type": "numbered", "startDate": "2025-03-29", "numberOfOccurrences": 3},
			[]string{"2025-03-29T08:00:00.0000000", "2025-03-30T07:00:00.0000000", "2025-03-31T07:00:00.0000000"}},
		{"RelativeMonthlyEndDate", "2025-03-11T10:00:00", "UTC",
			map[string]any{"type": "relativeMonthly", "interval": 1, "daysOfWeek": []string{"tuesday"}, "index": "second"},
			map[string]any{"type": "endDate", "startDate": "2025-03-11", "endDate": "2025-06-10"},
			[]string{"2025-03-11T10:00:00.0000000", "2025-04-08T10:00:00.0000000", "2025-05-13T10:00:00.0000000", "2025-06-10T10:00:00.0000000"}},
		{"RelativeMonthlyLast", "2025-03-28T10:00:00", "UTC",
			map[string]any{"type": "relativeMonthly", "interval": 1, "daysOfWeek": []string{"friday"}, "index": "last"},
			map[string]any{"type": "numbered", "startDate": "2025-03-01", "numberOfOccurrences": 2},
			[]string{"2025-03-28T10:00:00.0000000", "2025-04-25T10:00:00.0000000"}},
		{"AbsoluteMonthly", "2025-03-15T10:00:00", "Eastern Standard Time",
			map[string]any{"type": "absoluteMonthly", "interval": 2, "dayOfMonth": 15},
			map[string]any{"type": "numbered", "startDate": "2025-03-15", "numberOfOccurrences": 2},
			[]string{"2025-03-15T14:00:00.0000000", "2025-05-15T14:00:00.0000000"}},
		{"AbsoluteYearly", "2025-03-15T12:00:00", "UTC",
			map[string]any{"type": "absoluteYearly", "interval": 1, "month": 3, "dayOfMonth": 15},
			map[string]any{"type": "numbered", "startDate": "2025-03-15", "numberOfOccurrences": 3},
			[]string{"2025-03-15T12:00:00.0000000", "2026-03-15T12:00:00.0000000", "2027-03-15T12:00:00.0000000"}},
		{"RelativeYearly", "2025-11-27T12:00:00", "UTC",
			map[string]any{"type": "relativeYearly", "interval": 1, "month": 11, "daysOfWeek": []string{"thursday"}, "index": "fourth"},
			map[string]any{"type": "numbered", "startDate": "2025-11-01", "numberOfOccurrences": 2},
			[]string{"2025-11-27T12:00:00.0000000", "2026-11-26T12:00:00.0000000"}},
		{"WeeklyEveryOtherWeek", "2025-03-07T12:00:00", "UTC",
			map[string]any{"type": "weekly", "interval": 2, "daysOfWeek": []string{"friday"}, "firstDayOfWeek": "monday"},
			map[string]any{"type": "numbered", "startDate": "2025-03-07", "numberOfOccurrences": 3},
			[]string{"2025-03-07T12:00:00.0000000", "2025-03-21T12:00:00.0000000", "2025-04-04T12:00:00.0000000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, graphtest.Options{})
			r := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
				"subject":    tc.name,
				"start":      map[string]any{"dateTime": tc.start, "timeZone": tc.zone},
				"end":        map[string]any{"dateTime": tc.start, "timeZone": tc.zone},
				"recurrence": map[string]any{"pattern": tc.pattern, "range": tc.rng},
			})
			mustStatus(t, r, http.StatusCreated)
			list, _ := f.collect(t, viewPath("/v1.0/me/calendarView", "2025-01-01T00:00:00Z", "2028-01-01T00:00:00Z", "$top", "100"))
			var got []string
			for _, m := range list {
				got = append(got, field(m, "start.dateTime").(string))
			}
			if diff := cmp.Diff(tc.wantStarts, got); diff != "" {
				t.Errorf("occurrence starts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalendarView_Window(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	if _, err := f.srv.AddEvent(f.user, "", `{"subject":"Call","start":{"dateTime":"2025-03-10T09:30:00","timeZone":"UTC"},"end":{"dateTime":"2025-03-10T10:00:00","timeZone":"UTC"}}`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		path       string
		headers    []string
		wantStatus int
		wantCode   string
		wantN      int
	}{
		{"ErrNoWindow", "/v1.0/me/calendarView", nil, http.StatusBadRequest, "ErrorInvalidParameter", 0},
		{"ErrNoEnd", "/v1.0/me/calendarView?startDateTime=2025-03-10T00:00:00Z", nil, http.StatusBadRequest, "ErrorInvalidParameter", 0},
		{"ErrBadTop", viewPath("/v1.0/me/calendarView", "2025-03-10T00:00:00Z", "2025-03-11T00:00:00Z", "$top", "1001"), nil, http.StatusBadRequest, "ErrorInvalidParameter", 0},
		{"OffsetHonoured", viewPath("/v1.0/me/calendarView", "2025-03-10T10:15:00+01:00", "2025-03-10T10:45:00+01:00"), nil, http.StatusOK, "", 1},
		{"NoOffsetIsUTC", viewPath("/v1.0/me/calendarView", "2025-03-10T10:00:00", "2025-03-10T10:30:00"), nil, http.StatusOK, "", 0},
		{"PreferDoesNotMoveWindow", viewPath("/v1.0/me/calendarView", "2025-03-10T09:00:00", "2025-03-10T09:45:00"), []string{"Prefer", `outlook.timezone="Tokyo Standard Time"`}, http.StatusOK, "", 1},
		{"EndIsExclusive", viewPath("/v1.0/me/calendarView", "2025-03-10T10:00:00Z", "2025-03-10T11:00:00Z"), nil, http.StatusOK, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, http.MethodGet, tc.path, nil, tc.headers...)
			if r.status != tc.wantStatus || r.errorCode() != tc.wantCode || len(r.values()) != tc.wantN {
				t.Errorf("GET %s = %d %q with %d items, want %d %q with %d; body %s", tc.path, r.status, r.errorCode(), len(r.values()), tc.wantStatus, tc.wantCode, tc.wantN, r.raw)
			}
		})
	}
}
