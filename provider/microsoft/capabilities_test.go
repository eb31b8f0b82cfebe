package microsoft

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestUpdateEvent_Actions: myResponseStatus and isCancelled go through
// Graph's event actions (the PATCH body has no place for them): an
// invitation is answered and reads back answered, the organizer's cancel
// removes the event, and what the account may not do is CodeInvalid
// naming the field with the event unchanged.
func TestUpdateEvent_Actions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	invite, err := f.srv.AddEvent(f.userID, "", `{
	  "subject": "Board meeting",
	  "start": {"dateTime": "2026-03-02T15:00:00", "timeZone": "UTC"},
	  "end": {"dateTime": "2026-03-02T16:00:00", "timeZone": "UTC"},
	  "organizer": {"emailAddress": {"name": "Grace", "address": "grace@fabrikam.test"}},
	  "responseStatus": {"response": "notResponded", "time": "0001-01-01T00:00:00Z"},
	  "attendees": [{"type": "required", "emailAddress": {"name": "Ada", "address": "ada@contoso.test"}, "status": {"response": "none", "time": "0001-01-01T00:00:00Z"}}]
	}`)
	if err != nil {
		t.Fatal(err)
	}
	own, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
		Title: unical.Some("Mine"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-03-03T09:00:00Z"}), End: unical.Some(unical.EventDateTime{DateTime: "2026-03-03T09:30:00Z"}),
	})
	if err != nil {
		t.Fatal(err)
	}

	refusals := []struct {
		name, id string
		params   *unical.EventParams
		field    string
	}{
		{"AttendeeCancels", invite, &unical.EventParams{IsCancelled: unical.Some(true)}, "isCancelled"},
		{"NeedsAction", invite, &unical.EventParams{MyResponseStatus: unical.Some(unical.ResponseNeedsAction)}, "myResponseStatus"},
		{"OrganizerDeclines", own.ID, &unical.EventParams{MyResponseStatus: unical.Some(unical.ResponseDeclined)}, "myResponseStatus"},
		{"AnotherOrganizer", own.ID, &unical.EventParams{Organizer: unical.Some(unical.Organizer{Email: "grace@fabrikam.test"})}, "organizer"},
		{"GuestAnswerFromOrganizer", own.ID, &unical.EventParams{Attendees: unical.Some([]unical.Attendee{{Email: "bob@contoso.test", ResponseStatus: unical.ResponseAccepted}})}, "attendees[0].responseStatus"},
	}
	for _, tc := range refusals {
		before, _ := f.p.GetEvent(t.Context(), s, def, tc.id)
		_, err := f.p.UpdateEvent(t.Context(), s, def, tc.id, tc.params)
		if e := (*unical.Error)(nil); !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != tc.field {
			t.Errorf("%s: error %v, want CodeInvalid naming %s", tc.name, err, tc.field)
		}
		after, _ := f.p.GetEvent(t.Context(), s, def, tc.id)
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("%s: a refused update changed the event (-before +after):\n%s", tc.name, diff)
		}
	}
	if _, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{Title: unical.Some("x"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-03-03T09:00:00Z"}), IsCancelled: unical.Some(true)}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("create cancelled: %v, want CodeInvalid", err)
	}

	answered, err := f.p.UpdateEvent(t.Context(), s, def, invite, &unical.EventParams{MyResponseStatus: unical.Some(unical.ResponseDeclined), Title: unical.Some("Board meeting (declined)")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.p.GetEvent(t.Context(), s, def, invite)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"Board meeting (declined)", unical.ResponseDeclined}
	if diff := cmp.Diff(want, []any{got.Title, got.MyResponseStatus}); diff != "" {
		t.Errorf("answered invitation read back (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, []any{answered.Title, answered.MyResponseStatus}); diff != "" {
		t.Errorf("UpdateEvent's answer (-want +got):\n%s", diff)
	}

	cancelled, err := f.p.UpdateEvent(t.Context(), s, def, own.ID, &unical.EventParams{IsCancelled: unical.Some(true)})
	if err != nil {
		t.Fatal(err)
	}
	if !cancelled.IsCancelled {
		t.Error("UpdateEvent(isCancelled) answered an event that is not cancelled")
	}
	if _, err := f.p.GetEvent(t.Context(), s, def, own.ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetEvent after cancel: %v, want CodeNotFound", err)
	}
}
