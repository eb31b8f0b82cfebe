package adminapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/admin"
)

// TestRequests checks GET /admin/v1/applications/{appId}/requests: an
// application's /v1 requests newest first by route pattern and status,
// the failed ones alone with failed=true, never another application's.
func TestRequests(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	app, other := s.createApp(t, "traffic"), s.createApp(t, "other")
	if r := s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Fatalf("list accounts = %d", r.status)
	}
	if r := s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts/acc_unknown", nil); r.status != http.StatusNotFound {
		t.Fatalf("get an unknown account = %d", r.status)
	}
	s.v1(t, other.APIKey, "GET", "/v1/endUserAccounts", nil)
	type entry struct {
		Method, Route, APIKeyPrefix string
		Status                      int
	}
	var list struct {
		Data             []entry
		Kept             bool
		PerApplication   int
		RetentionSeconds int64
	}
	path := "/admin/v1/applications/" + app.Application.ID + "/requests"
	s.must(t, "GET", path, nil, &list)
	prefix := app.APIKey[:strings.Index(app.APIKey[len("uk_"):], "_")+len("uk_")+1]
	want := []entry{
		{Method: "GET", Route: "/v1/endUserAccounts/{id}", APIKeyPrefix: prefix, Status: 404},
		{Method: "GET", Route: "/v1/endUserAccounts", APIKeyPrefix: prefix, Status: 200},
	}
	if d := cmp.Diff(want, list.Data); d != "" || !list.Kept || list.PerApplication != 200 || list.RetentionSeconds != 86400 {
		t.Errorf("requests mismatch (-want +got):\n%s\n%+v", d, list)
	}
	s.must(t, "GET", path+"?failed=true", nil, &list)
	if d := cmp.Diff(want[:1], list.Data); d != "" {
		t.Errorf("failed requests mismatch (-want +got):\n%s", d)
	}
	wantError(t, s.admin(t, "GET", path+"?failed=maybe", nil), http.StatusBadRequest, "invalid_request", "failed")
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/app_unknown/requests", nil), http.StatusNotFound, "not_found", "")
}

// TestTestMessages checks the admin API's test messages: one to the
// application's own webhook (refused while it has none) and one to a
// subscription arrive verified with their endpoint's secret.
func TestTestMessages(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	app := s.createApp(t, "tests")
	base := "/admin/v1/applications/" + app.Application.ID
	wantError(t, s.admin(t, "POST", base+"/webhook/test", nil), http.StatusBadRequest, "invalid_request", "webhookUrl")
	var set admin.WebhookSet
	s.must(t, "PUT", base+"/webhook", map[string]string{"url": s.receiver.URL + "/hook"}, &set)
	s.receiver.SetSecret(set.Secret)
	var queued struct{ MessageID string }
	s.must(t, "POST", base+"/webhook/test", nil, &queued)
	got := s.receiver.WaitFor(t, 1)
	if got[0].ID != queued.MessageID || !got[0].Verified || got[0].Payload(t).EventType != "webhook.test" {
		t.Fatalf("the application endpoint got %s (%q, verified %v), want the test message %q", got[0].Body, got[0].ID, got[0].Verified, queued.MessageID)
	}

	ada := s.connect(t, app.APIKey, "ada@example.com")
	s.receiver.WaitFor(t, 2) // enduseraccount.created
	r := s.v1(t, app.APIKey, "POST", "/v1/calendarSubscriptions/"+ada, map[string]any{"calendarId": s.adaCalendar, "webhookUrl": s.receiver.URL + "/sub"})
	var sub struct {
		ID     string `json:"webhookSubscriptionId"`
		Secret string `json:"endpointSecret"`
	}
	if r.into(t, &sub); r.status != http.StatusOK {
		t.Fatalf("subscribe = %d %s", r.status, r.body)
	}
	s.receiver.SetSecret(sub.Secret)
	s.must(t, "POST", base+"/subscriptions/"+sub.ID+"/test", nil, &queued)
	got = s.receiver.WaitFor(t, 3)
	if last := got[2]; last.ID != queued.MessageID || !last.Verified || last.Payload(t).SubscriptionID != sub.ID {
		t.Fatalf("the subscription got %s (%q, verified %v), want the test message %q", last.Body, last.ID, last.Verified, queued.MessageID)
	}
	wantError(t, s.admin(t, "POST", base+"/subscriptions/sub_unknown/test", nil), http.StatusNotFound, "not_found", "")
}
