package microsoft

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
)

// singleJSON is a single event in the shape of Graph's "Get event" response
// (resources/event.md), with a Windows zone and Prefer: outlook.timezone
// set to Pacific Standard Time.
const singleJSON = `{
  "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users('ada')/events/$entity",
  "@odata.etag": "W/\"ZlnW4RIAV06KYYwlrfNZvQAALfZeRQ==\"",
  "id": "AAMkAGIAAAoZDOFAAA=",
  "createdDateTime": "2026-01-10T07:12:30.1234567Z",
  "lastModifiedDateTime": "2026-01-11T08:00:00.5Z",
  "changeKey": "ZlnW4RIAV06KYYwlrfNZvQAALfZeRQ==",
  "categories": [],
  "originalStartTimeZone": "W. Europe Standard Time",
  "originalEndTimeZone": "W. Europe Standard Time",
  "iCalUId": "040000008200E00074C5B7101A82E00800000000D3D70B8A1A5AD701000000000000000010000000",
  "reminderMinutesBeforeStart": 15,
  "isReminderOn": true,
  "hasAttachments": false,
  "subject": "Plan the launch",
  "bodyPreview": "Agenda",
  "importance": "normal",
  "sensitivity": "private",
  "isAllDay": false,
  "isCancelled": false,
  "isOrganizer": false,
  "responseRequested": true,
  "seriesMasterId": null,
  "showAs": "tentative",
  "type": "singleInstance",
  "webLink": "https://outlook.office365.com/owa/?itemid=AAMkAGIAAAoZDOFAAA%3D&exvsurl=1&path=/calendar/item",
  "onlineMeetingUrl": null,
  "isOnlineMeeting": true,
  "onlineMeetingProvider": "teamsForBusiness",
  "responseStatus": {"response": "tentativelyAccepted", "time": "2026-01-11T08:00:00Z"},
  "body": {"contentType": "html", "content": "<html><body>Agenda</body></html>"},
  "start": {"dateTime": "2026-01-15T00:30:00.0000000", "timeZone": "Pacific Standard Time"},
  "end": {"dateTime": "2026-01-15T01:30:00.0000000", "timeZone": "Pacific Standard Time"},
  "location": {"displayName": "Room 1", "locationType": "default", "uniqueIdType": "unknown", "address": {}, "coordinates": {}},
  "locations": [],
  "recurrence": null,
  "attendees": [
    {"type": "required", "status": {"response": "accepted", "time": "2026-01-11T08:00:00Z"}, "emailAddress": {"name": "Ada", "address": "ada@contoso.test"}},
    {"type": "optional", "status": {"response": "none", "time": "0001-01-01T00:00:00Z"}, "emailAddress": {"name": "Bob", "address": "bob@contoso.test"}},
    {"type": "required", "status": {"response": "declined", "time": "2026-01-11T08:00:00Z"}, "emailAddress": {"address": "cy@contoso.test"}},
    {"type": "resource", "status": {"response": "tentativelyAccepted", "time": "2026-01-11T08:00:00Z"}, "emailAddress": {"name": "Room 1", "address": "room1@contoso.test"}}
  ],
  "organizer": {"emailAddress": {"name": "Grace", "address": "Grace@Contoso.test"}},
  "onlineMeeting": {"joinUrl": "https://teams.microsoft.com/l/meetup-join/19%3ameeting_x%40thread.v2/0", "conferenceId": "177513992", "tollNumber": "+1 425 555 0100"},
  "singleValueExtendedProperties": [
    {"id": "String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name unicalExtendedProperties", "value": "{\"public\":{\"color\":\"red\"},\"private\":{\"crm\":\"42\"}}"}
  ]
}`

func decodeEvent(t *testing.T, s string) *event {
	t.Helper()
	var g event
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestEventFromGraphSingle(t *testing.T) {
	t.Parallel()
	got, err := eventFromGraph(decodeEvent(t, singleJSON), readOptions{SelfEmail: "grace@contoso.test"})
	if err != nil {
		t.Fatal(err)
	}
	join := "https://teams.microsoft.com/l/meetup-join/19%3ameeting_x%40thread.v2/0"
	want := &unical.Event{
		ID:          "AAMkAGIAAAoZDOFAAA=",
		Title:       "Plan the launch",
		Description: "<html><body>Agenda</body></html>",
		ETag:        "ZlnW4RIAV06KYYwlrfNZvQAALfZeRQ==",
		CreatedAt:   "2026-01-10T07:12:30.123Z",
		UpdatedAt:   "2026-01-11T08:00:00.500Z",
		// 00:30 Pacific is 09:30 in Berlin, the event's own zone.
		Start:            &unical.EventDateTime{DateTime: "2026-01-15T09:30:00+01:00", TimeZone: "Europe/Berlin"},
		End:              &unical.EventDateTime{DateTime: "2026-01-15T10:30:00+01:00", TimeZone: "Europe/Berlin"},
		MyResponseStatus: unical.ResponseTentative,
		Attendees: []unical.Attendee{
			{Name: "Ada", Email: "ada@contoso.test", ResponseStatus: unical.ResponseAccepted},
			{Name: "Bob", Email: "bob@contoso.test", ResponseStatus: unical.ResponseNeedsAction, Optional: true},
			{Email: "cy@contoso.test", ResponseStatus: unical.ResponseDeclined},
			{Name: "Room 1", Email: "room1@contoso.test", ResponseStatus: unical.ResponseTentative},
		},
		Visibility: unical.VisibilityPrivate,
		Location:   "Room 1",
		ConferenceData: &unical.ConferenceData{
			ConferenceID:   "177513992",
			ConferenceType: "teamsForBusiness",
			JoinURL:        join,
			ConferenceDetails: &unical.ConferenceDetails{
				ConferenceID: "177513992",
				EntryPoints: []unical.ConferenceEntryPoint{
					{EntryPointType: "video", URI: join, Label: join},
					{EntryPointType: "phone", URI: "tel:+1 425 555 0100", Label: "+1 425 555 0100"},
				},
				ConferenceSolution: &unical.ConferenceSolution{Key: &unical.ConferenceSolutionKey{Type: "teamsForBusiness"}, Name: "Microsoft Teams"},
			},
		},
		WebLink:                   "https://outlook.office365.com/owa/?itemid=AAMkAGIAAAoZDOFAAA%3D&exvsurl=1&path=/calendar/item",
		ICalUID:                   "040000008200E00074C5B7101A82E00800000000D3D70B8A1A5AD701000000000000000010000000",
		Transparency:              unical.TransparencyOpaque,
		EventType:                 unical.EventTypeDefault,
		Organizer:                 &unical.Organizer{Name: "Grace", Email: "Grace@Contoso.test", IsSelf: true},
		Reminders:                 &unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 15}}},
		PublicExtendedProperties:  map[string]string{"color": "red"},
		PrivateExtendedProperties: map[string]string{"crm": "42"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("eventFromGraph (-want +got):\n%s", diff)
	}

	// A display zone overrides the event's own.
	got, err = eventFromGraph(decodeEvent(t, singleJSON), readOptions{TimeZone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Start.DateTime != "2026-01-15T17:30:00+09:00" || got.Start.TimeZone != "Asia/Tokyo" {
		t.Errorf("start in Tokyo = %+v", got.Start)
	}
	if got.Organizer.IsSelf {
		t.Errorf("organizer isSelf without a matching session email")
	}
	if _, err := eventFromGraph(decodeEvent(t, singleJSON), readOptions{TimeZone: "Mars/Olympus"}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("bad display zone: %v", err)
	}
}

// Series master, occurrence and exception of a weekly all-day and a timed
// series, in the shape calendarView and GET return them.
func TestEventFromGraphSeries(t *testing.T) {
	t.Parallel()
	master := `{
	  "id": "M1", "changeKey": "ck1", "type": "seriesMaster", "subject": "Standup",
	  "isAllDay": false, "isOrganizer": true, "showAs": "busy", "sensitivity": "normal",
	  "originalStartTimeZone": "Eastern Standard Time", "originalEndTimeZone": "Eastern Standard Time",
	  "start": {"dateTime": "2026-01-05T14:00:00.0000000", "timeZone": "UTC"},
	  "end": {"dateTime": "2026-01-05T14:15:00.0000000", "timeZone": "UTC"},
	  "responseStatus": {"response": "organizer", "time": "0001-01-01T00:00:00Z"},
	  "organizer": {"emailAddress": {"name": "Ada", "address": "ada@contoso.test"}},
	  "recurrence": {
	    "pattern": {"type": "weekly", "interval": 1, "month": 0, "dayOfMonth": 0, "daysOfWeek": ["monday", "wednesday", "friday"], "firstDayOfWeek": "sunday", "index": "first"},
	    "range": {"type": "endDate", "startDate": "2026-01-05", "endDate": "2026-03-31", "recurrenceTimeZone": "Eastern Standard Time", "numberOfOccurrences": 0}
	  }
	}`
	got, err := eventFromGraph(decodeEvent(t, master), readOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsRecurring || got.IsException || got.RecurringEventID != "" {
		t.Errorf("master flags: %+v", got)
	}
	if diff := cmp.Diff([]string{"RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;WKST=SU;UNTIL=20260401T035959Z"}, got.Recurrence); diff != "" {
		t.Errorf("recurrence (-want +got):\n%s", diff)
	}
	if got.Start.DateTime != "2026-01-05T09:00:00-05:00" || got.Start.TimeZone != "America/New_York" {
		t.Errorf("start = %+v", got.Start)
	}
	if !got.Organizer.IsSelf || got.MyResponseStatus != unical.ResponseAccepted || got.Visibility != unical.VisibilityDefault {
		t.Errorf("organizer/response/visibility: %+v %q %q", got.Organizer, got.MyResponseStatus, got.Visibility)
	}

	for _, typ := range []string{"occurrence", "exception"} {
		inst := `{
		  "id": "I-` + typ + `", "type": "` + typ + `", "seriesMasterId": "M1", "subject": "Standup",
		  "originalStart": "2026-01-07T14:00:00Z",
		  "originalStartTimeZone": "Eastern Standard Time", "originalEndTimeZone": "Eastern Standard Time",
		  "start": {"dateTime": "2026-01-07T15:00:00.0000000", "timeZone": "UTC"},
		  "end": {"dateTime": "2026-01-07T15:15:00.0000000", "timeZone": "UTC"},
		  "recurrence": null
		}`
		got, err := eventFromGraph(decodeEvent(t, inst), readOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.IsRecurring || !got.IsException || got.RecurringEventID != "M1" || got.Recurrence != nil {
			t.Errorf("%s flags: %+v", typ, got)
		}
		want := &unical.EventDateTime{DateTime: "2026-01-07T09:00:00-05:00", TimeZone: "America/New_York"}
		if diff := cmp.Diff(want, got.OriginalStart); diff != "" {
			t.Errorf("%s originalStart (-want +got):\n%s", typ, diff)
		}
	}

	allDay := `{
	  "id": "A1", "type": "exception", "seriesMasterId": "AM", "isAllDay": true, "showAs": "free",
	  "originalStart": "2026-02-02T05:00:00Z",
	  "originalStartTimeZone": "Eastern Standard Time", "originalEndTimeZone": "Eastern Standard Time",
	  "start": {"dateTime": "2026-02-03T00:00:00.0000000", "timeZone": "UTC"},
	  "end": {"dateTime": "2026-02-04T00:00:00.0000000", "timeZone": "UTC"}
	}`
	got, err = eventFromGraph(decodeEvent(t, allDay), readOptions{TimeZone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	want := &unical.Event{
		ID: "A1", IsAllDay: true, IsException: true, RecurringEventID: "AM",
		Start:         &unical.EventDateTime{DateTime: "2026-02-03T00:00:00"},
		End:           &unical.EventDateTime{DateTime: "2026-02-04T00:00:00"},
		OriginalStart: &unical.EventDateTime{Date: "2026-02-02"},
		Transparency:  unical.TransparencyTransparent,
		EventType:     unical.EventTypeDefault,
		Reminders:     &unical.Reminders{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("all-day exception (-want +got):\n%s", diff)
	}
}

func TestEventFromGraphRemovedAndOdd(t *testing.T) {
	t.Parallel()
	got, err := eventFromGraph(decodeEvent(t, `{"@odata.type":"#microsoft.graph.event","id":"X","@removed":{"reason":"deleted"}}`), readOptions{})
	if err != nil || got.ID != "X" || !got.IsCancelled {
		t.Errorf("tombstone = %+v, %v", got, err)
	}
	// A custom zone falls back to the response's zone; etag from @odata.etag.
	got, err = eventFromGraph(decodeEvent(t, `{"id":"C","@odata.etag":"W/\"abc\"","showAs":"oof","sensitivity":"confidential",
	  "originalStartTimeZone":"tzone://Microsoft/Custom","start":{"dateTime":"2026-01-05T10:00:00.0000000","timeZone":"UTC"}}`), readOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != "abc" || got.Start.DateTime != "2026-01-05T10:00:00Z" || got.Start.TimeZone != "UTC" ||
		got.EventType != unical.EventTypeOutOfOffice || got.Transparency != unical.TransparencyOpaque || got.Visibility != unical.VisibilityConfidential {
		t.Errorf("custom zone event = %+v", got)
	}
	for _, bad := range []string{
		`{"id":"B","start":{"dateTime":"yesterday","timeZone":"UTC"}}`,
		`{"id":"B","start":{"dateTime":"2026-01-05T10:00:00","timeZone":"Mars Standard Time"}}`,
		`{"id":"B","type":"seriesMaster","recurrence":{"pattern":{"type":"hourly","interval":1},"range":{"type":"noEnd"}}}`,
		`{"id":"B","type":"occurrence","originalStart":"soon"}`,
		`{"id":"B","createdDateTime":"never"}`,
		`{"id":"B","singleValueExtendedProperties":[{"id":"String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name unicalExtendedProperties","value":"not json"}]}`,
	} {
		if _, err := eventFromGraph(decodeEvent(t, bad), readOptions{}); unical.ErrorCode(err) != unical.CodeUpstream {
			t.Errorf("eventFromGraph(%s) error = %v; want CodeUpstream", bad, err)
		}
	}
}

func mustBody(t *testing.T, p *unical.EventParams, current *unical.Event) string {
	t.Helper()
	body, err := graphEventBody(p, current)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonEqual(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got: %v", err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("body (-want +got):\n%s\ngot: %s", diff, got)
	}
}

func TestGraphEventBodyCreate(t *testing.T) {
	t.Parallel()
	p := &unical.EventParams{
		Title:                      unical.Some("Plan"),
		Description:                unical.Some("Agenda"),
		Start:                      unical.Some(unical.EventDateTime{DateTime: "2026-01-15T09:30:00+01:00", TimeZone: "Europe/Berlin"}),
		End:                        unical.Some(unical.EventDateTime{DateTime: "2026-01-15T10:30:00", TimeZone: "Europe/Berlin"}),
		Recurrence:                 unical.Some([]string{"RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=5"}),
		PublicExtendedProperties:   unical.Some(map[string]string{"color": "red"}),
		Attendees:                  unical.Some([]unical.Attendee{{Email: "ada@contoso.test", Name: "Ada"}, {Email: "bob@contoso.test", Optional: true}}),
		Visibility:                 unical.Some(unical.VisibilityPublic),
		Transparency:               unical.Some(unical.TransparencyTransparent),
		Location:                   unical.Some("Room 1"),
		Reminders:                  unical.Some(unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 10}, {Method: "email", Minutes: 30}}}),
		GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderTeams),
	}
	jsonEqual(t, `{
	  "subject": "Plan",
	  "body": {"contentType": "text", "content": "Agenda"},
	  "start": {"dateTime": "2026-01-15T09:30:00", "timeZone": "W. Europe Standard Time"},
	  "end": {"dateTime": "2026-01-15T10:30:00", "timeZone": "W. Europe Standard Time"},
	  "recurrence": {
	    "pattern": {"type": "weekly", "interval": 1, "daysOfWeek": ["thursday"], "firstDayOfWeek": "monday"},
	    "range": {"type": "numbered", "startDate": "2026-01-15", "numberOfOccurrences": 5, "recurrenceTimeZone": "W. Europe Standard Time"}
	  },
	  "singleValueExtendedProperties": [
	    {"id": "String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name unicalExtendedPropertyIndex", "value": "{\"public\":{\"color\":\"red\"}}"},
	    {"id": "String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name public:color", "value": "red"}
	  ],
	  "attendees": [
	    {"type": "required", "emailAddress": {"name": "Ada", "address": "ada@contoso.test"}},
	    {"type": "optional", "emailAddress": {"address": "bob@contoso.test"}}
	  ],
	  "sensitivity": "normal",
	  "showAs": "free",
	  "location": {"displayName": "Room 1"},
	  "isReminderOn": true,
	  "reminderMinutesBeforeStart": 30,
	  "isOnlineMeeting": true,
	  "onlineMeetingProvider": "teamsForBusiness"
	}`, mustBody(t, p, nil))

	// All-day without an end lasts one day; UTC without a zone.
	p = &unical.EventParams{
		Title:    unical.Some("Holiday"),
		Start:    unical.Some(unical.EventDateTime{DateTime: "2026-05-01T00:00:00"}),
		IsAllDay: unical.Some(true),
	}
	jsonEqual(t, `{
	  "subject": "Holiday", "isAllDay": true,
	  "start": {"dateTime": "2026-05-01T00:00:00", "timeZone": "UTC"},
	  "end": {"dateTime": "2026-05-02T00:00:00", "timeZone": "UTC"}
	}`, mustBody(t, p, nil))

	// A timed event in UTC given by offset only, with no end.
	p = &unical.EventParams{Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-01T09:00:00-04:00"})}
	jsonEqual(t, `{
	  "start": {"dateTime": "2026-05-01T13:00:00", "timeZone": "UTC"},
	  "end": {"dateTime": "2026-05-01T13:00:00", "timeZone": "UTC"}
	}`, mustBody(t, p, nil))
}

func TestGraphEventBodyUpdate(t *testing.T) {
	t.Parallel()
	current := &unical.Event{
		ID:                        "M1",
		Start:                     &unical.EventDateTime{DateTime: "2026-01-15T09:30:00+01:00", TimeZone: "Europe/Berlin"},
		End:                       &unical.EventDateTime{DateTime: "2026-01-15T10:30:00+01:00", TimeZone: "Europe/Berlin"},
		IsRecurring:               true,
		Recurrence:                []string{"RRULE:FREQ=DAILY"},
		PublicExtendedProperties:  map[string]string{"a": "1"},
		PrivateExtendedProperties: map[string]string{"b": "2"},
		Transparency:              unical.TransparencyTransparent,
	}
	// Nothing set: empty body.
	jsonEqual(t, `{}`, mustBody(t, &unical.EventParams{}, current))

	// Nulls clear; the other extended property map is kept.
	p := &unical.EventParams{
		Title:                    unical.Null[string](),
		Description:              unical.Null[string](),
		Recurrence:               unical.Null[[]string](),
		PublicExtendedProperties: unical.Null[map[string]string](),
		Attendees:                unical.Null[[]unical.Attendee](),
		Visibility:               unical.Null[unical.Visibility](),
		Reminders:                unical.Null[unical.Reminders](),
		EventType:                unical.Some(unical.EventTypeOutOfOffice),
	}
	jsonEqual(t, `{
	  "subject": "", "body": {"contentType": "text", "content": ""}, "recurrence": null,
	  "singleValueExtendedProperties": [
	    {"id": "String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name unicalExtendedPropertyIndex", "value": "{\"private\":{\"b\":\"2\"}}"},
	    {"id": "String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name public:a", "value": ""},
	    {"id": "String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name private:b", "value": "2"}
	  ],
	  "attendees": [], "sensitivity": "normal", "isReminderOn": false, "showAs": "oof"
	}`, mustBody(t, p, current))

	// Moving the start of a series sends the recurrence again with the new
	// startDate, and keeps the end.
	p = &unical.EventParams{Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-20T08:00:00", TimeZone: "Europe/Berlin"})}
	jsonEqual(t, `{
	  "start": {"dateTime": "2026-01-20T08:00:00", "timeZone": "W. Europe Standard Time"},
	  "end": {"dateTime": "2026-01-15T10:30:00", "timeZone": "W. Europe Standard Time"},
	  "recurrence": {"pattern": {"type": "daily", "interval": 1},
	    "range": {"type": "noEnd", "startDate": "2026-01-20", "recurrenceTimeZone": "W. Europe Standard Time"}}
	}`, mustBody(t, p, current))

	// Transparency alone keeps the current event type.
	p = &unical.EventParams{Transparency: unical.Some(unical.TransparencyOpaque)}
	jsonEqual(t, `{"showAs": "busy"}`, mustBody(t, p, current))
}

func TestGraphEventBodyRefuses(t *testing.T) {
	t.Parallel()
	start := unical.Some(unical.EventDateTime{DateTime: "2026-01-15T09:30:00", TimeZone: "Europe/Berlin"})
	tests := []struct {
		p     *unical.EventParams
		field string
	}{
		{&unical.EventParams{Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-15T09:30:00", TimeZone: "Antarctica/Troll"})}, "start.timeZone"},
		{&unical.EventParams{Start: start, End: unical.Some(unical.EventDateTime{DateTime: "2026-01-15T10:30:00", TimeZone: "Mars/Olympus"})}, "end.timeZone"},
		{&unical.EventParams{Start: start, Recurrence: unical.Some([]string{"RRULE:FREQ=HOURLY"})}, "recurrence[0]"},
		{&unical.EventParams{Start: start, Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY", "EXDATE;TZID=Europe/Berlin:20260116T093000"})}, "recurrence[1]"},
		{&unical.EventParams{Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY"})}, "start"},
		{&unical.EventParams{Start: start, GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderGoogleMeet)}, "generateMeetingUrlProvider"},
		{&unical.EventParams{Start: start, EventType: unical.Some(unical.EventTypeFocusTime)}, "eventType"},
		{&unical.EventParams{Start: start, ConferenceData: unical.Some(unical.ConferenceData{ConferenceDetails: &unical.ConferenceDetails{
			CreateRequest: &unical.ConferenceCreateRequest{ConferenceSolutionKey: &unical.ConferenceSolutionKey{Type: "hangoutsMeet"}}}})}, "conferenceData"},
	}
	for _, tt := range tests {
		_, err := graphEventBody(tt.p, nil)
		var e *unical.Error
		if !asError(err, &e) || e.Code != unical.CodeInvalid || e.Field != tt.field {
			t.Errorf("graphEventBody error = %v; want CodeInvalid on %s", err, tt.field)
		}
	}
}

// TestEventRoundTrip writes an event as Graph would receive it, reads back
// what Graph would answer (the same values in the same zone) and compares.
func TestEventRoundTrip(t *testing.T) {
	t.Parallel()
	p := &unical.EventParams{
		Title:                     unical.Some("Review"),
		Start:                     unical.Some(unical.EventDateTime{DateTime: "2026-03-02T15:00:00-05:00", TimeZone: "America/New_York"}),
		End:                       unical.Some(unical.EventDateTime{DateTime: "2026-03-02T16:00:00-05:00", TimeZone: "America/New_York"}),
		Recurrence:                unical.Some([]string{"RRULE:FREQ=MONTHLY;BYDAY=1MO;UNTIL=20261231T045959Z"}),
		PublicExtendedProperties:  unical.Some(map[string]string{"k": "v"}),
		PrivateExtendedProperties: unical.Some(map[string]string{"p": "q"}),
		Visibility:                unical.Some(unical.VisibilityConfidential),
	}
	body, err := graphEventBody(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body)
	var g event
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	g.ID, g.Type = "R1", "seriesMaster"
	g.OriginalStartTimeZone, g.OriginalEndTimeZone = g.Start.TimeZone, g.End.TimeZone
	got, err := eventFromGraph(&g, readOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := &unical.Event{
		ID: "R1", Title: "Review", IsRecurring: true,
		Start:                     &unical.EventDateTime{DateTime: "2026-03-02T15:00:00-05:00", TimeZone: "America/New_York"},
		End:                       &unical.EventDateTime{DateTime: "2026-03-02T16:00:00-05:00", TimeZone: "America/New_York"},
		Recurrence:                []string{"RRULE:FREQ=MONTHLY;BYDAY=1MO;UNTIL=20261231T045959Z"},
		PublicExtendedProperties:  map[string]string{"k": "v"},
		PrivateExtendedProperties: map[string]string{"p": "q"},
		Visibility:                unical.VisibilityConfidential,
		EventType:                 unical.EventTypeDefault,
		Reminders:                 &unical.Reminders{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\nbody: %s", diff, b)
	}
}
