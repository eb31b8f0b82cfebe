package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/unical/unical"
)

// TestPageTokenWithSameQuery pages every list route that has filters or a
// sync token the way most clients do, by sending the original query again
// with each pageToken, and checks that other filters with the token are a
// 400 naming pageToken (apitest.CheckRepeatedQueryPaging).
func TestPageTokenWithSameQuery(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	g := ts.mustConnect(t)[unical.ProviderGoogle]
	calendars := "/v1/calendars/" + g
	var cals []unical.Calendar
	for _, name := range []string{"One", "Two", "Three"} {
		var c unical.Calendar
		ts.must(t, "POST", calendars, map[string]any{"name": name}).Into(t, &c)
		cals = append(cals, c)
	}
	syncToken := func(path string) string {
		var page unical.SyncPage[map[string]any]
		ts.must(t, "GET", path, nil).Into(t, &page)
		if page.NextPageToken != "" || page.NextSyncToken == "" {
			t.Fatalf("GET %s: want one page with a nextSyncToken, got %+v", path, page)
		}
		return page.NextSyncToken
	}
	calSync, otherCalSync := syncToken(calendars), syncToken(calendars)
	for _, c := range cals {
		ts.must(t, "PUT", calendars+"/"+esc(c.ID), map[string]any{"name": c.Name + " renamed"})
	}

	events := "/v1/events/" + g + "/" + esc("primary/"+googleUser)
	at := func(day string) map[string]any { return map[string]any{"dateTime": "2026-02-" + day + "T09:00:00Z"} }
	team := func(v string) map[string]string { return map[string]string{"team": v} }
	var series unical.Event
	ts.must(t, "POST", events, map[string]any{"title": "Sprint daily", "start": at("02"), "end": at("02"),
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=5"}, "publicExtendedProperties": team("a")}).Into(t, &series)
	var singles []unical.Event
	for _, body := range []map[string]any{
		{"title": "Sprint planning", "start": at("03"), "end": at("03"), "publicExtendedProperties": team("a")},
		{"title": "Sprint review", "start": at("04"), "end": at("04"), "publicExtendedProperties": team("b")},
		{"title": "Sprint retro", "start": at("05"), "end": at("05")},
		{"title": "Lunch", "start": at("06"), "end": at("06"), "publicExtendedProperties": team("a")},
	} {
		var e unical.Event
		ts.must(t, "POST", events, body).Into(t, &e)
		singles = append(singles, e)
	}
	window := url.Values{"startDateTime": {"2026-02-01T00:00:00Z"}, "endDateTime": {"2026-03-01T00:00:00Z"}}
	with := func(q url.Values, kv ...string) url.Values {
		out := url.Values{}
		for k, v := range q {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	sprint := with(window, "search", "sprint")
	eventSync := syncToken(events + "?" + sprint.Encode())
	otherEventSync := syncToken(events + "?" + sprint.Encode())
	for _, e := range singles[:3] {
		ts.must(t, "PUT", events+"/"+esc(e.ID), map[string]any{"title": e.Title + " moved"})
	}

	subs := "/v1/calendarSubscriptions/" + g
	for range 3 {
		ts.must(t, "POST", subs, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "https://hooks.example.com/cal"})
	}

	metadata := `{"public":{"team":"a"}}`
	tests := []struct {
		name      string
		path      string
		q, change url.Values
		limit     int
	}{
		{"AccountsSearch", "/v1/endUserAccounts", url.Values{"search": {"example.com"}}, url.Values{"search": {"ada"}}, 1},
		{"AccountsStatusFilter", "/v1/endUserAccounts", url.Values{"statusFilter": {"active"}}, url.Values{"statusFilter": {"expired"}}, 1},
		{"AccountsSearchDropped", "/v1/endUserAccounts", url.Values{"search": {"example.com"}, "statusFilter": {"active"}}, url.Values{"search": nil}, 1},
		{"Calendars", calendars, url.Values{}, url.Values{"syncToken": {calSync}}, 1},
		{"CalendarsSync", calendars, url.Values{"syncToken": {calSync}}, url.Values{"syncToken": {otherCalSync}}, 1},
		{"Events", events, sprint, url.Values{"search": {"retro"}}, 1},
		// No orderBy: the in-memory provider expands without ordering, so
		// the Client orders each provider page on its own.
		{"EventsExpanded", events, with(window, "expandRecurrences", "true", "metadataFilters", metadata),
			url.Values{"metadataFilters": {`{"public":{"team":"b"}}`}}, 2},
		{"EventsExpandedOtherWindow", events, with(window, "expandRecurrences", "true", "search", "sprint"),
			url.Values{"endDateTime": {"2026-02-20T00:00:00Z"}}, 2},
		{"EventsSync", events, with(sprint, "syncToken", eventSync), url.Values{"syncToken": {otherEventSync}}, 1},
		{"EventsSyncFiltersLeftOut", events, url.Values{"syncToken": {eventSync}}, url.Values{"search": {"sprint"}}, 1},
		{"Occurrences", events + "/" + esc(series.ID) + "/occurrences", window, url.Values{"startDateTime": {"2026-02-03T00:00:00Z"}}, 2},
		{"Subscriptions", subs, url.Values{}, nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts.CheckRepeatedQueryPaging(t, tc.path, tc.q, tc.change, tc.limit)
		})
	}
}

// TestSyncTokenWithSameQuery checks that a sync token is accepted with the
// filters of the listing that issued it, and refused naming syncToken with
// other ones.
func TestSyncTokenWithSameQuery(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	g := ts.mustConnect(t)[unical.ProviderGoogle]
	events := "/v1/events/" + g + "/" + esc("primary/"+googleUser)
	q := url.Values{"startDateTime": {"2026-02-01T00:00:00+01:00"}, "endDateTime": {"2026-03-01T00:00:00Z"}, "search": {"sprint"}}
	var page unical.SyncPage[unical.Event]
	ts.must(t, "GET", events+"?"+q.Encode(), nil).Into(t, &page)
	var created unical.Event
	ts.must(t, "POST", events, map[string]any{"title": "Sprint planning", "start": map[string]any{"dateTime": "2026-02-03T09:00:00Z"}}).Into(t, &created)
	ts.must(t, "POST", events, map[string]any{"title": "Lunch", "start": map[string]any{"dateTime": "2026-02-03T12:00:00Z"}})

	same := url.Values{"syncToken": {page.NextSyncToken}, "search": {"sprint"},
		// The same instants in other offsets are the same query.
		"startDateTime": {"2026-01-31T23:00:00Z"}, "endDateTime": {"2026-03-01T01:00:00+01:00"}}
	var changes unical.SyncPage[unical.Event]
	ts.must(t, "GET", events+"?"+same.Encode(), nil).Into(t, &changes)
	if len(changes.Data) != 1 || changes.Data[0].ID != created.ID {
		t.Errorf("sync with the same filters = %+v, want only %s", changes.Data, created.ID)
	}
	for name, q := range map[string]url.Values{
		"OtherSearch":      {"syncToken": {page.NextSyncToken}, "search": {"lunch"}},
		"PartOfTheFilters": {"syncToken": {page.NextSyncToken}, "search": {"sprint"}},
		"AddedFilter":      {"syncToken": {page.NextSyncToken}, "search": {"sprint"}, "startDateTime": {"2026-02-01T00:00:00+01:00"}, "endDateTime": {"2026-03-01T00:00:00Z"}, "expandRecurrences": {"true"}},
	} {
		r := ts.do(t, "GET", events+"?"+q.Encode(), nil)
		if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "syncToken" {
			t.Errorf("%s: GET %s = %d (field %q), want 400 naming syncToken", name, q.Encode(), r.Status, e.Field)
		}
	}
}

// TestUndecodableQuery checks that a query string that cannot be decoded
// is a 400 naming the parameter instead of being read as no parameters.
func TestUndecodableQuery(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	g := ts.mustConnect(t)[unical.ProviderGoogle]
	events := "/v1/events/" + g + "/" + esc("primary/"+googleUser)
	tests := []struct {
		name, path, field string
	}{
		{"BadEscape", "/v1/endUserAccounts?search=%zz", "search"},
		{"TruncatedEscape", "/v1/endUserAccounts?limit=1&search=ada%4", "search"},
		{"NotUTF8", "/v1/endUserAccounts?search=%ff%fe", "search"},
		{"BadEscapeAfterGoodPairs", events + "?startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-02-01T00:00:00Z&search=a%zzb", "search"},
		{"BadPageToken", "/v1/calendars/" + g + "?pageToken=%", "pageToken"},
		{"BadMetadataFilters", events + "?metadataFilters=%7B%22public%22%3A%7B%22a%22%3A%22%c3%28%22%7D%7D", "metadataFilters"},
		{"BadOccurrencesLimit", events + "/x/occurrences?limit=%g1", "limit"},
		{"BadSubscriptionsLimit", "/v1/calendarSubscriptions/" + g + "?limit=%", "limit"},
		{"EscapedName", "/v1/endUserAccounts?st%61tusFilter=%zz", "statusFilter"},
		{"BadName", "/v1/endUserAccounts?%zz=1", "query"},
		{"NameNotUTF8", "/v1/endUserAccounts?%ff=1", "query"},
		{"SemicolonSeparator", "/v1/endUserAccounts?search=a;limit=1", "search"},
		{"OAuthCallback", "/v1/oauth/callback?state=s&code=%zz", "code"},
		{"OAuthAuthorize", "/v1/oauth/authorize/" + ts.AppID + "/provider_a?redirectUrl=" + url.QueryEscape(ts.Redirect) + "&loginHint=%zz", "loginHint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := ts.do(t, "GET", tc.path, nil)
			if e := r.Error(t); r.Status != http.StatusBadRequest || e.Code != "invalid_request" || e.Field != tc.field {
				t.Errorf("GET %s = %d %s (field %q), want 400 invalid_request naming %s\n%s", tc.path, r.Status, e.Code, e.Field, tc.field, r.Body)
			}
		})
	}
	// A well-formed query with escapes still reads as before.
	var accounts unical.Page[unical.Account]
	ts.must(t, "GET", "/v1/endUserAccounts?search=%41da%40example.com&statusFilter=active", nil).Into(t, &accounts)
	if len(accounts.Data) != 1 || accounts.Data[0].Email != googleUser {
		t.Errorf("search=Ada@example.com lists %+v, want only %s", accounts.Data, googleUser)
	}
}
