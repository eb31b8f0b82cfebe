package httpapi_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/strictjson"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/openapitest"
)

// mustVirtualAccount starts a stack with one application and connects a
// VIRTUAL account, whose primary calendar is "primary".
func mustVirtualAccount(t *testing.T) (*apitest.Stack, string) {
	t.Helper()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": roomEmail, "providerType": "VIRTUAL"}).Into(t, &acct)
	return st, acct.ID
}

// TestStrictInput sends each kind of loose input of issue 21: a key in
// another case, an unknown key at any depth, a key given twice, an
// unknown or repeated query parameter. Each is a 400 naming the field or
// parameter, and nothing is written; the same requests spelt right are
// accepted.
func TestStrictInput(t *testing.T) {
	t.Parallel()
	st, acct := mustVirtualAccount(t)
	events := "/v1/events/" + acct + "/primary"
	var ev unical.Event
	st.Must(t, "POST", events, `{"title":"Review","start":{"dateTime":"2026-01-05T09:00:00Z"},"end":{"dateTime":"2026-01-05T10:00:00Z"}}`).Into(t, &ev)
	eventPath := events + "/" + url.PathEscape(ev.ID)
	const start = `"start":{"dateTime":"2026-01-05T09:00:00Z"}`

	refused := []struct {
		name, method, path, body, wantField string
	}{
		{"KeyCase", "POST", events, `{"Title":"x",` + start + `}`, "Title"},
		{"KeyCaseNested", "POST", events, `{"title":"x","start":{"DateTime":"2026-01-05T09:00:00Z"}}`, "start.DateTime"},
		{"UnknownTop", "POST", events, `{"title":"x",` + start + `,"colour":"red"}`, "colour"},
		{"UnknownInStart", "POST", events, `{"title":"x","start":{"dateTime":"2026-01-05T09:00:00Z","tz":"UTC"}}`, "start.tz"},
		{"UnknownInAttendee", "POST", events, `{"title":"x",` + start + `,"attendees":[{"email":"bob@example.com"},{"mail":"carl@example.com"}]}`, "attendees[1].mail"},
		{"UnknownInReminders", "POST", events, `{"title":"x",` + start + `,"reminders":{"useDefault":false,"overides":[{"method":"popup","minutes":10}]}}`, "reminders.overides"},
		{"UnknownInOverride", "POST", events, `{"title":"x",` + start + `,"reminders":{"useDefault":false,"overrides":[{"method":"popup","minute":10}]}}`, "reminders.overrides[0].minute"},
		{"UnknownInConference", "POST", events, `{"title":"x",` + start + `,"conferenceData":{"conferenceDetails":{"entryPoints":[{"url":"https://x"}]}}}`, "conferenceData.conferenceDetails.entryPoints[0].url"},
		{"DuplicateKey", "POST", events, `{"title":"a","title":"b",` + start + `}`, "title"},
		{"DuplicateNestedKey", "POST", events, `{"title":"a","start":{"dateTime":"2026-01-05T09:00:00Z","dateTime":"2026-01-06T09:00:00Z"}}`, "start.dateTime"},
		{"DuplicateExtendedProperty", "POST", events, `{"title":"a",` + start + `,"publicExtendedProperties":{"k":"1","k":"2"}}`, "publicExtendedProperties.k"},
		{"UpdateUnknownNested", "PUT", eventPath, `{"end":{"datetime":"2026-01-05T11:00:00Z"}}`, "end.datetime"},
		{"UpdateKeyCase", "PUT", eventPath, `{"TITLE":"y"}`, "TITLE"},
		{"RSVPKeyCase", "POST", eventPath + "/rsvp", `{"ResponseStatus":"accepted"}`, "ResponseStatus"},
		{"CalendarKeyCase", "POST", "/v1/calendars/" + acct, `{"Name":"x"}`, "Name"},
		{"CalendarDuplicate", "POST", "/v1/calendars/" + acct, `{"name":"x","name":"y"}`, "name"},
		{"AccountKeyCase", "POST", "/v1/endUserAccounts", `{"email":"` + roomEmail + `","providerType":"VIRTUAL","ExternalId":"x"}`, "ExternalId"},
		{"FreeBusyKeyCase", "POST", "/v1/freeBusy/" + acct, `{"startDateTime":"2026-01-05T00:00:00Z","endDateTime":"2026-01-06T00:00:00Z","timezone":"UTC","calendarIds":["primary"]}`, "timezone"},
		{"SubscriptionUnknown", "POST", "/v1/calendarSubscriptions/" + acct, `{"calendarId":"primary","webhookUrl":"https://hooks.example.com","rateLimit":5,"secret":"s"}`, "secret"},
		{"QueryMisspelt", "GET", events + "?serch=x", "", "serch"},
		{"QueryCase", "GET", events + "?expandrecurrences=true&startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-02-01T00:00:00Z", "", "expandrecurrences"},
		{"QueryRepeated", "GET", events + "?limit=1&limit=2", "", "limit"},
		{"QueryOnAccounts", "GET", "/v1/endUserAccounts?Search=room", "", "Search"},
		{"QueryOnGet", "GET", eventPath + "?fields=title", "", "fields"},
		{"QueryOnCreate", "POST", events + "?scope=this", `{"title":"x",` + start + `}`, "scope"},
		{"QueryOnCalendars", "GET", "/v1/calendars/" + acct + "?showHidden=true", "", "showHidden"},
		{"QueryOnOccurrences", "GET", eventPath + "/occurrences?startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-02-01T00:00:00Z&expandRecurrences=true", "", "expandRecurrences"},
	}
	// The data of each listing (its sync token is sealed anew each time).
	listed := func(path string) any { return st.Must(t, "GET", path, nil).Object(t)["data"] }
	before, beforeCals := listed(events), listed("/v1/calendars/"+acct)
	for _, tc := range refused {
		t.Run("Err"+tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := st.Do(t, tc.method, tc.path, body)
			e := r.Error(t)
			if got, want := []any{r.Status, e.Code, e.Field}, []any{http.StatusBadRequest, "invalid_request", tc.wantField}; !cmp.Equal(want, got) {
				t.Errorf("%s %s = %v, want %v\n%s", tc.method, tc.path, got, want, r.Body)
			}
		})
	}
	if d := cmp.Diff(before, listed(events)); d != "" {
		t.Errorf("events changed by refused requests (-before +after):\n%s", d)
	}
	if d := cmp.Diff(beforeCals, listed("/v1/calendars/"+acct)); d != "" {
		t.Errorf("calendars changed by refused requests (-before +after):\n%s", d)
	}

	accepted := []struct {
		name, method, path, body string
	}{
		{"Create", "POST", events, `{"title":"x","start":{"dateTime":"2026-01-05T09:00:00Z","timeZone":"UTC"},"attendees":[{"email":"bob@example.com","optional":true}],"reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":10}]},"publicExtendedProperties":{"K":"1","k":"2"}}`},
		{"Update", "PUT", eventPath + "?scope=this", `{"end":{"dateTime":"2026-01-05T11:00:00Z"}}`},
		{"List", "GET", events + "?search=x&expandRecurrences=true&startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-02-01T00:00:00Z&orderBy=startTime&limit=5", ""},
		{"Occurrences", "GET", eventPath + "/occurrences?startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-02-01T00:00:00Z", ""},
		{"Accounts", "GET", "/v1/endUserAccounts?search=room&statusFilter=active&limit=10", ""},
		{"RSVP", "POST", eventPath + "/rsvp", `{"responseStatus":"accepted"}`},
	}
	// RSVP needs the account among the attendees.
	st.Must(t, "PUT", eventPath, `{"attendees":[{"email":"`+roomEmail+`"}]}`)
	for _, tc := range accepted {
		t.Run("OK"+tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			if r := st.Do(t, tc.method, tc.path, body); r.Status != http.StatusOK {
				t.Errorf("%s %s = %d, want 200\n%s", tc.method, tc.path, r.Status, r.Body)
			}
		})
	}
}

// TestStrictInputGo decodes unical.EventParams and unical.CalendarParams
// with encoding/json, as a Go caller does: the same keys are refused as
// over HTTP, with a *unical.Error naming the path, and a fetched event's
// read-only fields are taken.
func TestStrictInputGo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, wantField string
	}{
		{"OK", `{"id":"e1","etag":"\"1\"","createdAt":"x","updatedAt":"y","iCalUid":"u","title":"t","start":{"dateTime":"2026-01-05T09:00:00Z"}}`, ""},
		{"ErrCase", `{"Title":"t"}`, "Title"},
		{"ErrNested", `{"start":{"tz":"UTC"}}`, "start.tz"},
		{"ErrAttendee", `{"attendees":[{"mail":"a@example.com"}]}`, "attendees[0].mail"},
		{"ErrDuplicate", `{"title":"a","title":"b"}`, "title"},
	} {
		var p unical.EventParams
		err := json.Unmarshal([]byte(tc.in), &p)
		if tc.wantField == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if unical.ErrorCode(err) != unical.CodeInvalid || fieldOf(err) != tc.wantField {
			t.Errorf("%s: json.Unmarshal(%s) = %v, want CodeInvalid naming %s", tc.name, tc.in, err, tc.wantField)
		}
	}
	var c unical.CalendarParams
	if err := json.Unmarshal([]byte(`{"id":"c","isPrimary":true,"name":"n","hexcolor":"#000000"}`), &c); fieldOf(err) != "hexcolor" {
		t.Errorf("CalendarParams with hexcolor = %v, want CodeInvalid naming hexcolor", err)
	}
}

func fieldOf(err error) string {
	var e *unical.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// TestOpenAPIQueryParameters holds the document to the query parameters
// each route takes: every one the server accepts is declared on its
// operation, and none that it refuses.
func TestOpenAPIQueryParameters(t *testing.T) {
	t.Parallel()
	doc, err := openapitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var names []string
			for _, p := range slices.Concat(item.Parameters, op.Parameters) {
				if p.Value.In == "query" {
					names = append(names, p.Value.Name)
				}
			}
			documented[method+" "+parameterName.ReplaceAllString(path, "{}")] = names
		}
	}
	for _, pattern := range httpapi.MountedRoutes(httpapi.Config{}) {
		if slices.Contains(httpapi.UncheckedQueryRoutes, pattern) {
			continue
		}
		key := parameterName.ReplaceAllString(pattern, "{}")
		want, ok := documented[key]
		if !ok {
			continue // TestOpenAPIDocumentsEveryRoute reports it
		}
		got := slices.Clone(httpapi.QueryParameters(pattern))
		sort.Strings(want)
		sort.Strings(got)
		if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: documented (-) and accepted (+) query parameters differ:\n%s", pattern, d)
		}
	}
}

// TestOpenAPIDocumentHasNoDuplicateKeys reads the document as the server
// reads a body: a key given twice would be lost by every JSON reader but
// one.
func TestOpenAPIDocumentHasNoDuplicateKeys(t *testing.T) {
	t.Parallel()
	var doc any
	if err := strictjson.Unmarshal(httpapi.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
}
