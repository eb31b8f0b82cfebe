package apitest

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listPage is either list envelope: nextPageToken is null or missing on
// the last page.
type listPage struct {
	Data          []map[string]any `json:"data"`
	NextPageToken *string          `json:"nextPageToken"`
	NextSyncToken string           `json:"nextSyncToken"`
}

// PageRepeatingQuery walks every page of a listing the way most clients
// (and generated ones) do: it sends path?q, then the same query again with
// each nextPageToken added. It returns the items in order, the number of
// pages and the last page's nextSyncToken, and fails the test on an answer
// other than 200 or after 100 pages.
func (st *Stack) PageRepeatingQuery(tb testing.TB, path string, q url.Values) (items []map[string]any, pages int, nextSyncToken string) {
	tb.Helper()
	next := cloneValues(q)
	for pages = 1; pages <= 100; pages++ {
		var page listPage
		st.Must(tb, http.MethodGet, path+"?"+next.Encode(), nil).Into(tb, &page)
		items = append(items, page.Data...)
		if page.NextPageToken == nil || *page.NextPageToken == "" {
			return items, pages, page.NextSyncToken
		}
		next = cloneValues(q)
		next.Set("pageToken", *page.NextPageToken)
	}
	tb.Fatalf("GET %s?%s did not end in 100 pages", path, q.Encode())
	return nil, 0, ""
}

// CheckRepeatedQueryPaging checks the pagination rule on a listing:
// paging path?q with the given limit by repeating q with each pageToken
// returns every item once, field for field as one page of MaxPageSize
// shows them; the token alone continues the listing as well; and the
// token sent with q changed by change (each key set to its values, or
// removed when it has none) is a 400 naming pageToken. A nil change skips
// that last check, for listings without filters. q must match more items
// than limit. It returns the items.
func (st *Stack) CheckRepeatedQueryPaging(tb testing.TB, path string, q, change url.Values, limit int) []map[string]any {
	tb.Helper()
	whole := cloneValues(q)
	whole.Set("limit", "250")
	var single listPage
	st.Must(tb, http.MethodGet, path+"?"+whole.Encode(), nil).Into(tb, &single)
	if single.NextPageToken != nil && *single.NextPageToken != "" {
		tb.Fatalf("GET %s?%s has more than one page", path, whole.Encode())
	}
	if len(single.Data) <= limit {
		tb.Fatalf("GET %s?%s lists %d items; the check needs more than %d", path, whole.Encode(), len(single.Data), limit)
	}

	paged := cloneValues(q)
	paged.Set("limit", strconv.Itoa(limit))
	items, pages, _ := st.PageRepeatingQuery(tb, path, paged)
	if want := (len(single.Data) + limit - 1) / limit; pages < want {
		tb.Errorf("%d items came in %d pages of at most %d", len(items), pages, limit)
	}
	if diff := cmp.Diff(single.Data, items); diff != "" {
		tb.Errorf("paging with limit=%d by repeating the query differs from one page (-one page +paged):\n%s", limit, diff)
	}

	var first listPage
	st.Must(tb, http.MethodGet, path+"?"+paged.Encode(), nil).Into(tb, &first)
	if first.NextPageToken == nil || *first.NextPageToken == "" {
		tb.Fatalf("GET %s?%s has no second page", path, paged.Encode())
	}
	token := *first.NextPageToken
	repeated := cloneValues(paged)
	repeated.Set("pageToken", token)
	alone := url.Values{"pageToken": {token}, "limit": {strconv.Itoa(limit)}}
	var second, secondAlone listPage
	st.Must(tb, http.MethodGet, path+"?"+repeated.Encode(), nil).Into(tb, &second)
	st.Must(tb, http.MethodGet, path+"?"+alone.Encode(), nil).Into(tb, &secondAlone)
	if diff := cmp.Diff(second.Data, secondAlone.Data); diff != "" {
		tb.Errorf("the page token alone lists another second page (-repeated query +token alone):\n%s", diff)
	}

	if change == nil {
		return items
	}
	changed := cloneValues(paged)
	for k, v := range change {
		if len(v) == 0 {
			changed.Del(k)
		} else {
			changed[k] = v
		}
	}
	changed.Set("pageToken", token)
	r := st.Do(tb, http.MethodGet, path+"?"+changed.Encode(), nil)
	if e := r.Error(tb); r.Status != http.StatusBadRequest || e.Code != "invalid_request" || e.Field != "pageToken" {
		tb.Errorf("pageToken with %v changed = %d %s (field %q), want 400 invalid_request naming pageToken\n%s", change, r.Status, e.Code, e.Field, r.Body)
	}
	return items
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// CheckExpandedPagingRule creates, in a calendar of an account, a daily
// series of seven "Standup" instances, a single "Standup review" and a
// "Lunch", then runs CheckRepeatedQueryPaging on the expanded listing of
// the window with search=standup and orderBy=startTime: the eight matching
// instances, each once.
func (st *Stack) CheckExpandedPagingRule(tb testing.TB, accountID, calendarID string) {
	tb.Helper()
	events := "/v1/events/" + url.PathEscape(accountID) + "/" + url.PathEscape(calendarID)
	at := func(day, hour string) map[string]string {
		return map[string]string{"dateTime": "2026-03-" + day + "T" + hour + ":00:00", "timeZone": "Europe/Berlin"}
	}
	for _, body := range []map[string]any{
		{"title": "Standup", "start": at("02", "09"), "end": at("02", "10"), "recurrence": []string{"RRULE:FREQ=DAILY;COUNT=7"}},
		{"title": "Standup review", "start": at("06", "15"), "end": at("06", "16")},
		{"title": "Lunch", "start": at("03", "12"), "end": at("03", "13")},
	} {
		st.Must(tb, http.MethodPost, events, body)
	}
	q := url.Values{
		"startDateTime": {"2026-03-01T00:00:00Z"}, "endDateTime": {"2026-03-15T00:00:00Z"},
		"expandRecurrences": {"true"}, "search": {"standup"}, "orderBy": {"startTime"},
	}
	items := st.CheckRepeatedQueryPaging(tb, events, q, url.Values{"search": {"standup-changed"}}, 2)
	seen := map[any]bool{}
	for _, e := range items {
		if seen[e["id"]] {
			tb.Errorf("instance %v is listed twice", e["id"])
		}
		seen[e["id"]] = true
	}
	if len(items) != 8 {
		tb.Errorf("the expanded listing has %d instances, want 7 of the series and the review", len(items))
	}
}
