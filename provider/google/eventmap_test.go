package google

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

func TestToEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		json string
		zone string
		want *unical.Event
	}{
		{
			name: "Tombstone",
			json: `{"kind":"calendar#event","etag":"\"1\"","id":"abc123","status":"cancelled"}`,
			want: &unical.Event{ID: "abc123", ETag: `"1"`, IsCancelled: true},
		},
		{
			name: "CancelledAllDayInstance",
			json: `{"id":"ser_20260105","status":"cancelled","recurringEventId":"ser","originalStartTime":{"date":"2026-01-05"}}`,
			want: &unical.Event{ID: "ser_20260105", IsCancelled: true, IsException: true, RecurringEventID: "ser",
				OriginalStart: &unical.EventDateTime{Date: "2026-01-05"}},
		},
		{
			name: "BirthdayWithHangoutLinkOnly",
			json: `{"id":"b1","status":"confirmed","summary":"Ann","eventType":"birthday","start":{"date":"2026-03-01"},"end":{"date":"2026-03-02"},
				"recurrence":["RRULE:FREQ=YEARLY"],"hangoutLink":"https://meet.google.com/aaa-bbbb-ccc","created":"2026-01-01T10:00:00Z","updated":"2026-01-02T10:00:00.5Z"}`,
			want: &unical.Event{ID: "b1", Title: "Ann", IsAllDay: true, IsRecurring: true, Recurrence: []string{"RRULE:FREQ=YEARLY"},
				Start: &unical.EventDateTime{DateTime: "2026-03-01T00:00:00"}, End: &unical.EventDateTime{DateTime: "2026-03-02T00:00:00"},
				CreatedAt: "2026-01-01T10:00:00.000Z", UpdatedAt: "2026-01-02T10:00:00.500Z",
				Visibility: unical.VisibilityDefault, Transparency: unical.TransparencyOpaque, EventType: unical.EventTypeDefault,
				ConferenceData: &unical.ConferenceData{ConferenceType: unical.MeetingProviderGoogleMeet, JoinURL: "https://meet.google.com/aaa-bbbb-ccc"}},
		},
		{
			name: "FocusTimeInListZoneWithAddOnConference",
			json: `{"id":"f1","summary":"Focus","eventType":"focusTime","visibility":"confidential","transparency":"transparent",
				"start":{"dateTime":"2026-03-02T09:00:00-05:00"},"end":{"dateTime":"2026-03-02T11:00:00-05:00"},
				"conferenceData":{"conferenceId":"x-1","conferenceSolution":{"key":{"type":"addOn"},"name":"Zoom"},
				"entryPoints":[{"entryPointType":"phone","uri":"tel:+1"},{"entryPointType":"video","uri":"https://zoom.example/j/1","label":"zoom"}]}}`,
			zone: "America/New_York",
			want: &unical.Event{ID: "f1", Title: "Focus",
				Start:      &unical.EventDateTime{DateTime: "2026-03-02T09:00:00-05:00", TimeZone: "America/New_York"},
				End:        &unical.EventDateTime{DateTime: "2026-03-02T11:00:00-05:00", TimeZone: "America/New_York"},
				Visibility: unical.VisibilityConfidential, Transparency: unical.TransparencyTransparent, EventType: unical.EventTypeFocusTime,
				ConferenceData: &unical.ConferenceData{ConferenceID: "x-1", ConferenceType: "addOn", JoinURL: "https://zoom.example/j/1",
					ConferenceDetails: &unical.ConferenceDetails{ConferenceID: "x-1",
						ConferenceSolution: &unical.ConferenceSolution{Key: &unical.ConferenceSolutionKey{Type: "addOn"}, Name: "Zoom"},
						EntryPoints: []unical.ConferenceEntryPoint{{EntryPointType: "phone", URI: "tel:+1"},
							{EntryPointType: "video", URI: "https://zoom.example/j/1", Label: "zoom"}}}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var g event
			if err := json.Unmarshal([]byte(tc.json), &g); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, toEvent(&g, tc.zone, "")); diff != "" {
				t.Errorf("toEvent() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventBody(t *testing.T) {
	t.Parallel()
	timed := &event{ID: "e1", Start: &eventDateTime{DateTime: "2026-05-04T10:00:00+02:00", TimeZone: "Europe/Paris"},
		End: &eventDateTime{DateTime: "2026-05-04T11:00:00+02:00", TimeZone: "Europe/Paris"}, Status: "cancelled",
		Recurrence: []string{"RRULE:FREQ=DAILY"}, Attendees: []eventAttendee{{Email: "me@example.com", Self: true, ResponseStatus: "needsAction"}}}
	tests := []struct {
		name   string
		params *unical.EventParams
		cur    *event
		want   string
	}{
		{
			name:   "ClearsWithNull",
			params: &unical.EventParams{Description: unical.Null[string](), Recurrence: unical.Null[[]string](), Attendees: unical.Null[[]unical.Attendee](), ColorID: unical.Null[string](), Visibility: unical.Null[unical.Visibility]()},
			cur:    timed,
			want:   `{"attendees":null,"colorId":null,"description":null,"recurrence":null,"visibility":null}`,
		},
		{
			name:   "RestoresAndRSVPs",
			params: &unical.EventParams{IsCancelled: unical.Some(false), MyResponseStatus: unical.Some(unical.ResponseAccepted)},
			cur:    timed,
			want:   `{"attendees":[{"email":"me@example.com","responseStatus":"accepted"}],"attendeesOmitted":true,"status":"confirmed"}`,
		},
		{
			name:   "ExplicitConference",
			params: &unical.EventParams{ConferenceData: unical.Some(unical.ConferenceData{ConferenceType: unical.MeetingProviderGoogleMeet, JoinURL: "https://meet.google.com/abc-defg-hij"})},
			want:   `{"conferenceData":{"conferenceSolution":{"key":{"type":"hangoutsMeet"}},"entryPoints":[{"entryPointType":"video","uri":"https://meet.google.com/abc-defg-hij"}]}}`,
		},
		{
			name:   "StartKeepsZoneAndDropsDate",
			params: &unical.EventParams{Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00", TimeZone: "Europe/Paris"})},
			cur:    timed,
			want:   `{"start":{"date":null,"dateTime":"2026-05-04T09:00:00+02:00","timeZone":"Europe/Paris"}}`,
		},
		{
			name:   "RecurringWithoutZoneExpandsInUTC",
			params: &unical.EventParams{Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY"})},
			cur:    &event{Start: &eventDateTime{DateTime: "2026-05-04T10:00:00+02:00"}, End: &eventDateTime{DateTime: "2026-05-04T11:00:00+02:00"}},
			want:   `{"end":{"timeZone":"UTC"},"recurrence":["RRULE:FREQ=WEEKLY"],"start":{"timeZone":"UTC"}}`,
		},
		{
			name:   "UseDefaultReminders",
			params: &unical.EventParams{Reminders: unical.Some(unical.Reminders{UseDefault: true, Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 5}}})},
			want:   `{"reminders":{"overrides":null,"useDefault":true}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := eventBody(tc.params, tc.cur, "me@example.com")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(b)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("eventBody() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
