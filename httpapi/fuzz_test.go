package httpapi

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
)

// eventBodySeeds are create and update bodies as clients send them, valid
// and not.
var eventBodySeeds = []string{
	`{"title":"x","start":{"dateTime":"2026-01-05T09:00:00Z"},"end":{"dateTime":"2026-01-05T10:00:00Z"}}`,
	`{"title":"Standup","description":"Daily","location":"Room 1","start":{"dateTime":"2026-01-05T09:00:00","timeZone":"Europe/Berlin"},"end":{"dateTime":"2026-01-05T09:15:00","timeZone":"Europe/Berlin"},"recurrence":["RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR","EXDATE;TZID=Europe/Berlin:20260112T090000"]}`,
	`{"title":"Holiday","isAllDay":true,"start":{"date":"2026-07-01"},"end":{"date":"2026-07-15"},"transparency":"transparent","visibility":"private"}`,
	`{"title":"Review","attendees":[{"email":"bob@example.com","name":"Bob","optional":true},{"email":"carl@example.com","responseStatus":"accepted"}],"reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]}}`,
	`{"title":"Call","generateMeetingUrlProvider":"googleMeet","conferenceData":{"conferenceId":"abc","joinUrl":"https://meet.example/abc","conferenceDetails":{"entryPoints":[{"entryPointType":"video","uri":"https://meet.example/abc"}],"conferenceSolution":{"key":{"type":"hangoutsMeet"},"name":"Meet"}}}}`,
	`{"publicExtendedProperties":{"team":"blue"},"privateExtendedProperties":null,"description":null,"location":""}`,
	`{"title":"x","organizer":{"email":"me@example.com","isSelf":true},"creator":{"email":"me@example.com"},"colorId":"5","customColor":"#FF0000","eventType":"default","myResponseStatus":"tentative"}`,
	`{"isRecurring":false,"isException":true,"isCancelled":false,"originalStart":{"dateTime":"2026-01-12T09:00:00+01:00"},"recurringEventId":"series-1","webLink":"https://example.com"}`,
	`{"id":"e1","title":"read-only id"}`,
	`{"title":"x","bogus":1}`,
	`{"title":5}`,
	`{"start":{"dateTime":"2026-01-05T09:00:00Z","bogus":true}}`,
	`{"title":"x"} {"title":"y"}`,
	`[1,2]`,
	`{"title":"\u00e9\ud83d\ude00","title":null}`,
	``,
}

// FuzzEventBody decodes event create and update bodies as the /v1 events
// endpoints do. Decoding must never panic, every refusal is a CodeInvalid
// *unical.Error, an accepted body has no read-only field, and the decoded
// parameters encode to JSON that decodes to the same parameters.
func FuzzEventBody(f *testing.F) {
	for _, s := range eventBodySeeds {
		f.Add(s)
	}
	// Optional's fields are unexported; comparing them is the point. An
	// empty list under omitempty (entryPoints: []) is written as nothing
	// and reads back as nil, which means the same.
	opts := cmp.Options{cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.EquateEmpty()}
	f.Fuzz(func(t *testing.T, body string) {
		params, err := decodeEventBody(body)
		if err != nil {
			var e *unical.Error
			if !errors.As(err, &e) || e.Code != unical.CodeInvalid {
				t.Fatalf("refusal %#v is not a CodeInvalid *unical.Error", err)
			}
			return
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &fields); err != nil {
			t.Fatalf("accepted a body that is not a JSON object: %v", err)
		}
		for name := range fields {
			if slices.Contains(unical.EventReadOnlyFields, name) {
				t.Fatalf("accepted the read-only field %q", name)
			}
		}
		again, err := json.Marshal(params)
		if err != nil {
			t.Fatalf("decoded parameters do not encode: %v", err)
		}
		back, err := decodeEventBody(string(again))
		if err != nil {
			t.Fatalf("encoded parameters %s do not decode: %v", again, err)
		}
		if diff := cmp.Diff(params, back, opts); diff != "" {
			t.Fatalf("parameters change through %s (-first +second):\n%s", again, diff)
		}
	})
}

func decodeEventBody(body string) (*unical.EventParams, error) {
	r := httptest.NewRequest("POST", "/v1/events/a/c", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	var params unical.EventParams
	if err := decodeBody(httptest.NewRecorder(), r, &params, unical.EventReadOnlyFields); err != nil {
		return nil, err
	}
	return &params, nil
}
