package unical_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// ApplyCommon writes the fields that are set, clears what is null and
// leaves the rest of the event alone.
func TestEventParams_ApplyCommon(t *testing.T) {
	start := unical.EventDateTime{DateTime: "2026-03-02T09:00:00Z", TimeZone: "UTC"}
	end := unical.EventDateTime{DateTime: "2026-03-02T10:00:00Z", TimeZone: "UTC"}
	later := unical.EventDateTime{DateTime: "2026-03-02T11:00:00Z", TimeZone: "UTC"}
	base := func() *unical.Event {
		return &unical.Event{
			Title: "Standup", Description: "daily", Location: "Room 1", Start: &start, End: &end,
			Attendees:  []unical.Attendee{{Email: "ada@example.com"}},
			Visibility: unical.VisibilityPublic, IsAllDay: true, Recurrence: []string{"RRULE:FREQ=DAILY"},
			ColorID: "3",
		}
	}
	tests := []struct {
		name   string
		params unical.EventParams
		want   func(*unical.Event)
	}{
		{"nothing set changes nothing", unical.EventParams{}, func(*unical.Event) {}},
		{"set fields are written", unical.EventParams{
			Title: unical.Some("Retro"), Location: unical.Some(""), End: unical.Some(later),
			IsCancelled: unical.Some(true), Transparency: unical.Some(unical.TransparencyTransparent),
			PrivateExtendedProperties: unical.Some(map[string]string{"k": "v"}),
		}, func(e *unical.Event) {
			e.Title, e.Location, e.End, e.IsCancelled = "Retro", "", &later, true
			e.Transparency = unical.TransparencyTransparent
			e.PrivateExtendedProperties = map[string]string{"k": "v"}
		}},
		{"null end clears it", unical.EventParams{End: unical.Null[unical.EventDateTime]()}, func(e *unical.Event) { e.End = nil }},
		{"provider-specific fields are left to the provider", unical.EventParams{
			IsAllDay: unical.Some(false), Recurrence: unical.Some([]string{}), ColorID: unical.Some("7"),
		}, func(*unical.Event) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := base(), base()
			tt.params.ApplyCommon(got)
			tt.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
		})
	}
}
