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

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		fault          graphtest.Fault
		wantStatus     []int // statuses of three GET /me/calendars
		wantCode       string
		wantRetryAfter string
	}{
		{"Throttle", graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Count: 2, Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second},
			[]int{429, 429, 200}, "TooManyRequests", "3"},
		{"Unavailable", graphtest.Fault{PathPrefix: "/v1.0/", Status: http.StatusServiceUnavailable, RetryAfter: 1500 * time.Millisecond},
			[]int{503, 200, 200}, "serviceNotAvailable", "2"},
		{"ThrottleFractional", graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Status: http.StatusTooManyRequests, RetryAfter: time.Hour, RetryAfterHeader: "2.128"},
			[]int{429, 200, 200}, "TooManyRequests", "2.128"},
		{"GatewayTimeout", graphtest.Fault{PathPrefix: "/v1.0/me", Method: http.MethodGet, Status: http.StatusGatewayTimeout},
			[]int{504, 200, 200}, "GatewayTimeout", ""},
		{"OtherPathUnaffected", graphtest.Fault{PathPrefix: "/v1.0/me/events", Status: http.StatusTooManyRequests},
			[]int{200, 200, 200}, "", ""},
		{"OtherMethodUnaffected", graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Method: http.MethodPost, Status: http.StatusTooManyRequests},
			[]int{200, 200, 200}, "", ""},
		{"DelayOnly", graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Delay: 10 * time.Millisecond},
			[]int{200, 200, 200}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, graphtest.Options{})
			f.srv.InjectFault(tc.fault)
			var statuses []int
			var first response
			for i := range 3 {
				r := f.do(t, http.MethodGet, "/v1.0/me/calendars", nil)
				if i == 0 {
					first = r
				}
				statuses = append(statuses, r.status)
			}
			if diff := cmp.Diff(tc.wantStatus, statuses); diff != "" {
				t.Errorf("statuses mismatch (-want +got):\n%s", diff)
			}
			if first.errorCode() != tc.wantCode || first.header.Get("Retry-After") != tc.wantRetryAfter {
				t.Errorf("first answer code %q Retry-After %q, want %q %q", first.errorCode(), first.header.Get("Retry-After"), tc.wantCode, tc.wantRetryAfter)
			}
			if tc.wantCode == "TooManyRequests" {
				want := map[string]any{"code": "429", "message": "Please retry after", "status": "429"}
				inner := field(first.body, "error.innerError").(map[string]any)
				got := map[string]any{"code": inner["code"], "message": inner["message"], "status": inner["status"]}
				if diff := cmp.Diff(want, got); diff != "" || field(first.body, "error.message") != "Please retry again later." {
					t.Errorf("429 body mismatch (-want +got):\n%s\n%s", diff, first.raw)
				}
			}
			if n := f.srv.RequestCount("/v1.0/me/calendars"); n != 3 {
				t.Errorf("RequestCount = %d, want 3 (faulted requests count)", n)
			}
		})
	}
	t.Run("TokenEndpoint", func(t *testing.T) {
		t.Parallel()
		f := mustSetup(t, graphtest.Options{})
		f.srv.Throttle("/"+f.srv.Tenant()+"/oauth2/v2.0/token", 1, time.Second)
		status, body := tokenPost(t, f.srv, url.Values{"grant_type": {"refresh_token"}, "client_id": {"app"}})
		if status != http.StatusTooManyRequests || body["error"] != "temporarily_unavailable" {
			t.Errorf("throttled token request = %d %v, want 429 temporarily_unavailable", status, body)
		}
	})
}

func TestRequestCount(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	f.do(t, http.MethodGet, "/v1.0/me", nil)
	f.do(t, http.MethodGet, "/v1.0/me/calendars", nil)
	f.do(t, http.MethodGet, "/v1.0/me/calendars?$top=1", nil)
	got := map[string]int{
		"/v1.0/me":           f.srv.RequestCount("/v1.0/me"),
		"/v1.0/me/calendars": f.srv.RequestCount("/v1.0/me/calendars"),
		"/v1.0/me/events":    f.srv.RequestCount("/v1.0/me/events"),
	}
	want := map[string]int{"/v1.0/me": 3, "/v1.0/me/calendars": 2, "/v1.0/me/events": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RequestCount mismatch (-want +got):\n%s", diff)
	}
}

func TestGetSchedule(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	seed := func(subject, start, end, showAs, sensitivity string) {
		if _, err := f.srv.AddEvent(f.user, "", `{"subject":"`+subject+`","showAs":"`+showAs+`","sensitivity":"`+sensitivity+`",
			"location":{"displayName":"Room 1"},
			"start":{"dateTime":"`+start+`","timeZone":"Pacific Standard Time"},"end":{"dateTime":"`+end+`","timeZone":"Pacific Standard Time"}}`); err != nil {
			t.Fatal(err)
		}
	}
	seed("Lunch", "2025-03-10T12:00:00", "2025-03-10T14:00:00", "busy", "normal")
	seed("Maybe", "2025-03-10T13:00:00", "2025-03-10T15:00:00", "tentative", "normal")
	seed("Secret", "2025-03-10T16:00:00", "2025-03-10T17:00:00", "oof", "private")
	seed("Free", "2025-03-10T09:00:00", "2025-03-10T10:00:00", "free", "normal")
	r := f.do(t, http.MethodPost, "/v1.0/me/calendar/getSchedule", map[string]any{
		"schedules":                []string{"ada@contoso.test", "nobody@contoso.test"},
		"startTime":                map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "Pacific Standard Time"},
		"endTime":                  map[string]any{"dateTime": "2025-03-10T18:00:00", "timeZone": "Pacific Standard Time"},
		"availabilityViewInterval": 60,
	}, "Prefer", `outlook.timezone="Pacific Standard Time"`)
	mustStatus(t, r, http.StatusOK)
	vals := r.values()
	if len(vals) != 2 {
		t.Fatalf("getSchedule returned %d schedules, want 2", len(vals))
	}
	pst := func(s string) map[string]any {
		return map[string]any{"dateTime": s, "timeZone": "Pacific Standard Time"}
	}
	want := map[string]any{
		"scheduleId":       "ada@contoso.test",
		"availabilityView": "000221030",
		"scheduleItems": []any{
			map[string]any{"isPrivate": false, "status": "busy", "subject": "Lunch", "location": "Room 1", "start": pst("2025-03-10T12:00:00.0000000"), "end": pst("2025-03-10T14:00:00.0000000")},
			map[string]any{"isPrivate": false, "status": "tentative", "subject": "Maybe", "location": "Room 1", "start": pst("2025-03-10T13:00:00.0000000"), "end": pst("2025-03-10T15:00:00.0000000")},
			map[string]any{"isPrivate": true, "status": "oof", "start": pst("2025-03-10T16:00:00.0000000"), "end": pst("2025-03-10T17:00:00.0000000")},
		},
		"workingHours": map[string]any{
			"daysOfWeek": []any{"monday", "tuesday", "wednesday", "thursday", "friday"},
			"startTime":  "08:00:00.0000000", "endTime": "17:00:00.0000000",
			"timeZone": map[string]any{"name": "W. Europe Standard Time"},
		},
	}
	if diff := cmp.Diff(want, vals[0]); diff != "" {
		t.Errorf("schedule mismatch (-want +got):\n%s", diff)
	}
	if e, _ := vals[1]["error"].(map[string]any); e == nil || !strings.Contains(vals[1]["scheduleId"].(string), "nobody") {
		t.Errorf("unknown address = %v, want an entry with error", vals[1])
	}
	bad := f.do(t, http.MethodPost, "/v1.0/me/calendar/getSchedule", map[string]any{
		"schedules": []string{"ada@contoso.test"}, "availabilityViewInterval": 4,
		"startTime": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
		"endTime":   map[string]any{"dateTime": "2025-03-10T18:00:00", "timeZone": "UTC"},
	})
	if bad.status != http.StatusBadRequest {
		t.Errorf("availabilityViewInterval 4 = %d, want 400", bad.status)
	}

	// The documented limits: a window of less than 62 days, at most 20
	// addresses.
	many := make([]string, 21)
	for i := range many {
		many[i] = "ada@contoso.test"
	}
	for _, tc := range []struct {
		name      string
		schedules []string
		end       string
		wantCode  string
	}{
		{"61Days", []string{"ada@contoso.test"}, "2025-05-10T00:00:00", ""},
		{"ErrWindow62Days", []string{"ada@contoso.test"}, "2025-05-11T00:00:00", "ErrorTimeIntervalTooBig"},
		{"20Addresses", many[:20], "2025-03-11T00:00:00", ""},
		{"ErrAddresses21", many, "2025-03-11T00:00:00", "ErrorMailboxDataArrayTooBig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, http.MethodPost, "/v1.0/me/calendar/getSchedule", map[string]any{
				"schedules": tc.schedules,
				"startTime": map[string]any{"dateTime": "2025-03-10T00:00:00", "timeZone": "UTC"},
				"endTime":   map[string]any{"dateTime": tc.end, "timeZone": "UTC"},
			})
			if tc.wantCode == "" {
				mustStatus(t, r, http.StatusOK)
				return
			}
			if r.status != http.StatusBadRequest || r.errorCode() != tc.wantCode {
				t.Errorf("getSchedule = %d %q, want 400 %q", r.status, r.errorCode(), tc.wantCode)
			}
		})
	}
}
