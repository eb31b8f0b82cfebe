package graphtest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/graphtest"
)

const extPropID = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name UnicalID"

func TestEvents_CreateAndTimeZones(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	created := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "Planning",
		"body":    map[string]any{"contentType": "HTML", "content": "<p>Agenda <b>here</b></p>"},
		"start":   map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "W. Europe Standard Time"},
		"end":     map[string]any{"dateTime": "2025-03-10T10:30:00", "timeZone": "W. Europe Standard Time"},
		"attendees": []any{map[string]any{
			"emailAddress": map[string]any{"address": "bob@contoso.test", "name": "Bob"}, "type": "required",
		}},
		"isOnlineMeeting": true, "onlineMeetingProvider": "teamsForBusiness",
		"singleValueExtendedProperties": []any{map[string]any{"id": extPropID, "value": "evt_1"}},
	})
	mustStatus(t, created, http.StatusCreated)
	id := created.str("id")

	got := map[string]any{}
	for _, k := range []string{"subject", "type", "start", "end", "originalStartTimeZone", "isAllDay", "showAs", "sensitivity", "responseStatus", "isOrganizer", "bodyPreview", "onlineMeetingProvider", "seriesMasterId", "recurrence"} {
		got[k] = created.body[k]
	}
	got["attendeeStatus"] = field(created.values0("attendees"), "status.response")
	want := map[string]any{
		"subject": "Planning", "type": "singleInstance",
		"start":                 map[string]any{"dateTime": "2025-03-10T08:00:00.0000000", "timeZone": "UTC"},
		"end":                   map[string]any{"dateTime": "2025-03-10T09:30:00.0000000", "timeZone": "UTC"},
		"originalStartTimeZone": "W. Europe Standard Time", "isAllDay": false, "showAs": "busy", "sensitivity": "normal",
		"responseStatus": map[string]any{"response": "organizer", "time": "0001-01-01T00:00:00Z"},
		"isOrganizer":    true, "bodyPreview": "Agenda here", "onlineMeetingProvider": "teamsForBusiness",
		"seriesMasterId": nil, "recurrence": nil, "attendeeStatus": "none",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created event mismatch (-want +got):\n%s", diff)
	}
	if join, _ := field(created.body, "onlineMeeting.joinUrl").(string); !strings.HasPrefix(join, "https://teams.microsoft.com/") {
		t.Errorf("onlineMeeting.joinUrl = %q, want a Teams URL", join)
	}
	if etag := created.str("@odata.etag"); etag != `W/"`+created.str("changeKey")+`"` {
		t.Errorf("@odata.etag = %q, want W/\"<changeKey>\"", etag)
	}
	if _, ok := created.body["singleValueExtendedProperties"]; ok {
		t.Errorf("extended properties returned without $expand")
	}

	tests := []struct {
		name    string
		headers []string
		want    map[string]any
	}{
		{"PreferWindowsZone", []string{"Prefer", `outlook.timezone="Pacific Standard Time"`}, map[string]any{"dateTime": "2025-03-10T01:00:00.0000000", "timeZone": "Pacific Standard Time"}},
		{"PreferIANAZone", []string{"Prefer", `outlook.timezone="Asia/Tokyo"`}, map[string]any{"dateTime": "2025-03-10T17:00:00.0000000", "timeZone": "Asia/Tokyo"}},
		{"DefaultUTC", nil, map[string]any{"dateTime": "2025-03-10T08:00:00.0000000", "timeZone": "UTC"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, http.MethodGet, "/v1.0/me/events/"+id, nil, tc.headers...)
			mustStatus(t, r, http.StatusOK)
			if diff := cmp.Diff(tc.want, r.body["start"]); diff != "" {
				t.Errorf("start mismatch (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("ExpandExtendedProperty", func(t *testing.T) {
		q := url.Values{"$expand": {"singleValueExtendedProperties($filter=id eq '" + extPropID + "')"}}
		r := f.do(t, http.MethodGet, "/v1.0/me/events/"+id+"?"+q.Encode(), nil)
		mustStatus(t, r, http.StatusOK)
		want := []any{map[string]any{"id": extPropID, "value": "evt_1"}}
		if diff := cmp.Diff(want, r.body["singleValueExtendedProperties"]); diff != "" {
			t.Errorf("singleValueExtendedProperties mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("FilterExtendedProperty", func(t *testing.T) {
		for value, wantN := range map[string]int{"evt_1": 1, "evt_2": 0} {
			q := url.Values{"$filter": {"singleValueExtendedProperties/Any(ep: ep/id eq '" + extPropID + "' and ep/value eq '" + value + "')"}}
			r := f.do(t, http.MethodGet, "/v1.0/me/calendar/events?"+q.Encode(), nil)
			mustStatus(t, r, http.StatusOK)
			if n := len(r.values()); n != wantN {
				t.Errorf("filter value %q matched %d events, want %d", value, n, wantN)
			}
		}
	})
}

// values0 returns the first element of an array property.
func (r response) values0(key string) map[string]any {
	list, _ := r.body[key].([]any)
	if len(list) == 0 {
		return nil
	}
	m, _ := list[0].(map[string]any)
	return m
}

func TestEvents_Errors(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	readOnly, err := f.srv.AddCalendar(f.user, graphtest.Calendar{Name: "Holidays", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	start := map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"}
	end := map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"}
	tests := []struct {
		name       string
		path       string
		body       map[string]any
		wantStatus int
		wantCode   string
	}{
		{"OK", "/v1.0/me/events", map[string]any{"subject": "x", "start": start, "end": end}, http.StatusCreated, ""},
		{"ErrUnknownProperty", "/v1.0/me/events", map[string]any{"subject": "x", "start": start, "end": end, "colour": "red"}, http.StatusBadRequest, "RequestBodyRead"},
		{"ErrUnknownZone", "/v1.0/me/events", map[string]any{"start": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "Mars Standard Time"}, "end": end}, http.StatusBadRequest, "TimeZoneNotSupportedException"},
		{"ErrNoStart", "/v1.0/me/events", map[string]any{"subject": "x", "end": end}, http.StatusBadRequest, "ErrorInvalidRequest"},
		{"ErrAllDayNotMidnight", "/v1.0/me/events", map[string]any{"isAllDay": true, "start": start, "end": end}, http.StatusBadRequest, "ErrorInvalidRequest"},
		{"OKAllDay", "/v1.0/me/events", map[string]any{"isAllDay": true, "start": map[string]any{"dateTime": "2025-03-10T00:00:00", "timeZone": "Pacific Standard Time"}, "end": map[string]any{"dateTime": "2025-03-12T00:00:00", "timeZone": "Pacific Standard Time"}}, http.StatusCreated, ""},
		{"ErrBadShowAs", "/v1.0/me/events", map[string]any{"start": start, "end": end, "showAs": "sleeping"}, http.StatusBadRequest, "RequestBodyRead"},
		{"ErrRecurrenceField", "/v1.0/me/events", map[string]any{"start": start, "end": end, "recurrence": map[string]any{
			"pattern": map[string]any{"type": "weekly", "interval": 1, "daysOfWeek": []string{"monday"}, "dayOfMonth": 3},
			"range":   map[string]any{"type": "noEnd", "startDate": "2025-03-10"},
		}}, http.StatusBadRequest, "ErrorInvalidRequest"},
		{"ErrReadOnlyCalendar", "/v1.0/me/calendars/" + readOnly + "/events", map[string]any{"start": start, "end": end}, http.StatusForbidden, "ErrorAccessDenied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, http.MethodPost, tc.path, tc.body)
			if r.status != tc.wantStatus || r.errorCode() != tc.wantCode {
				t.Errorf("POST %s = %d %q, want %d %q; body %s", tc.path, r.status, r.errorCode(), tc.wantStatus, tc.wantCode, r.raw)
			}
		})
	}
}

func TestEvents_UpdateIfMatchDelete(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	created := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "v1", "transactionId": "tx-1",
		"start": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
		"end":   map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"},
	})
	mustStatus(t, created, http.StatusCreated)
	id, etag := created.str("id"), created.str("@odata.etag")

	retried := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "v1", "transactionId": "tx-1",
		"start": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
		"end":   map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"},
	})
	if retried.str("id") != id {
		t.Errorf("POST with the same transactionId created %q, want the existing %q", retried.str("id"), id)
	}

	f.clock.Advance(time.Second)
	patched := f.do(t, http.MethodPatch, "/v1.0/me/calendar/events/"+id, map[string]any{"subject": "v2"}, "If-Match", etag)
	mustStatus(t, patched, http.StatusOK)
	if patched.str("subject") != "v2" || patched.str("@odata.etag") == etag || patched.str("lastModifiedDateTime") == created.str("lastModifiedDateTime") {
		t.Errorf("PATCH result = %v, want subject v2 and a new etag and lastModifiedDateTime", patched.body)
	}
	stale := f.do(t, http.MethodPatch, "/v1.0/me/events/"+id, map[string]any{"subject": "v3"}, "If-Match", etag)
	if stale.status != http.StatusPreconditionFailed || stale.errorCode() != "ErrorIrresolvableConflict" {
		t.Errorf("PATCH with a stale If-Match = %d %q, want 412 ErrorIrresolvableConflict", stale.status, stale.errorCode())
	}
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/events/"+id, nil, "If-Match", etag), http.StatusPreconditionFailed)
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/events/"+id, nil, "If-Match", patched.str("@odata.etag")), http.StatusNoContent)
	gone := f.do(t, http.MethodGet, "/v1.0/me/events/"+id, nil)
	if gone.status != http.StatusNotFound || gone.errorCode() != "ErrorItemNotFound" {
		t.Errorf("GET after DELETE = %d %q, want 404 ErrorItemNotFound", gone.status, gone.errorCode())
	}
}

func TestEvents_RSVP(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	invite, err := f.srv.AddEvent(f.user, "", `{
		"subject": "Review", "allowNewTimeProposals": false,
		"start": {"dateTime": "2025-03-11T14:00:00", "timeZone": "UTC"},
		"end": {"dateTime": "2025-03-11T15:00:00", "timeZone": "UTC"},
		"organizer": {"emailAddress": {"name": "Bob", "address": "bob@contoso.test"}},
		"responseStatus": {"response": "notResponded", "time": "0001-01-01T00:00:00Z"},
		"attendees": [{"type": "required", "emailAddress": {"address": "ada@contoso.test"}, "status": {"response": "none", "time": "0001-01-01T00:00:00Z"}}]
	}`)
	if err != nil {
		t.Fatal(err)
	}
	own := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"start": map[string]any{"dateTime": "2025-03-11T09:00:00", "timeZone": "UTC"},
		"end":   map[string]any{"dateTime": "2025-03-11T10:00:00", "timeZone": "UTC"},
	}).str("id")
	proposal := map[string]any{"proposedNewTime": map[string]any{
		"start": map[string]any{"dateTime": "2025-03-12T14:00:00", "timeZone": "UTC"},
		"end":   map[string]any{"dateTime": "2025-03-12T15:00:00", "timeZone": "UTC"},
	}}
	tests := []struct {
		name       string
		id, action string
		body       map[string]any
		wantStatus int
		wantResp   string
	}{
		{"TentativelyAccept", invite, "tentativelyAccept", map[string]any{"comment": "maybe", "sendResponse": true}, http.StatusAccepted, "tentativelyAccepted"},
		{"ErrProposalNotAllowed", invite, "decline", proposal, http.StatusBadRequest, "tentativelyAccepted"},
		{"ErrProposalOnAccept", invite, "accept", proposal, http.StatusBadRequest, "tentativelyAccepted"},
		{"Accept", invite, "accept", map[string]any{}, http.StatusAccepted, "accepted"},
		{"Decline", invite, "decline", map[string]any{"sendResponse": false}, http.StatusAccepted, "declined"},
		{"ErrOrganizer", own, "accept", map[string]any{}, http.StatusBadRequest, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, http.MethodPost, "/v1.0/me/events/"+tc.id+"/"+tc.action, tc.body)
			if r.status != tc.wantStatus {
				t.Fatalf("POST %s = %d, want %d; body %s", tc.action, r.status, tc.wantStatus, r.raw)
			}
			if r.status == http.StatusAccepted && len(r.raw) != 0 {
				t.Errorf("202 body = %q, want empty", r.raw)
			}
			if tc.wantResp == "" {
				return
			}
			ev := f.do(t, http.MethodGet, "/v1.0/me/events/"+tc.id, nil)
			if got := field(ev.body, "responseStatus.response"); got != tc.wantResp {
				t.Errorf("responseStatus.response = %v, want %s", got, tc.wantResp)
			}
		})
	}
}

// TestEvents_Cancel: the cancel action is the organizer's (an attendee
// gets 400 and the event stays), answers 202 without a body, and moves the
// event out of the calendar (GET is 404).
func TestEvents_Cancel(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	invite, err := f.srv.AddEvent(f.user, "", `{
		"subject": "Theirs",
		"start": {"dateTime": "2025-03-11T14:00:00", "timeZone": "UTC"},
		"end": {"dateTime": "2025-03-11T15:00:00", "timeZone": "UTC"},
		"organizer": {"emailAddress": {"name": "Bob", "address": "bob@contoso.test"}},
		"responseStatus": {"response": "notResponded", "time": "0001-01-01T00:00:00Z"}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	own := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "Mine",
		"start":   map[string]any{"dateTime": "2025-03-11T09:00:00", "timeZone": "UTC"},
		"end":     map[string]any{"dateTime": "2025-03-11T10:00:00", "timeZone": "UTC"},
	}).str("id")
	type outcome struct {
		Status, After int
		Body          string
	}
	tests := []struct {
		name string
		id   string
		body map[string]any
		want outcome
	}{
		{"ErrAttendee", invite, map[string]any{}, outcome{http.StatusBadRequest, http.StatusOK, ""}},
		{"ErrUnknownParameter", own, map[string]any{"reason": "x"}, outcome{http.StatusBadRequest, http.StatusOK, ""}},
		{"Organizer", own, map[string]any{"Comment": "Cancelled, sorry."}, outcome{http.StatusAccepted, http.StatusNotFound, ""}},
	}
	for _, tc := range tests {
		r := f.do(t, http.MethodPost, "/v1.0/me/events/"+tc.id+"/cancel", tc.body)
		got := outcome{Status: r.status, After: f.do(t, http.MethodGet, "/v1.0/me/events/"+tc.id, nil).status}
		if r.status == http.StatusAccepted {
			got.Body = string(r.raw)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: cancel mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}
