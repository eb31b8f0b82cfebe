package graphtest_test

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/graphtest"
)

// receiver is a loopback webhook endpoint. By default it answers the
// validation handshake as documented and accepts notifications with 202.
type receiver struct {
	srv *httptest.Server
	// validate answers a validation request; nil echoes the token.
	validate func(w http.ResponseWriter, r *http.Request, token string)
	// status answers notifications; 0 means 202.
	status int

	mu          sync.Mutex
	validations []http.Header
	notes       chan map[string]any
}

func newReceiver(tb testing.TB, tls bool) *receiver {
	tb.Helper()
	rc := &receiver{notes: make(chan map[string]any, 100)}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if token := r.URL.Query().Get("validationToken"); token != "" {
			rc.mu.Lock()
			rc.validations = append(rc.validations, r.Header.Clone())
			validate := rc.validate
			rc.mu.Unlock()
			if validate != nil {
				validate(w, r, token)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, token)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		body["path"] = r.URL.Path
		rc.notes <- body
		rc.mu.Lock()
		status := rc.status
		rc.mu.Unlock()
		if status == 0 {
			status = http.StatusAccepted
		}
		w.WriteHeader(status)
	})
	rc.srv = httptest.NewUnstartedServer(h)
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // Closed keep-alive connections are not errors here.
	if tls {
		rc.srv.StartTLS()
	} else {
		rc.srv.Start()
	}
	tb.Cleanup(rc.srv.Close)
	return rc
}

// next returns the next notification body (with "path" added), failing
// after a generous bound so that a broken fake cannot hang the test.
func (rc *receiver) next(tb testing.TB) map[string]any {
	tb.Helper()
	select {
	case n := <-rc.notes:
		return n
	case <-time.After(10 * time.Second):
		tb.Fatal("no notification arrived")
	case <-tb.Context().Done():
		tb.Fatal(tb.Context().Err())
	}
	return nil
}

func subscriptionBody(rc *receiver, expires time.Time, extra ...any) map[string]any {
	b := map[string]any{
		"changeType":               "created,updated,deleted",
		"notificationUrl":          rc.srv.URL + "/notify",
		"lifecycleNotificationUrl": rc.srv.URL + "/lifecycle",
		"resource":                 "me/events",
		"expirationDateTime":       expires.Format(time.RFC3339),
		"clientState":              "secretClientValue",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(b, extra[i].(string))
		} else {
			b[extra[i].(string)] = extra[i+1]
		}
	}
	return b
}

func TestSubscriptions_Validation(t *testing.T) {
	t.Parallel()
	expires := epoch.Add(4230 * time.Minute)
	tests := []struct {
		name            string
		opts            graphtest.Options
		validate        func(w http.ResponseWriter, r *http.Request, token string)
		tls             bool
		extra           []any
		wantStatus      int
		wantCode        string
		wantValidations int // -1: not checked
	}{
		{"OK", graphtest.Options{}, nil, true, nil, http.StatusCreated, "", 2},
		{"OKHTTPWhenAllowed", graphtest.Options{AllowHTTPNotificationURLs: true}, nil, false, nil, http.StatusCreated, "", 2},
		{"ErrHTTPRefused", graphtest.Options{}, nil, false, nil, http.StatusBadRequest, "InvalidRequest", 0},
		{"ErrNotLoopback", graphtest.Options{}, nil, true, []any{"notificationUrl", "https://example.com/notify"}, http.StatusBadRequest, "InvalidRequest", 0},
		{"ErrStatus", graphtest.Options{}, func(w http.ResponseWriter, _ *http.Request, _ string) {
			w.WriteHeader(http.StatusInternalServerError)
		}, true, nil, http.StatusBadRequest, "InvalidRequest", 1},
		{"ErrEncodedToken", graphtest.Options{}, func(w http.ResponseWriter, _ *http.Request, token string) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, url.QueryEscape(token))
		}, true, nil, http.StatusBadRequest, "InvalidRequest", 1},
		{"ErrContentType", graphtest.Options{}, func(w http.ResponseWriter, _ *http.Request, token string) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, token)
		}, true, nil, http.StatusBadRequest, "InvalidRequest", 1},
		{"ErrTimeout", graphtest.Options{ValidationTimeout: time.Second}, func(_ http.ResponseWriter, r *http.Request, _ string) {
			<-r.Context().Done()
		}, true, nil, http.StatusBadRequest, "InvalidRequest", -1},
		{"ErrLifecycleURLFails", graphtest.Options{}, func(w http.ResponseWriter, r *http.Request, token string) {
			if r.URL.Path == "/lifecycle" {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, token)
		}, true, nil, http.StatusBadRequest, "InvalidRequest", 2},
		{"ErrTooLong", graphtest.Options{}, nil, true, []any{"expirationDateTime", epoch.Add(4231 * time.Minute).Format(time.RFC3339)}, http.StatusBadRequest, "ExtensionError", 0},
		{"ErrPast", graphtest.Options{}, nil, true, []any{"expirationDateTime", epoch.Add(-time.Minute).Format(time.RFC3339)}, http.StatusBadRequest, "ExtensionError", 0},
		{"ErrResource", graphtest.Options{}, nil, true, []any{"resource", "me/messages"}, http.StatusBadRequest, "InvalidRequest", 0},
		{"ErrChangeType", graphtest.Options{}, nil, true, []any{"changeType", "created,moved"}, http.StatusBadRequest, "InvalidRequest", 0},
		{"ErrClientState", graphtest.Options{}, nil, true, []any{"clientState", strings.Repeat("x", 129)}, http.StatusBadRequest, "InvalidRequest", 0},
		{"ErrMissingExpiration", graphtest.Options{}, nil, true, []any{"expirationDateTime", nil}, http.StatusBadRequest, "InvalidRequest", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, tc.opts)
			rc := newReceiver(t, tc.tls)
			rc.validate = tc.validate
			r := f.do(t, http.MethodPost, "/v1.0/subscriptions", subscriptionBody(rc, expires, tc.extra...))
			if r.status != tc.wantStatus || r.errorCode() != tc.wantCode {
				t.Fatalf("POST /subscriptions = %d %q, want %d %q; body %s", r.status, r.errorCode(), tc.wantStatus, tc.wantCode, r.raw)
			}
			rc.mu.Lock()
			validations := rc.validations
			rc.mu.Unlock()
			if tc.wantValidations >= 0 && len(validations) != tc.wantValidations {
				t.Errorf("validation requests = %d, want %d", len(validations), tc.wantValidations)
			}
			for _, h := range validations {
				if ct := h.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
					t.Errorf("validation Content-Type = %q, want text/plain; charset=utf-8", ct)
				}
			}
			if tc.wantStatus != http.StatusCreated {
				if len(f.srv.Subscriptions()) != 0 {
					t.Errorf("a failed create left a subscription")
				}
				return
			}
			got := map[string]any{}
			for _, k := range []string{"resource", "changeType", "clientState", "notificationUrl", "lifecycleNotificationUrl", "expirationDateTime", "applicationId", "creatorId", "latestSupportedTlsVersion"} {
				got[k] = r.body[k]
			}
			want := map[string]any{
				"resource": "me/events", "changeType": "created,updated,deleted", "clientState": "secretClientValue",
				"notificationUrl": rc.srv.URL + "/notify", "lifecycleNotificationUrl": rc.srv.URL + "/lifecycle",
				"expirationDateTime": "2025-03-06T06:30:00.0000000Z", "applicationId": "app", "creatorId": f.user,
				"latestSupportedTlsVersion": "v1_2",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("subscription mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubscriptions_Notifications(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	rc := newReceiver(t, true)
	sub := f.do(t, http.MethodPost, "/v1.0/subscriptions", subscriptionBody(rc, epoch.Add(24*time.Hour)))
	mustStatus(t, sub, http.StatusCreated)
	subID := sub.str("id")
	onlyDeletes := f.do(t, http.MethodPost, "/v1.0/subscriptions", subscriptionBody(newReceiverFor(t, rc), epoch.Add(24*time.Hour), "changeType", "deleted", "resource", "/me/calendar/events"))
	mustStatus(t, onlyDeletes, http.StatusCreated)

	ev := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "x", "start": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
		"end": map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"},
	})
	id := ev.str("id")
	upd := f.do(t, http.MethodPatch, "/v1.0/me/events/"+id, map[string]any{"subject": "y"})
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/events/"+id, nil), http.StatusNoContent)

	got := map[string]string{}
	etags := map[string]any{}
	for range 4 {
		body := rc.next(t)
		list, _ := body["value"].([]any)
		if len(list) != 1 {
			t.Fatalf("notification body %v, want a value array of one", body)
		}
		n := list[0].(map[string]any)
		if n["subscriptionId"] == subID {
			got[n["changeType"].(string)] = body["path"].(string)
		} else {
			got["onlyDeletes:"+n["changeType"].(string)] = body["path"].(string)
		}
		etags[n["changeType"].(string)] = n["resourceData"].(map[string]any)["@odata.etag"]
		want := map[string]any{
			"clientState": "secretClientValue", "tenantId": f.srv.Tenant(),
			"resource":                       "Users/" + f.user + "/Events/" + id,
			"subscriptionExpirationDateTime": "2025-03-04T08:00:00.0000000Z",
			"resourceData.id":                id, "resourceData.@odata.type": "#Microsoft.Graph.Event",
			"resourceData.@odata.id": "Users/" + f.user + "/Events/" + id,
		}
		gotN := map[string]any{}
		for k := range want {
			if rd, ok := strings.CutPrefix(k, "resourceData."); ok {
				gotN[k] = n["resourceData"].(map[string]any)[rd]
			} else {
				gotN[k] = n[k]
			}
		}
		if diff := cmp.Diff(want, gotN); diff != "" {
			t.Errorf("notification %v mismatch (-want +got):\n%s", n["changeType"], diff)
		}
	}
	wantPaths := map[string]string{"created": "/notify", "updated": "/notify", "deleted": "/notify", "onlyDeletes:deleted": "/notify"}
	if diff := cmp.Diff(wantPaths, got); diff != "" {
		t.Errorf("notifications mismatch (-want +got):\n%s", diff)
	}
	if etags["updated"] != upd.str("@odata.etag") {
		t.Errorf("updated notification etag = %v, want %s", etags["updated"], upd.str("@odata.etag"))
	}

	// After DELETE nothing more is sent.
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/subscriptions/"+subID, nil), http.StatusNoContent)
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/subscriptions/"+onlyDeletes.str("id"), nil), http.StatusNoContent)
	mustStatus(t, f.do(t, http.MethodGet, "/v1.0/subscriptions/"+subID, nil), http.StatusNotFound)
	// A delivery is recorded after its receiver answered, so let the last
	// one of the step above settle before counting.
	if err := f.srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := len(f.srv.Deliveries())
	f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "z", "start": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
		"end": map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"},
	})
	if err := f.srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if after := len(f.srv.Deliveries()); after != before || len(rc.notes) != 0 {
		t.Errorf("deliveries after DELETE: %d new, %d received; want none", after-before, len(rc.notes))
	}
}

// newReceiverFor returns rc itself: both subscriptions may share an
// endpoint, as Graph allows.
func newReceiverFor(_ testing.TB, rc *receiver) *receiver { return rc }

func TestSubscriptions_RenewExpireRetry(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	rc := newReceiver(t, true)
	sub := f.do(t, http.MethodPost, "/v1.0/subscriptions", subscriptionBody(rc, epoch.Add(time.Hour)))
	mustStatus(t, sub, http.StatusCreated)
	id := sub.str("id")

	tests := []struct {
		name       string
		expires    time.Time
		wantStatus int
		wantCode   string
	}{
		{"ErrTooLong", epoch.Add(4231 * time.Minute), http.StatusBadRequest, "ExtensionError"},
		{"OK", epoch.Add(48 * time.Hour), http.StatusOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, http.MethodPatch, "/v1.0/subscriptions/"+id, map[string]any{"expirationDateTime": tc.expires.Format(time.RFC3339)})
			if r.status != tc.wantStatus || r.errorCode() != tc.wantCode {
				t.Fatalf("PATCH = %d %q, want %d %q; body %s", r.status, r.errorCode(), tc.wantStatus, tc.wantCode, r.raw)
			}
			if tc.wantStatus == http.StatusOK && r.str("expirationDateTime") != "2025-03-05T08:00:00.0000000Z" {
				t.Errorf("renewed expirationDateTime = %s", r.str("expirationDateTime"))
			}
		})
	}

	// A receiver that fails gets the notification again, a bounded number
	// of times.
	rc.mu.Lock()
	rc.status = http.StatusInternalServerError
	rc.mu.Unlock()
	f.mustAddEventViaAPI(t)
	if err := f.srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for _, d := range f.srv.Deliveries() {
		if d.Kind == "notification" {
			statuses = append(statuses, d.Status)
		}
	}
	if diff := cmp.Diff([]int{500, 500, 500}, statuses); diff != "" {
		t.Errorf("notification attempts mismatch (-want +got):\n%s", diff)
	}

	// Past its expiry a subscription is gone.
	f.clock.Advance(49 * time.Hour)
	f.token = f.srv.IssueAccessToken("app", f.user)
	mustStatus(t, f.do(t, http.MethodGet, "/v1.0/subscriptions/"+id, nil), http.StatusNotFound)
	list := f.do(t, http.MethodGet, "/v1.0/subscriptions", nil)
	if len(list.values()) != 0 {
		t.Errorf("GET /subscriptions lists %d expired subscriptions", len(list.values()))
	}
}

func (f *fixture) mustAddEventViaAPI(tb testing.TB) string {
	tb.Helper()
	r := f.do(tb, http.MethodPost, "/v1.0/me/events", map[string]any{
		"subject": "n", "start": map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
		"end": map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"},
	})
	mustStatus(tb, r, http.StatusCreated)
	return r.str("id")
}

func TestSubscriptions_Lifecycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event       string
		wantRemoved bool
	}{
		{"reauthorizationRequired", false},
		{"missed", false},
		{"subscriptionRemoved", true},
	}
	for _, tc := range tests {
		t.Run(tc.event, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, graphtest.Options{})
			rc := newReceiver(t, true)
			sub := f.do(t, http.MethodPost, "/v1.0/subscriptions", subscriptionBody(rc, epoch.Add(time.Hour)))
			mustStatus(t, sub, http.StatusCreated)
			id := sub.str("id")
			if err := f.srv.TriggerLifecycle(id, tc.event); err != nil {
				t.Fatalf("TriggerLifecycle: %v", err)
			}
			body := rc.next(t)
			want := map[string]any{
				"path": "/lifecycle",
				"value": []any{map[string]any{
					"subscriptionId": id, "lifecycleEvent": tc.event, "clientState": "secretClientValue",
					"tenantId": f.srv.Tenant(), "subscriptionExpirationDateTime": "2025-03-03T09:00:00.0000000Z",
				}},
			}
			if diff := cmp.Diff(want, body); diff != "" {
				t.Errorf("lifecycle notification mismatch (-want +got):\n%s", diff)
			}
			wantStatus := http.StatusOK
			if tc.wantRemoved {
				wantStatus = http.StatusNotFound
			}
			mustStatus(t, f.do(t, http.MethodGet, "/v1.0/subscriptions/"+id, nil), wantStatus)
			if !tc.wantRemoved {
				mustStatus(t, f.do(t, http.MethodPost, "/v1.0/subscriptions/"+id+"/reauthorize", nil), http.StatusNoContent)
			}
		})
	}
}

// TestSubscriptions_DocumentedResourcesOnly: with the option, only the
// documented event resources are accepted.
func TestSubscriptions_DocumentedResourcesOnly(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{DocumentedSubscriptionResourcesOnly: true})
	rc := newReceiver(t, true)
	def := f.srv.DefaultCalendarID(f.user)
	for _, tc := range []struct {
		resource   string
		wantStatus int
	}{
		{"me/events", http.StatusCreated},
		{"users/" + f.user + "/events", http.StatusCreated},
		{"me/calendar/events", http.StatusBadRequest},
		{"me/calendars/" + def + "/events", http.StatusBadRequest},
	} {
		r := f.do(t, http.MethodPost, "/v1.0/subscriptions", subscriptionBody(rc, epoch.Add(time.Hour), "resource", tc.resource))
		if r.status != tc.wantStatus {
			t.Errorf("resource %s = %d %q, want %d", tc.resource, r.status, r.errorCode(), tc.wantStatus)
		}
	}
}
