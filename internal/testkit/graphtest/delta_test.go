package graphtest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/graphtest"
)

// deltaRound follows one round of delta links and returns what it reported
// (id -> "full" or "removed"), the number of pages and the deltaLink.
func (f *fixture) deltaRound(tb testing.TB, link string) (map[string]string, int, string) {
	tb.Helper()
	got := make(map[string]string)
	pages := 0
	for pages < 50 {
		r := f.do(tb, http.MethodGet, link, nil, "Prefer", "odata.maxpagesize=2")
		mustStatus(tb, r, http.StatusOK)
		pages++
		for _, it := range r.values() {
			id := it["id"].(string)
			kind := "full"
			if rem, ok := it["@removed"].(map[string]any); ok {
				kind = "removed"
				if rem["reason"] != "deleted" {
					tb.Errorf("@removed = %v, want reason deleted", rem)
				}
			} else if it["subject"] == nil || it["start"] == nil {
				tb.Errorf("item %s lacks event properties: %v", id, it)
			}
			if it["@odata.type"] != "#microsoft.graph.event" {
				tb.Errorf("item %s @odata.type = %v", id, it["@odata.type"])
			}
			if _, dup := got[id]; dup {
				tb.Errorf("item %s reported twice in one round", id)
			}
			got[id] = kind
		}
		if next := r.str("@odata.nextLink"); next != "" {
			if !strings.HasPrefix(next, f.srv.URL+"/v1.0/me/calendarView/delta?$skiptoken=") {
				tb.Fatalf("@odata.nextLink = %q, want an absolute delta link with $skiptoken", next)
			}
			link = next
			continue
		}
		delta := r.str("@odata.deltaLink")
		if !strings.HasPrefix(delta, f.srv.URL+"/v1.0/me/calendarView/delta?$deltatoken=") {
			tb.Fatalf("last page has no @odata.deltaLink with $deltatoken: %s", r.raw)
		}
		return got, pages, delta
	}
	tb.Fatal("delta round did not end")
	return nil, 0, ""
}

func (f *fixture) mustAddEvent(tb testing.TB, subject, start, end string) string {
	tb.Helper()
	id, err := f.srv.AddEvent(f.user, "", `{"subject":"`+subject+`","start":{"dateTime":"`+start+`","timeZone":"UTC"},"end":{"dateTime":"`+end+`","timeZone":"UTC"}}`)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

func TestDelta_Rounds(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	a := f.mustAddEvent(t, "A", "2025-03-10T09:00:00", "2025-03-10T10:00:00")
	b := f.mustAddEvent(t, "B", "2025-03-11T09:00:00", "2025-03-11T10:00:00")
	c := f.mustAddEvent(t, "C", "2025-03-12T09:00:00", "2025-03-12T10:00:00")
	d := f.mustAddEvent(t, "D (outside)", "2025-05-01T09:00:00", "2025-05-01T10:00:00")
	series, err := f.srv.AddEvent(f.user, "", `{"subject":"S","start":{"dateTime":"2025-03-13T09:00:00","timeZone":"UTC"},"end":{"dateTime":"2025-03-13T09:30:00","timeZone":"UTC"},
		"recurrence":{"pattern":{"type":"daily","interval":1},"range":{"type":"numbered","startDate":"2025-03-13","numberOfOccurrences":2}}}`)
	if err != nil {
		t.Fatal(err)
	}
	occ, _ := f.collect(t, viewPath("/v1.0/me/events/"+series+"/instances", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"))
	if len(occ) != 2 {
		t.Fatalf("series has %d instances, want 2", len(occ))
	}
	initial := viewPath("/v1.0/me/calendarView/delta", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")

	got, pages, link := f.deltaRound(t, initial)
	want := map[string]string{a: "full", b: "full", c: "full", occ[0]["id"].(string): "full", occ[1]["id"].(string): "full"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("initial round mismatch (-want +got):\n%s", diff)
	}
	if pages != 3 {
		t.Errorf("initial round took %d pages, want 3 with odata.maxpagesize=2", pages)
	}

	got, _, link = f.deltaRound(t, link)
	if diff := cmp.Diff(map[string]string{}, got); diff != "" {
		t.Errorf("round without changes mismatch (-want +got):\n%s", diff)
	}

	e := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "E", "start": map[string]any{"dateTime": "2025-03-14T09:00:00", "timeZone": "UTC"},
		"end": map[string]any{"dateTime": "2025-03-14T10:00:00", "timeZone": "UTC"},
	}).str("id")
	mustStatus(t, f.do(t, http.MethodPatch, "/v1.0/me/events/"+b, map[string]any{"subject": "B2"}), http.StatusOK)
	mustStatus(t, f.do(t, http.MethodPatch, "/v1.0/me/events/"+b, map[string]any{"subject": "B3"}), http.StatusOK)
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/events/"+c, nil), http.StatusNoContent)
	mustStatus(t, f.do(t, http.MethodPatch, "/v1.0/me/events/"+d, map[string]any{"subject": "D2"}), http.StatusOK)
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/events/"+occ[1]["id"].(string), nil), http.StatusNoContent)

	got, _, link = f.deltaRound(t, link)
	want = map[string]string{
		e: "full", b: "full", c: "removed",
		d:                     "removed", // Changed outside the window: reported under @removed, as event-delta documents.
		occ[0]["id"].(string): "full",    // The series changed, so its remaining occurrence is sent again.
		occ[1]["id"].(string): "removed",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("incremental round mismatch (-want +got):\n%s", diff)
	}
	got, _, link = f.deltaRound(t, link)
	if diff := cmp.Diff(map[string]string{}, got); diff != "" {
		t.Errorf("round after the incremental one mismatch (-want +got):\n%s", diff)
	}

	f.srv.ExpireDeltaTokens(f.user)
	expired := f.do(t, http.MethodGet, link, nil)
	if expired.status != http.StatusGone || expired.errorCode() != "syncStateNotFound" {
		t.Errorf("expired deltaLink = %d %q, want 410 syncStateNotFound", expired.status, expired.errorCode())
	}
	_, _, fresh := f.deltaRound(t, initial)
	if fresh == link {
		t.Errorf("a new initial round returned the expired deltaLink")
	}
}

func TestDelta_Errors(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	for i := range 3 {
		f.mustAddEvent(t, "x", "2025-03-1"+string(rune('0'+i))+"T09:00:00", "2025-03-1"+string(rune('0'+i))+"T10:00:00")
	}
	initial := viewPath("/v1.0/me/calendarView/delta", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")
	first := f.do(t, http.MethodGet, initial, nil, "Prefer", "odata.maxpagesize=1")
	mustStatus(t, first, http.StatusOK)
	skip := first.str("@odata.nextLink")

	t.Run("ErrUnsupportedQuery", func(t *testing.T) {
		for _, opt := range []string{"$select", "$filter", "$orderby", "$expand", "$top"} {
			r := f.do(t, http.MethodGet, initial+"&"+opt+"=subject", nil)
			if r.status != http.StatusBadRequest || r.errorCode() != "ErrorInvalidUrlQuery" {
				t.Errorf("delta with %s = %d %q, want 400 ErrorInvalidUrlQuery", opt, r.status, r.errorCode())
			}
		}
	})
	t.Run("ErrNoWindow", func(t *testing.T) {
		r := f.do(t, http.MethodGet, "/v1.0/me/calendarView/delta", nil)
		if r.status != http.StatusBadRequest || r.errorCode() != "ErrorInvalidParameter" {
			t.Errorf("initial delta without a window = %d %q, want 400 ErrorInvalidParameter", r.status, r.errorCode())
		}
	})
	t.Run("ErrReset", func(t *testing.T) {
		g := mustSetup(t, graphtest.Options{})
		_, _, link := g.deltaRound(t, initial)
		g.srv.ResetDeltaTokens(g.user)
		r := g.do(t, http.MethodGet, link, nil)
		loc := r.header.Get("Location")
		if r.status != http.StatusGone || !strings.Contains(loc, "/v1.0/me/calendarView/delta?startDateTime=") || !strings.HasSuffix(loc, "&$deltatoken=") {
			t.Errorf("reset = %d, Location %q; want 410 with the initial URL and an empty $deltatoken", r.status, loc)
		}
	})
	t.Run("ErrExpiredSkipToken", func(t *testing.T) {
		f.srv.ExpireDeltaTokens(f.user)
		r := f.do(t, http.MethodGet, skip, nil)
		if r.status != http.StatusGone || r.errorCode() != "syncStateNotFound" {
			t.Errorf("expired skiptoken = %d %q, want 410 syncStateNotFound", r.status, r.errorCode())
		}
	})
}

// TestDelta_ExpiredStatus: Microsoft documents an expired token only as "a
// 40X-series error" with code syncStateNotFound, so the status is an
// option.
func TestDelta_ExpiredStatus(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound} {
		f := mustSetup(t, graphtest.Options{ExpiredDeltaTokenStatus: status})
		f.mustAddEvent(t, "x", "2025-03-10T09:00:00", "2025-03-10T10:00:00")
		initial := viewPath("/v1.0/me/calendarView/delta", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")
		_, _, link := f.deltaRound(t, initial)
		f.srv.ExpireDeltaTokens(f.user)
		r := f.do(t, http.MethodGet, link, nil)
		if r.status != status || r.errorCode() != "syncStateNotFound" {
			t.Errorf("expired deltaLink = %d %q, want %d syncStateNotFound", r.status, r.errorCode(), status)
		}
	}
}
