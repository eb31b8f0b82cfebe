package openapitest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/unical/unical/internal/testkit/openapitest"
)

// recordingTB keeps the failures Handler reports instead of failing.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

const account = `{"id":"acc_1","createdAt":"2026-01-05T09:00:00Z","updatedAt":"2026-01-05T09:00:00Z","email":"ada@example.com",` +
	`"externalId":"","authorizedScopes":[],"providerAccountId":null,"providerId":"provider_c","applicationId":"app_1",` +
	`"status":"ACTIVE","providerType":"PROVIDER_C"}`

const notFound = `{"error":{"code":"not_found","message":"No such endpoint."}}`

// TestHandlerReportsMismatches checks that each kind of mismatch between
// an exchange and the document is reported, and a matching one is not.
func TestHandlerReportsMismatches(t *testing.T) {
	tests := []struct {
		name         string
		method, path string
		body         string
		status       int
		header       map[string]string
		answer       string
		wantError    string // "" for none
	}{
		{"Matches", "GET", "/v1/endUserAccounts/acc_1", "", 200, nil, account, ""},
		{"EscapedSlashInID", "GET", "/v1/calendars/acc_1/primary%2Fada", "", 404, nil, notFound, ""},
		{"UndocumentedField", "GET", "/v1/endUserAccounts/acc_1", "", 200, nil, strings.Replace(account, `"id"`, `"secret":"x","id"`, 1), "secret"},
		{"WrongType", "GET", "/v1/endUserAccounts/acc_1", "", 200, nil, strings.Replace(account, `"externalId":""`, `"externalId":7`, 1), "externalId"},
		{"UndocumentedStatus", "GET", "/v1/endUserAccounts/acc_1", "", 418, nil, notFound, "status is not supported"},
		{"ErrorBodyShape", "GET", "/v1/endUserAccounts/acc_1", "", 404, nil, `{"message":"no"}`, "error"},
		{"RateLimitedWithoutRetryAfter", "GET", "/v1/endUserAccounts/acc_1", "", 429, nil, `{"error":{"code":"rate_limited","message":"Slow."}}`, "Retry-After"},
		{"RefusedRequestAccepted", "POST", "/v1/freeBusy/acc_1", `{"calendarIds":"primary"}`, 200, nil, `[]`, "refuses the request"},
		{"RefusedRequestRefused", "POST", "/v1/freeBusy/acc_1", `{"calendarIds":"primary"}`, 400, nil, `{"error":{"code":"invalid_request","message":"Bad.","field":"calendarIds"}}`, ""},
		{"UnknownPathAnswered", "GET", "/v1/nothing", "", 200, nil, account, "want 404"},
		{"UnknownPath404", "GET", "/v1/nothing", "", 404, nil, notFound, ""},
		{"OtherMethodWrongAllow", "PATCH", "/v1/calendars/acc_1", "", 405, map[string]string{"Allow": "GET"}, `{"error":{"code":"method_not_allowed","message":"No."}}`, "Allow"},
		{"OtherMethod405", "PATCH", "/v1/calendars/acc_1", "", 405, map[string]string{"Allow": "GET, POST"}, `{"error":{"code":"method_not_allowed","message":"No."}}`, ""},
		{"MissingSegmentIsNotAParameter", "PUT", "/v1/calendars/acc_1", "", 200, nil, `{}`, "want 405"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body) // a body is checked only once the server read it
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.answer)
			})
			rec := &recordingTB{TB: t}
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			openapitest.Handler(rec, server).ServeHTTP(httptest.NewRecorder(), req)
			got := strings.Join(rec.errors, "\n")
			switch {
			case tc.wantError == "" && got != "":
				t.Errorf("reported a matching exchange:\n%s", got)
			case tc.wantError != "" && !strings.Contains(got, tc.wantError):
				t.Errorf("reported %q, want a report naming %q", got, tc.wantError)
			}
		})
	}
}

// TestCheckWebhook checks that webhook bodies are held to the document's
// webhooks section, by their eventType.
func TestCheckWebhook(t *testing.T) {
	const sub = `"timestamp":"2026-01-05T09:00:00.000Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"primary"`
	tests := []struct {
		name      string
		body      string
		wantError string // "" for none
	}{
		{"Changed", `{"eventType":"calendar.event.changed",` + sub + `}`, ""},
		{"ChangedWithData", `{"eventType":"calendar.event.changed",` + sub + `,"data":{"events":[` +
			`{"changeType":"deleted","eventId":"e2","event":{"id":"e2","isCancelled":true}},` +
			`{"changeType":"updated","eventId":"e3","truncated":true}],"truncated":true}}`, ""},
		{"Unknown", `{"eventType":"calendar.event.unknown",` + sub + `}`, ""},
		{"AccountUpdated", `{"eventType":"enduseraccount.updated","timestamp":"2026-01-05T09:00:00.000Z","endUserAccountId":"acc_1","endUserAccount":` + account + `}`, ""},
		{"AccountWithoutAccount", `{"eventType":"enduseraccount.deleted","timestamp":"2026-01-05T09:00:00.000Z","endUserAccountId":"acc_1"}`, "endUserAccount"},
		{"NoSuchWebhook", `{"eventType":"calendar.event.moved",` + sub + `}`, "no webhook"},
		{"UndocumentedField", `{"eventType":"calendar.event.unknown",` + sub + `,"extra":1}`, "extra"},
		{"ChangedMissingCalendar", `{"eventType":"calendar.event.changed","timestamp":"2026-01-05T09:00:00.000Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1"}`, "calendarId"},
		{"BadChangeType", `{"eventType":"calendar.event.changed",` + sub + `,"data":{"events":[{"changeType":"moved","eventId":"e1"}]}}`, "changeType"},
		{"NotJSON", `{`, "not JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := openapitest.CheckWebhook([]byte(tc.body))
			switch {
			case tc.wantError == "" && err != nil:
				t.Errorf("CheckWebhook() = %v, want nil", err)
			case tc.wantError != "" && (err == nil || !strings.Contains(err.Error(), tc.wantError)):
				t.Errorf("CheckWebhook() = %v, want an error naming %q", err, tc.wantError)
			}
		})
	}
}

// TestRequestDefaults checks that a default is found where generators
// turn it into a required request field, and only there.
func TestRequestDefaults(t *testing.T) {
	const head = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},`
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"BodyProperty", head + `"paths":{"/a":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},` +
			`"components":{"schemas":{"A":{"type":"object","properties":{"flag":{"type":"boolean","default":false}}}}}}`,
			[]string{"#/components/schemas/A/properties/flag"}},
		{"PropertyNamedDefault", head + `"paths":{"/a":{"post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"default":{"type":"string"}}}}}}}}}}`, nil},
		{"QueryParameter", head + `"paths":{"/a":{"get":{"parameters":[{"name":"q","in":"query","schema":{"type":"boolean","default":true}}]}}}}`, nil},
		{"Response", head + `"paths":{"/a":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"type":"boolean","default":true}}}}}}}}}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := openapitest.RequestDefaults([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("RequestDefaults() = %q, want %q", got, tc.want)
			}
		})
	}
}
