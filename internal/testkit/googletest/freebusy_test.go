package googletest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

func TestFreeBusy(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	MustInsertEvent(t, f, "primary", timed("busy", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	MustInsertEvent(t, f, "primary", timed("overlap", "2025-01-07T10:30:00Z", "2025-01-07T11:30:00Z"))
	free := timed("free", "2025-01-07T12:00:00Z", "2025-01-07T13:00:00Z")
	free["transparency"] = "transparent"
	MustInsertEvent(t, f, "primary", free)
	declined := timed("declined", "2025-01-07T14:00:00Z", "2025-01-07T15:00:00Z")
	declined["attendees"] = []any{map[string]any{"email": aliceEmail, "responseStatus": "declined"}}
	MustInsertEvent(t, f, "primary", declined)
	gone := MustInsertEvent(t, f, "primary", timed("gone", "2025-01-07T16:00:00Z", "2025-01-07T17:00:00Z"))
	call(t, "DELETE", eventsURL(f, "primary", nil)+"/"+str(gone, "id"), f.token, nil)
	MustInsertEvent(t, f, "primary", map[string]any{
		"summary":    "daily",
		"start":      map[string]any{"dateTime": "2025-01-06T08:00:00Z", "timeZone": "UTC"},
		"end":        map[string]any{"dateTime": "2025-01-06T09:00:00Z", "timeZone": "UTC"},
		"recurrence": []any{"RRULE:FREQ=DAILY;COUNT=5"},
	})
	// Runs past timeMax: clipped.
	MustInsertEvent(t, f, "primary", timed("late", "2025-01-07T22:30:00Z", "2025-01-08T02:00:00Z"))

	r := call(t, "POST", f.srv.APIBaseURL()+"/freeBusy", f.token, map[string]any{
		"timeMin":  "2025-01-07T00:00:00Z",
		"timeMax":  "2025-01-08T00:00:00Z",
		"timeZone": "Europe/Berlin",
		"items":    []any{map[string]any{"id": "primary"}, map[string]any{"id": "nobody@example.com"}},
	})
	// timeZone is the zone of the response: bounds and busy periods carry
	// its offset.
	want := map[string]any{
		"kind":    "calendar#freeBusy",
		"timeMin": "2025-01-07T01:00:00+01:00",
		"timeMax": "2025-01-08T01:00:00+01:00",
		"calendars": map[string]any{
			"primary": map[string]any{"busy": []any{
				map[string]any{"start": "2025-01-07T09:00:00+01:00", "end": "2025-01-07T10:00:00+01:00"},
				map[string]any{"start": "2025-01-07T11:00:00+01:00", "end": "2025-01-07T12:30:00+01:00"},
				map[string]any{"start": "2025-01-07T23:30:00+01:00", "end": "2025-01-08T01:00:00+01:00"},
			}},
			"nobody@example.com": map[string]any{
				"busy":   []any{},
				"errors": []any{map[string]any{"domain": "global", "reason": "notFound"}},
			},
		},
	}
	if diff := cmp.Diff(want, r.body); diff != "" || r.status != 200 {
		t.Fatalf("freeBusy status %d, mismatch (-want +got):\n%s", r.status, diff)
	}

	tests := []struct {
		name string
		body map[string]any
	}{
		{"ErrTimeRangeEmpty", map[string]any{"timeMin": "2025-01-07T00:00:00Z", "timeMax": "2025-01-07T00:00:00Z", "items": []any{}}},
		{"ErrMissingTimeMin", map[string]any{"timeMax": "2025-01-07T00:00:00Z", "items": []any{}}},
		{"ErrBadTimeZone", map[string]any{"timeMin": "2025-01-07T00:00:00Z", "timeMax": "2025-01-08T00:00:00Z", "timeZone": "Mars/Base", "items": []any{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, _ := errorReason(t, call(t, "POST", f.srv.APIBaseURL()+"/freeBusy", f.token, tc.body)); code != 400 {
				t.Fatalf("status %d, want 400", code)
			}
		})
	}
}
