package google

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

// TestEventValueRefusals: the values the capability notes say Google
// cannot keep are CodeInvalid naming the field, and no write reaches
// Google.
func TestEventValueRefusals(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	f := newFixtureWith(t, googletest.Options{}, rec)
	s := f.session(t, alice)
	cal := f.srv.AddCalendar(alice, googletest.Calendar{Summary: "Refusals", TimeZone: "Europe/Paris"})
	start, end := zonedAt("2030-01-07T09:00:00+01:00", "Europe/Paris"), zonedAt("2030-01-07T10:00:00+01:00", "Europe/Paris")
	ev, err := f.p.CreateEvent(t.Context(), s, cal, &unical.EventParams{Title: unical.Some("Base"), Start: start, End: end})
	if err != nil {
		t.Fatal(err)
	}
	six := make([]unical.ReminderOverride, 6)
	for i := range six {
		six[i] = unical.ReminderOverride{Method: "popup", Minutes: 10 * i}
	}
	tests := []struct {
		name   string
		create bool
		params *unical.EventParams
		field  string
	}{
		{"ColorOutsidePalette", true, &unical.EventParams{ColorID: unical.Some("12")}, "colorId"},
		{"ColorNotANumber", false, &unical.EventParams{ColorID: unical.Some("05")}, "colorId"},
		{"SixReminders", true, &unical.EventParams{Reminders: unical.Some(unical.Reminders{Overrides: six})}, "reminders.overrides"},
		{"MinutesBeyondFourWeeks", true, &unical.EventParams{Reminders: unical.Some(unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 40321}}})}, "reminders.overrides[0].minutes"},
		{"OverridesWithDefault", false, &unical.EventParams{Reminders: unical.Some(unical.Reminders{UseDefault: true, Overrides: six[:1]})}, "reminders.overrides"},
		{"AnotherOrganizerOnCreate", true, &unical.EventParams{Organizer: unical.Some(unical.Organizer{Email: bob})}, "organizer"},
		{"AnotherOrganizerOnUpdate", false, &unical.EventParams{Organizer: unical.Some(unical.Organizer{Email: bob})}, "organizer"},
		{"ChangedEventType", false, &unical.EventParams{EventType: unical.Some(unical.EventTypeFocusTime)}, "eventType"},
		{"CancelledOnCreate", true, &unical.EventParams{IsCancelled: unical.Some(true)}, "isCancelled"},
		{"MyResponseWithoutMe", true, &unical.EventParams{Attendees: unical.Some([]unical.Attendee{{Email: bob}}), MyResponseStatus: unical.Some(unical.ResponseDeclined)}, "myResponseStatus"},
	}
	for _, tc := range tests {
		writes := len(rec.requests(http.MethodPost, "/events")) + len(rec.requests(http.MethodPatch, "/events/"))
		p := *tc.params
		var err error
		if tc.create {
			p.Title, p.Start, p.End = unical.Some(tc.name), start, end
			_, err = f.p.CreateEvent(t.Context(), s, cal, &p)
		} else {
			_, err = f.p.UpdateEvent(t.Context(), s, cal, ev.ID, &p)
		}
		var e *unical.Error
		ok := errors.As(err, &e)
		if !ok || e.Code != unical.CodeInvalid || e.Field != tc.field {
			t.Errorf("%s: error %v, want CodeInvalid naming %s", tc.name, err, tc.field)
		}
		if n := len(rec.requests(http.MethodPost, "/events")) + len(rec.requests(http.MethodPatch, "/events/")); n != writes {
			t.Errorf("%s: %d writes reached Google", tc.name, n-writes)
		}
	}
}

// TestUpdateEvent_Cancel: isCancelled true deletes the event at Google
// (the events.delete call), which then reads as not found, and on an
// instance leaves a cancelled exception the series listing shows.
func TestUpdateEvent_Cancel(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	f := newFixtureWith(t, googletest.Options{}, rec)
	s := f.session(t, alice)
	cal := f.srv.AddCalendar(alice, googletest.Calendar{Summary: "Cancel", TimeZone: "Europe/Paris"})
	ev, err := f.p.CreateEvent(t.Context(), s, cal, &unical.EventParams{Title: unical.Some("Gone"), Start: zonedAt("2030-01-07T09:00:00+01:00", "Europe/Paris"), End: zonedAt("2030-01-07T10:00:00+01:00", "Europe/Paris")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.p.UpdateEvent(t.Context(), s, cal, ev.ID, &unical.EventParams{IsCancelled: unical.Some(true)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{ev.ID, true}, []any{got.ID, got.IsCancelled}); diff != "" {
		t.Errorf("UpdateEvent(isCancelled) mismatch (-want +got):\n%s", diff)
	}
	if n := len(rec.requests(http.MethodDelete, "/events/")); n != 1 {
		t.Errorf("%d DELETE requests, want 1", n)
	}
	if _, err := f.p.GetEvent(t.Context(), s, cal, ev.ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetEvent after cancel: %v, want CodeNotFound", err)
	}
}
