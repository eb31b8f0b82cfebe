package microsoft

import (
	"net/http"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestExpiredDeltaCursor: Graph documents an expired delta token as "a
// 40X-series error with error codes such as syncStateNotFound"
// (concepts/delta-query-overview.md, "Token duration") without naming the
// status, so every such status must make the cursor CodeGone, and a new
// listing must give a working cursor again.
func TestExpiredDeltaCursor(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound, http.StatusGone} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			f := newFixtureWith(t, graphtest.Options{ExpiredDeltaTokenStatus: status})
			s, _ := f.session(t)
			def := f.srv.DefaultCalendarID(f.userID)
			if _, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
				Title: unical.Some("one"),
				Start: unical.Some(unical.EventDateTime{DateTime: "2026-03-02T09:00:00", TimeZone: "Europe/Berlin"}),
				End:   unical.Some(unical.EventDateTime{DateTime: "2026-03-02T10:00:00", TimeZone: "Europe/Berlin"}),
			}); err != nil {
				t.Fatal(err)
			}
			window := unical.EventQuery{TimeMin: mustTime(t, "2026-03-01T00:00:00Z"), TimeMax: mustTime(t, "2026-04-01T00:00:00Z"), SingleEvents: true, WantSync: true}
			first, err := f.p.ListEvents(t.Context(), s, def, &window)
			if err != nil {
				t.Fatal(err)
			}
			if first.NextSyncCursor == "" {
				t.Fatal("no sync cursor")
			}
			f.srv.ExpireDeltaTokens(f.userID)
			_, err = f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: first.NextSyncCursor, WantSync: true})
			if unical.ErrorCode(err) != unical.CodeGone {
				t.Fatalf("sync with an expired cursor: %v; want CodeGone", err)
			}
			again, err := f.p.ListEvents(t.Context(), s, def, &window)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: again.NextSyncCursor, WantSync: true}); err != nil {
				t.Fatalf("sync with a fresh cursor: %v", err)
			}
		})
	}
}

// TestRefusedDeltaLink: a delta link Graph refuses with a 400 of another
// code (the fake's answer to a token it never issued) is CodeGone too.
func TestRefusedDeltaLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	bogus := cursorDelta + f.srv.GraphBaseURL() + "/me/calendars/" + def + "/calendarView/delta?$deltatoken=R0usmNeverIssued"
	_, err := f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: bogus, WantSync: true})
	if unical.ErrorCode(err) != unical.CodeGone {
		t.Fatalf("sync with a refused delta link: %v; want CodeGone", err)
	}
}

// TestRetryAfter reads the Retry-After forms Graph documents: whole
// seconds, fractional seconds (a concepts/throttling.md sample shows
// "2.128") and an HTTP date.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"10", 10 * time.Second, true},
		{"2.128", 2128 * time.Millisecond, true},
		{"0", 0, true},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"soon", 0, false},
		{"-1.5", 0, false},
		{"NaN", 0, false},
	} {
		got, ok := retryAfter(http.Header{"Retry-After": {tc.value}})
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.value, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestResponseFromGraphCase: responsestatus.md spells the values in Pascal
// case, responses in camel case; both read the same.
func TestResponseFromGraphCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]unical.ResponseStatus{
		"accepted": unical.ResponseAccepted, "Accepted": unical.ResponseAccepted, "Organizer": unical.ResponseAccepted,
		"TentativelyAccepted": unical.ResponseTentative, "tentativelyAccepted": unical.ResponseTentative,
		"Declined": unical.ResponseDeclined, "NotResponded": unical.ResponseNeedsAction, "None": unical.ResponseNeedsAction,
	} {
		if got := responseFromGraph(&responseStatus{Response: in}); got != want {
			t.Errorf("responseFromGraph(%q) = %v; want %v", in, got, want)
		}
	}
}
