package httpapi_test

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// TestBadRequests sends malformed, unauthorized and foreign requests and
// checks the documented status, code and field of each, and that neither
// the store nor the provider changed.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	g := ids[unical.ProviderGoogle]
	cal := esc("primary/" + googleUser)
	events := "/v1/events/" + g + "/" + cal
	var ev unical.Event
	ts.must(t, "POST", events, map[string]any{"title": "x", "start": map[string]any{"dateTime": "2026-01-05T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-01-05T10:00:00Z"}}).Into(t, &ev)
	eventPath := events + "/" + esc(ev.ID)
	_, keyB := ts.mustCreateApp(t, "other", "")
	var foreign unical.Account
	ts.doKey(t, keyB, "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": davPassword}).Into(t, &foreign)
	created, err := admin.Of(ts.Client).CreateAPIKey(t.Context(), ts.AppID, "")
	if err != nil {
		t.Fatal(err)
	}
	revokedID, revokedKey := created.Key.ID, created.APIKey
	if err := admin.Of(ts.Client).RevokeAPIKey(t.Context(), ts.AppID, revokedID); err != nil {
		t.Fatal(err)
	}
	huge := `{"email":"` + strings.Repeat("a", 1<<20) + `@example.com","providerType":"PROVIDER_C","password":"x"}`
	okEvent := func(extra map[string]any) map[string]any {
		m := map[string]any{"title": "t", "start": map[string]any{"dateTime": "2026-01-05T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-01-05T10:00:00Z"}}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	fb := func(extra map[string]any) map[string]any {
		m := map[string]any{"startDateTime": "2026-01-05T00:00:00Z", "endDateTime": "2026-01-06T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{"primary/" + googleUser}}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	const noKey = "\x00"
	tests := []struct {
		name        string
		key         string // "" uses the app's key; noKey sends none
		method      string
		path        string
		body        any
		contentType string
		wantStatus  int
		wantCode    string
		wantField   string
	}{
		{"NoAPIKey", noKey, "GET", "/v1/endUserAccounts", nil, "", 401, "unauthorized", "x-api-key"},
		{"WrongAPIKey", "uk_0000_secret", "GET", "/v1/endUserAccounts", nil, "", 401, "unauthorized", "x-api-key"},
		{"MalformedAPIKey", "not-a-key", "GET", "/v1/endUserAccounts", nil, "", 401, "unauthorized", "x-api-key"},
		{"RevokedAPIKey", revokedKey, "GET", "/v1/endUserAccounts", nil, "", 401, "unauthorized", "x-api-key"},
		{"TamperedAPIKey", ts.APIKey + "x", "GET", "/v1/endUserAccounts", nil, "", 401, "unauthorized", "x-api-key"},
		{"MalformedJSON", "", "POST", "/v1/endUserAccounts", `{"email":`, "", 400, "invalid_request", ""},
		{"BodyIsArray", "", "POST", "/v1/endUserAccounts", `[1,2]`, "", 400, "invalid_request", ""},
		{"EmptyBody", "", "POST", "/v1/endUserAccounts", ``, "", 400, "invalid_request", ""},
		{"TrailingData", "", "POST", "/v1/endUserAccounts", `{"email":"a@example.com","providerType":"PROVIDER_C","password":"x"} {}`, "", 400, "invalid_request", ""},
		{"UnknownField", "", "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": "x", "nickname": "n"}, "", 400, "invalid_request", "nickname"},
		{"WrongTypeEmail", "", "POST", "/v1/endUserAccounts", `{"email":42,"providerType":"PROVIDER_C","password":"x"}`, "", 400, "invalid_request", "email"},
		{"MissingEmail", "", "POST", "/v1/endUserAccounts", map[string]any{"providerType": "PROVIDER_C", "password": "x"}, "", 400, "invalid_request", "email"},
		{"BadEmail", "", "POST", "/v1/endUserAccounts", map[string]any{"email": "nope", "providerType": "PROVIDER_C", "password": "x"}, "", 400, "invalid_request", "email"},
		{"BadProviderType", "", "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_D", "password": "x"}, "", 400, "invalid_request", "providerType"},
		{"MissingRefreshToken", "", "POST", "/v1/endUserAccounts", map[string]any{"email": googleUser, "providerType": "PROVIDER_A"}, "", 400, "invalid_request", "refreshToken"},
		{"MissingPassword", "", "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C"}, "", 400, "invalid_request", "password"},
		{"RefusedRefreshToken", "", "POST", "/v1/endUserAccounts", map[string]any{"email": "new@example.com", "providerType": "PROVIDER_A", "refreshToken": "revoked"}, "", 400, "invalid_request", "refreshToken"},
		{"RefreshTokenOfOtherUser", "", "POST", "/v1/endUserAccounts", map[string]any{"email": "someone@example.com", "providerType": "PROVIDER_A", "refreshToken": googleToken}, "", 400, "invalid_request", "email"},
		{"RefusedPassword", "", "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": "wrong"}, "", 400, "invalid_request", "password"},
		{"HugeBody", "", "POST", "/v1/endUserAccounts", huge, "", 413, "payload_too_large", ""},
		{"WrongContentType", "", "POST", "/v1/endUserAccounts", `email=a`, "application/x-www-form-urlencoded", 400, "invalid_request", "Content-Type"},
		{"BadStatusFilter", "", "GET", "/v1/endUserAccounts?statusFilter=gone", nil, "", 400, "invalid_request", "statusFilter"},
		{"LimitZero", "", "GET", "/v1/endUserAccounts?limit=0", nil, "", 400, "invalid_request", "limit"},
		{"LimitNotNumber", "", "GET", "/v1/endUserAccounts?limit=ten", nil, "", 400, "invalid_request", "limit"},
		{"LimitTooLarge", "", "GET", "/v1/endUserAccounts?limit=1000", nil, "", 400, "invalid_request", "limit"},
		{"BadPageToken", "", "GET", "/v1/endUserAccounts?pageToken=abc", nil, "", 400, "invalid_request", "pageToken"},
		{"UnknownAccount", "", "GET", "/v1/endUserAccounts/acc_nope", nil, "", 404, "not_found", ""},
		{"ForeignAccount", "", "GET", "/v1/endUserAccounts/" + foreign.ID, nil, "", 404, "not_found", ""},
		{"ForeignAccountDelete", "", "DELETE", "/v1/endUserAccounts/" + foreign.ID, nil, "", 404, "not_found", ""},
		{"ForeignAccountEvents", "", "GET", "/v1/events/" + foreign.ID + "/x", nil, "", 404, "not_found", ""},
		{"ForeignAppConnect", "", "POST", "/v1/basicAuth/connect/app_other/provider_c", map[string]any{"email": davUser, "password": davPassword}, "", 404, "not_found", ""},
		{"UnknownRoute", "", "GET", "/v1/nothing", nil, "", 404, "not_found", ""},
		{"CalendarMissingName", "", "POST", "/v1/calendars/" + g, map[string]any{"hexColor": "#000000"}, "", 400, "invalid_request", "name"},
		{"CalendarReadOnlyID", "", "POST", "/v1/calendars/" + g, map[string]any{"name": "n", "id": "x"}, "", 400, "invalid_request", "id"},
		{"CalendarBadColor", "", "POST", "/v1/calendars/" + g, map[string]any{"name": "n", "hexColor": "red"}, "", 400, "invalid_request", "hexColor"},
		{"CalendarBadTimeZone", "", "POST", "/v1/calendars/" + g, map[string]any{"name": "n", "timeZone": "Mars/Olympus"}, "", 400, "invalid_request", "timeZone"},
		{"CalendarReadOnlyIsPrimary", "", "POST", "/v1/calendars/" + g, map[string]any{"name": "n", "isPrimary": false}, "", 400, "invalid_request", "isPrimary"},
		{"UnknownCalendar", "", "GET", "/v1/calendars/" + g + "/nope", nil, "", 404, "not_found", ""},
		{"CalendarListBadLimit", "", "GET", "/v1/calendars/" + g + "?limit=-1", nil, "", 400, "invalid_request", "limit"},
		{"CalendarListBadPageToken", "", "GET", "/v1/calendars/" + g + "?pageToken=forged", nil, "", 400, "invalid_request", "pageToken"},
		{"EventMissingTitle", "", "POST", events, map[string]any{"start": map[string]any{"dateTime": "2026-01-05T09:00:00Z"}}, "", 400, "invalid_request", "title"},
		{"EventMissingStart", "", "POST", events, map[string]any{"title": "t"}, "", 400, "invalid_request", "start"},
		{"EventBadTimestamp", "", "POST", events, okEvent(map[string]any{"start": map[string]any{"dateTime": "next tuesday"}}), "", 400, "invalid_request", "start.dateTime"},
		{"EventBadZone", "", "POST", events, okEvent(map[string]any{"start": map[string]any{"dateTime": "2026-01-05T09:00:00", "timeZone": "Nowhere/City"}}), "", 400, "invalid_request", "start.timeZone"},
		{"EventEndBeforeStart", "", "POST", events, okEvent(map[string]any{"end": map[string]any{"dateTime": "2026-01-05T08:00:00Z"}}), "", 400, "invalid_request", "end"},
		{"EventStartWrongType", "", "POST", events, okEvent(map[string]any{"start": "2026-01-05T09:00:00Z"}), "", 400, "invalid_request", "start"},
		{"EventBadVisibility", "", "POST", events, okEvent(map[string]any{"visibility": "secret"}), "", 400, "invalid_request", "visibility"},
		{"EventBadTransparency", "", "POST", events, okEvent(map[string]any{"transparency": "glass"}), "", 400, "invalid_request", "transparency"},
		{"EventBadEventType", "", "POST", events, okEvent(map[string]any{"eventType": "party"}), "", 400, "invalid_request", "eventType"},
		{"EventReadOnlyEtag", "", "POST", events, okEvent(map[string]any{"etag": `"1"`}), "", 400, "invalid_request", "etag"},
		{"EventReadOnlyICalUID", "", "POST", events, okEvent(map[string]any{"iCalUid": "x"}), "", 400, "invalid_request", "iCalUid"},
		{"EventMalformedRRULE", "", "POST", events, okEvent(map[string]any{"recurrence": []string{"RRULE:FREQ=SOMETIMES"}}), "", 400, "invalid_request", "recurrence[0]"},
		{"EventSeriesInYearZero", "", "POST", events, okEvent(map[string]any{"start": map[string]any{"dateTime": "0000-01-10T09:00:00Z"}, "end": map[string]any{"dateTime": "0000-01-10T10:00:00Z"}, "recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=MO"}}), "", 400, "invalid_request", "start"},
		{"EventBadAttendee", "", "POST", events, okEvent(map[string]any{"attendees": []any{map[string]any{"email": "bob"}}}), "", 400, "invalid_request", "attendees[0].email"},
		{"EventNullTitle", "", "PUT", eventPath, map[string]any{"title": nil}, "", 400, "invalid_request", "title"},
		{"EventUpdateEndBeforeStart", "", "PUT", eventPath, map[string]any{"end": map[string]any{"dateTime": "2026-01-05T08:00:00Z"}}, "", 400, "invalid_request", "end"},
		{"ListExpandWithoutWindow", "", "GET", events + "?expandRecurrences=true", nil, "", 400, "invalid_request", "startDateTime"},
		{"ListOrderByWithoutExpand", "", "GET", events + "?orderBy=startTime", nil, "", 400, "invalid_request", "orderBy"},
		{"ListBadOrderBy", "", "GET", events + "?expandRecurrences=true&orderBy=title&startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-02-01T00:00:00Z", nil, "", 400, "invalid_request", "orderBy"},
		{"ListBadStart", "", "GET", events + "?startDateTime=yesterday", nil, "", 400, "invalid_request", "startDateTime"},
		{"ListBadBool", "", "GET", events + "?expandRecurrences=maybe", nil, "", 400, "invalid_request", "expandRecurrences"},
		{"ListBadSyncToken", "", "GET", events + "?syncToken=forged", nil, "", 400, "invalid_request", "syncToken"},
		{"ListBadPageToken", "", "GET", events + "?pageToken=forged", nil, "", 400, "invalid_request", "pageToken"},
		{"ListBadMetadataFilters", "", "GET", events + "?metadataFilters=%7Bnope", nil, "", 400, "invalid_request", "metadataFilters"},
		{"ListBadTimeZone", "", "GET", events + "?timeZone=Moon/Base", nil, "", 400, "invalid_request", "timeZone"},
		{"OccurrencesWithoutStart", "", "GET", eventPath + "/occurrences?endDateTime=2026-02-01T00:00:00Z", nil, "", 400, "invalid_request", "startDateTime"},
		{"RSVPBadStatus", "", "POST", eventPath + "/rsvp", map[string]any{"responseStatus": "maybe"}, "", 400, "invalid_request", "responseStatus"},
		{"RSVPMissingStatus", "", "POST", eventPath + "/rsvp", map[string]any{}, "", 400, "invalid_request", "responseStatus"},
		{"RSVPNotAttendee", "", "POST", eventPath + "/rsvp", map[string]any{"responseStatus": "accepted"}, "", 400, "invalid_request", "responseStatus"},
		{"FreeBusyMissingTimeZone", "", "POST", "/v1/freeBusy/" + g, fb(map[string]any{"timeZone": nil}), "", 400, "invalid_request", "timeZone"},
		{"FreeBusyEndBeforeStart", "", "POST", "/v1/freeBusy/" + g, fb(map[string]any{"endDateTime": "2026-01-04T00:00:00Z"}), "", 400, "invalid_request", "endDateTime"},
		{"FreeBusyNoCalendars", "", "POST", "/v1/freeBusy/" + g, fb(map[string]any{"calendarIds": []string{}}), "", 400, "invalid_request", "calendarIds"},
		{"FreeBusyUnknownCalendar", "", "POST", "/v1/freeBusy/" + g, fb(map[string]any{"calendarIds": []string{"nope"}}), "", 404, "not_found", ""},
		{"SubscriptionHTTPURL", "", "POST", "/v1/calendarSubscriptions/" + g, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "http://hooks.example.com"}, "", 400, "invalid_request", "webhookUrl"},
		{"SubscriptionRateLimitZero", "", "POST", "/v1/calendarSubscriptions/" + g, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "https://hooks.example.com", "rateLimit": 0}, "", 400, "invalid_request", "rateLimit"},
		{"SubscriptionRateLimitText", "", "POST", "/v1/calendarSubscriptions/" + g, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "https://hooks.example.com", "rateLimit": "fast"}, "", 400, "invalid_request", "rateLimit"},
		{"SubscriptionUnknownCalendar", "", "POST", "/v1/calendarSubscriptions/" + g, map[string]any{"calendarId": "nope", "webhookUrl": "https://hooks.example.com"}, "", 400, "invalid_request", "calendarId"},
		{"SubscriptionDeleteMissingID", "", "DELETE", "/v1/calendarSubscriptions/" + g, map[string]any{}, "", 400, "invalid_request", "subscriptionId"},
		{"SubscriptionDeleteUnknown", "", "DELETE", "/v1/calendarSubscriptions/" + g, map[string]any{"subscriptionId": "sub_nope"}, "", 404, "not_found", ""},
	}
	if len(tests) < 40 {
		t.Fatalf("only %d bad requests; the suite promises at least 40", len(tests))
	}

	before, err := os.ReadFile(ts.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	writes := map[unical.ProviderType]int64{}
	for pt, p := range ts.Providers {
		writes[pt] = p.Writes()
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := tc.key
			switch key {
			case "":
				key = ts.APIKey
			case noKey:
				key = ""
			}
			var r *response
			if tc.contentType != "" {
				req, _ := http.NewRequestWithContext(t.Context(), tc.method, ts.URL+tc.path, strings.NewReader(tc.body.(string)))
				req.Header.Set("Content-Type", tc.contentType)
				req.Header.Set("x-api-key", key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var buf bytes.Buffer
				buf.ReadFrom(resp.Body)
				r = &response{Status: resp.StatusCode, Header: resp.Header, Body: buf.Bytes()}
			} else {
				r = ts.doKey(t, key, tc.method, tc.path, tc.body)
			}
			var body struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
					Field   string `json:"field"`
				} `json:"error"`
			}
			r.Into(t, &body)
			got := []any{r.Status, body.Error.Code, body.Error.Field}
			want := []any{tc.wantStatus, tc.wantCode, tc.wantField}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s: status, code, field mismatch (-want +got):\n%s\nbody: %s", tc.method, tc.path, diff, r.Body)
			}
			if body.Error.Message == "" {
				t.Error("error message is empty")
			}
		})
	}
	after, err := os.ReadFile(ts.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the bolt file changed during bad requests")
	}
	for pt, p := range ts.Providers {
		if p.Writes() != writes[pt] {
			t.Errorf("provider %s was written to during bad requests", pt)
		}
	}
}
