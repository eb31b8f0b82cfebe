package httpapi_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
)

// scopeBackend is one provider behind the whole server, with a connected
// account and a fresh calendar: the three providers, and VIRTUAL, which
// keeps overrides of single occurrences too. provider/memory is not among
// them: it has none.
type scopeBackend struct {
	name  string
	start func(t *testing.T) (st *apitest.Stack, accountID, calendarID string)
}

func scopeBackends() []scopeBackend {
	backends := []scopeBackend{
		{"virtual", func(t *testing.T) (*apitest.Stack, string, string) {
			st := apitest.Start(t, nil, nil)
			st.CreateApp(t, &admin.ApplicationParams{})
			var acct unical.Account
			st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "room@example.com", "providerType": "VIRTUAL"}).Into(t, &acct)
			return st, acct.ID, scopeCalendar(t, st, acct.ID)
		}},
		{"google", func(t *testing.T) (*apitest.Stack, string, string) {
			st := mustNewGoogleStack(t)
			acct := st.connect(t)
			return st.Stack, acct, scopeCalendar(t, st.Stack, acct)
		}},
		{"microsoft", func(t *testing.T) (*apitest.Stack, string, string) {
			st := MustStartGraphStack(t)
			acct := st.MustConnect(t)
			return st.Stack, acct, scopeCalendar(t, st.Stack, acct)
		}},
	}
	for _, kind := range append(davtest.Kinds(), davtest.DAViCal) {
		backends = append(backends, scopeBackend{kind, func(t *testing.T) (*apitest.Stack, string, string) {
			s := davtest.StartUser(t, kind, "ada@example.com")
			st := mustNewDAVStack(t, s)
			var acct unical.Account
			st.Must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
				map[string]string{"email": s.Username, "password": s.Password}).Into(t, &acct)
			return st.Stack, acct.ID, scopeCalendar(t, st.Stack, acct.ID)
		}})
	}
	return backends
}

func scopeCalendar(t *testing.T, st *apitest.Stack, accountID string) string {
	t.Helper()
	var cal unical.Calendar
	st.Must(t, "POST", "/v1/calendars/"+accountID, map[string]any{"name": "Scopes"}).Into(t, &cal)
	return cal.ID
}

// shown is an instance as a calendar app shows it.
type shown struct {
	Title      string
	Start, End time.Time
	Series     string // "old" or "new"
}

// TestEditScopes splits a weekly series with overrides and a cancelled
// occurrence on every provider, with PUT and then DELETE
// scope=thisAndFollowing, and compares the expanded calendar with what a
// calendar app shows.
func TestEditScopes(t *testing.T) {
	t.Parallel()
	for _, b := range scopeBackends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st, acct, cal := b.start(t)
			testEditScopes(t, st, acct, cal)
		})
	}
}

func testEditScopes(t *testing.T, st *apitest.Stack, acct, cal string) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	at := func(month time.Month, day, hour int) time.Time {
		return time.Date(2026, month, day, hour, 0, 0, 0, paris)
	}
	events := "/v1/events/" + acct + "/" + esc(cal)
	occurrence := func(seriesID string, orig time.Time) string {
		t.Helper()
		var page eventList
		q := url.Values{"startDateTime": {orig.Add(-time.Hour).Format(time.RFC3339)}, "endDateTime": {orig.Add(3 * time.Hour).Format(time.RFC3339)}}
		st.Must(t, "GET", events+"/"+esc(seriesID)+"/occurrences?"+q.Encode(), nil).Into(t, &page)
		for _, e := range page.Data {
			if o, err := e.OriginalStart.Time("originalStart"); err == nil && o.Equal(orig) {
				return e.ID
			}
		}
		t.Fatalf("series %s has no occurrence at %s: %+v", seriesID, orig, page.Data)
		return ""
	}
	// Weekly on Mondays from 2 March, ten times, across the change to
	// summer time on 29 March.
	var series unical.Event
	st.Must(t, "POST", events, map[string]any{
		"title": "Standup", "recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10"},
		"start": map[string]any{"dateTime": "2026-03-02T09:00:00", "timeZone": "Europe/Paris"},
		"end":   map[string]any{"dateTime": "2026-03-02T10:00:00", "timeZone": "Europe/Paris"},
	}).Into(t, &series)
	// An override before the split, one after it (moved), and a cancelled
	// occurrence after it.
	st.Must(t, "PUT", events+"/"+esc(occurrence(series.ID, at(3, 16, 9))), map[string]any{"title": "Standup with guests"})
	st.Must(t, "PUT", events+"/"+esc(occurrence(series.ID, at(4, 13, 9))), map[string]any{
		"title": "Standup moved",
		"start": map[string]any{"dateTime": "2026-04-13T11:00:00", "timeZone": "Europe/Paris"},
		"end":   map[string]any{"dateTime": "2026-04-13T12:00:00", "timeZone": "Europe/Paris"},
	})
	st.Must(t, "DELETE", events+"/"+esc(occurrence(series.ID, at(4, 20, 9))), nil)

	// Bad scopes write nothing.
	split := events + "/" + esc(occurrence(series.ID, at(3, 30, 9)))
	for _, c := range []struct{ method, path string }{
		{"PUT", split + "?scope=everything"},
		{"PUT", split},
		{"DELETE", split + "?scope=everything"},
		{"PUT", events + "/" + esc(series.ID) + "?scope=thisAndFollowing"},
		{"DELETE", events + "/" + esc(series.ID) + "?scope=thisAndFollowing"},
	} {
		var body any
		if c.method == "PUT" {
			body = map[string]any{"title": "nope"}
		}
		if c.method == "PUT" && c.path == split {
			// The scope is a query parameter only.
			body = map[string]any{"title": "nope", "scope": "thisAndFollowing"}
		}
		r := st.Do(t, c.method, c.path, body)
		if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "scope" {
			t.Errorf("%s %s = %d %+v, want 400 naming scope", c.method, c.path, r.Status, e)
		}
	}

	// A move the new series' shift cannot carry (a time.Duration spans
	// about 292 years) is refused rather than landing elsewhere.
	far := st.Do(t, "PUT", split+"?scope=thisAndFollowing", map[string]any{
		"start": map[string]any{"dateTime": "2426-03-30T09:00:00", "timeZone": "Europe/Paris"},
		"end":   map[string]any{"dateTime": "2426-03-30T10:00:00", "timeZone": "Europe/Paris"},
	})
	if e := far.Error(t); far.Status != http.StatusBadRequest || e.Field != "start" {
		t.Errorf("moving the following occurrences by 400 years = %d %+v, want 400 naming start", far.Status, e)
	}

	expanded := func(newID string) []shown {
		t.Helper()
		var out []shown
		q := url.Values{"startDateTime": {"2026-03-01T00:00:00Z"}, "endDateTime": {"2026-06-01T00:00:00Z"}, "expandRecurrences": {"true"}, "limit": {"100"}}
		var page eventList
		st.Must(t, "GET", events+"?"+q.Encode(), nil).Into(t, &page)
		for _, e := range page.Data {
			s, err1 := e.Start.Time("start")
			end, err2 := e.End.Time("end")
			if err1 != nil || err2 != nil {
				t.Fatalf("instance %+v: %v %v", e, err1, err2)
			}
			which := "old"
			if e.RecurringEventID == newID {
				which = "new"
			} else if e.RecurringEventID != series.ID {
				t.Errorf("instance %s of series %q, want %q or %q", e.ID, e.RecurringEventID, series.ID, newID)
			}
			out = append(out, shown{e.Title, s.UTC(), end.UTC(), which})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
		return out
	}
	occurrences := func(seriesID, which string) []shown {
		t.Helper()
		q := url.Values{"startDateTime": {"2026-03-01T00:00:00Z"}, "endDateTime": {"2026-06-01T00:00:00Z"}, "orderBy": {"startTime"}}
		var page eventList
		st.Must(t, "GET", events+"/"+esc(seriesID)+"/occurrences?"+q.Encode(), nil).Into(t, &page)
		var out []shown
		for _, e := range page.Data {
			s, err1 := e.Start.Time("start")
			end, err2 := e.End.Time("end")
			if err1 != nil || err2 != nil {
				t.Fatalf("occurrence %+v: %v %v", e, err1, err2)
			}
			out = append(out, shown{e.Title, s.UTC(), end.UTC(), which})
		}
		return out
	}
	hour := func(month time.Month, day, h int, title, which string) shown {
		return shown{title, at(month, day, h).UTC(), at(month, day, h+1).UTC(), which}
	}

	// This and following from 30 March: an hour later, renamed.
	var created unical.Event
	st.Must(t, "PUT", split+"?scope=thisAndFollowing", map[string]any{
		"title": "Standup v2",
		"start": map[string]any{"dateTime": "2026-03-30T10:00:00", "timeZone": "Europe/Paris"},
		"end":   map[string]any{"dateTime": "2026-03-30T11:00:00", "timeZone": "Europe/Paris"},
	}).Into(t, &created)
	if created.ID == series.ID || !created.IsRecurring || created.Title != "Standup v2" {
		t.Fatalf("PUT thisAndFollowing answered %+v, want the new series", created)
	}
	want := []shown{
		hour(3, 2, 9, "Standup", "old"),
		hour(3, 9, 9, "Standup", "old"),
		hour(3, 16, 9, "Standup with guests", "old"),
		hour(3, 23, 9, "Standup", "old"),
		hour(3, 30, 10, "Standup v2", "new"),
		hour(4, 6, 10, "Standup v2", "new"),
		hour(4, 13, 11, "Standup moved", "new"), // a moved override keeps its times
		// 20 April stays cancelled.
		hour(4, 27, 10, "Standup v2", "new"),
		hour(5, 4, 10, "Standup v2", "new"),
	}
	if diff := cmp.Diff(want, expanded(created.ID)); diff != "" {
		t.Errorf("after PUT thisAndFollowing (-want +got):\n%s", diff)
	}
	// Each half's occurrences listing shows its part.
	for id, which := range map[string]string{series.ID: "old", created.ID: "new"} {
		var part []shown
		for _, w := range want {
			if w.Series == which {
				part = append(part, w)
			}
		}
		if diff := cmp.Diff(part, occurrences(id, which)); diff != "" {
			t.Errorf("occurrences of the %s series (-want +got):\n%s", which, diff)
		}
	}
	var old unical.Event
	st.Must(t, "GET", events+"/"+esc(series.ID), nil).Into(t, &old)
	if diff := cmp.Diff(normalizeRules([]string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"}), normalizeRules(old.Recurrence)); diff != "" {
		t.Errorf("old series recurrence (-want +got):\n%s", diff)
	}

	// Delete from 27 April on: the new series keeps its override and its
	// cancelled occurrence before that.
	st.Must(t, "DELETE", events+"/"+esc(occurrence(created.ID, at(4, 27, 10)))+"?scope=thisAndFollowing", nil)
	want = want[:len(want)-2]
	if diff := cmp.Diff(want, expanded(created.ID)); diff != "" {
		t.Errorf("after DELETE thisAndFollowing (-want +got):\n%s", diff)
	}

	// From the first occurrence on is the whole series: an update renames
	// every occurrence but the override, which keeps its own title.
	var renamed unical.Event
	st.Must(t, "PUT", events+"/"+esc(occurrence(created.ID, at(3, 30, 10)))+"?scope=thisAndFollowing", map[string]any{"title": "Standup v3"}).Into(t, &renamed)
	if renamed.ID != created.ID || renamed.Title != "Standup v3" {
		t.Errorf("PUT thisAndFollowing at the first occurrence answered %+v, want the series %s renamed", renamed, created.ID)
	}
	for i := range want {
		if want[i].Series == "new" && want[i].Title == "Standup v2" {
			want[i].Title = "Standup v3"
		}
	}
	if diff := cmp.Diff(want, expanded(created.ID)); diff != "" {
		t.Errorf("after PUT thisAndFollowing at the first occurrence (-want +got):\n%s", diff)
	}

	// So is a delete from the first occurrence on.
	r := st.Must(t, "DELETE", events+"/"+esc(occurrence(series.ID, at(3, 2, 9)))+"?scope=thisAndFollowing", nil)
	if got := r.Object(t); got["success"] != true {
		t.Errorf("DELETE thisAndFollowing answered %s", r.Body)
	}
	if diff := cmp.Diff(want[4:], expanded(created.ID)); diff != "" {
		t.Errorf("after DELETE thisAndFollowing at the first occurrence (-want +got):\n%s", diff)
	}
	if r := st.Do(t, "GET", events+"/"+esc(series.ID), nil); r.Status != http.StatusNotFound {
		t.Errorf("GET the deleted series = %d, want 404", r.Status)
	}
}

// normalizeRules sorts the parts of each RRULE, as providers write them in
// their own order.
func normalizeRules(lines []string) []string {
	var out []string
	for _, l := range lines {
		name, value, _ := strings.Cut(l, ":")
		parts := strings.Split(value, ";")
		sort.Strings(parts)
		out = append(out, name+":"+strings.Join(parts, ";"))
	}
	return out
}

// TestEditScopesAllDayOpenEnded splits an all-day weekly series without an
// end, a day later from the split on: the old half gets an UNTIL at its
// last occurrence (a date, which Graph's endDate keeps), the new half
// stays open, and a cancelled occurrence moves with it.
func TestEditScopesAllDayOpenEnded(t *testing.T) {
	t.Parallel()
	for _, b := range scopeBackends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st, acct, cal := b.start(t)
			events := "/v1/events/" + acct + "/" + esc(cal)
			var series unical.Event
			st.Must(t, "POST", events, map[string]any{
				"title": "Bins", "isAllDay": true, "recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=MO"},
				"start": map[string]any{"dateTime": "2026-03-02T00:00:00"},
				"end":   map[string]any{"dateTime": "2026-03-03T00:00:00"},
			}).Into(t, &series)
			days := func(seriesID string) map[string]string {
				t.Helper()
				out := map[string]string{}
				q := url.Values{"startDateTime": {"2026-02-25T00:00:00Z"}, "endDateTime": {"2026-04-10T00:00:00Z"}}
				var page eventList
				st.Must(t, "GET", events+"/"+esc(seriesID)+"/occurrences?"+q.Encode(), nil).Into(t, &page)
				for _, e := range page.Data {
					out[e.Start.DateTime[:10]] = e.ID
				}
				return out
			}
			st.Must(t, "DELETE", events+"/"+esc(days(series.ID)["2026-03-23"]), nil)
			var created unical.Event
			st.Must(t, "PUT", events+"/"+esc(days(series.ID)["2026-03-16"])+"?scope=thisAndFollowing", map[string]any{
				"title": "Bins (Tuesday)",
				"start": map[string]any{"dateTime": "2026-03-17T00:00:00"},
				"end":   map[string]any{"dateTime": "2026-03-18T00:00:00"},
				// Another weekday needs the rule to say so.
				"recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=TU"},
			}).Into(t, &created)
			q := url.Values{"startDateTime": {"2026-03-01T00:00:00Z"}, "endDateTime": {"2026-04-08T00:00:00Z"}, "expandRecurrences": {"true"}}
			var page eventList
			st.Must(t, "GET", events+"?"+q.Encode(), nil).Into(t, &page)
			var got []string
			for _, e := range page.Data {
				got = append(got, e.Start.DateTime[:10]+" "+e.Title)
			}
			sort.Strings(got)
			want := []string{
				"2026-03-02 Bins", "2026-03-09 Bins",
				// The cancelled 23 March moved with the series to 24 March.
				"2026-03-17 Bins (Tuesday)", "2026-03-31 Bins (Tuesday)", "2026-04-07 Bins (Tuesday)",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after the split (-want +got):\n%s", diff)
			}
			var old unical.Event
			st.Must(t, "GET", events+"/"+esc(series.ID), nil).Into(t, &old)
			if diff := cmp.Diff(normalizeRules([]string{"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260309"}), normalizeRules(old.Recurrence)); diff != "" {
				t.Errorf("old series recurrence (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEditScopesLongSeriesGraph splits a daily series that began more
// than a year before the split on Graph, which drops a series' exceptions
// when its recurrence changes: the override the day before the split is
// made again on the old series.
func TestEditScopesLongSeriesGraph(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	events := "/v1/events/" + acct + "/" + esc(scopeCalendar(t, st.Stack, acct))
	var series unical.Event
	st.must(t, "POST", events, map[string]any{
		"title": "Daily", "recurrence": []string{"RRULE:FREQ=DAILY"},
		"start": map[string]any{"dateTime": "2025-01-06T09:00:00", "timeZone": "Europe/Paris"},
		"end":   map[string]any{"dateTime": "2025-01-06T10:00:00", "timeZone": "Europe/Paris"},
	}).Into(t, &series)
	ids := func(seriesID string) map[string]string {
		t.Helper()
		out := map[string]string{}
		var page eventList
		st.must(t, "GET", events+"/"+esc(seriesID)+"/occurrences?startDateTime=2026-03-25T00:00:00Z&endDateTime=2026-04-02T00:00:00Z", nil).Into(t, &page)
		for _, e := range page.Data {
			out[e.OriginalStart.DateTime[:10]] = e.ID
		}
		return out
	}
	st.must(t, "PUT", events+"/"+esc(ids(series.ID)["2026-03-29"]), map[string]any{"title": "Daily, with guests"})
	st.must(t, "DELETE", events+"/"+esc(ids(series.ID)["2026-03-30"])+"?scope=thisAndFollowing", nil)
	var page eventList
	st.must(t, "GET", events+"?startDateTime=2026-03-27T00:00:00Z&endDateTime=2026-04-02T00:00:00Z&expandRecurrences=true", nil).Into(t, &page)
	var got []string
	for _, e := range page.Data {
		got = append(got, e.Start.DateTime[:10]+" "+e.Title)
	}
	sort.Strings(got)
	want := []string{"2026-03-27 Daily", "2026-03-28 Daily", "2026-03-29 Daily, with guests"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after DELETE thisAndFollowing (-want +got):\n%s", diff)
	}
}
