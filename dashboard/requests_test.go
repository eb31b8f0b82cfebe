package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/requestlog"
)

// TestRequestsPage checks the Requests page: an application's requests
// newest first, each with its route, status and the label of its key, a
// revoked key by its prefix, the failed ones alone on request, and
// another application's requests never.
func TestRequestsPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "https://cal.example.com")
	b := f.browser(t)
	token := b.mustLogin()
	svc := admin.Of(f.client)
	created, err := svc.CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("traffic")})
	if err != nil {
		t.Fatal(err)
	}
	appID := created.ApplicationID
	keys, err := svc.ListAPIKeyViews(t.Context(), appID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys = %v, %v", keys, err)
	}
	if p := b.post("/dashboard/apps/"+appID+"/keys/"+keys[0].ID+"/label", url.Values{"csrf": {token}, "label": {"backend-prod"}}); p.status != http.StatusSeeOther {
		t.Fatalf("label key = %d:\n%s", p.status, p.body)
	}
	now := f.clock()
	f.requests.Record(appID, requestlog.Entry{At: now.Add(-2 * time.Minute), Method: "GET", Route: "/v1/endUserAccounts", Status: 200, Latency: 3 * time.Millisecond, KeyPrefix: keys[0].Prefix})
	f.requests.Record(appID, requestlog.Entry{At: now.Add(-time.Minute), Method: "DELETE", Route: "/v1/endUserAccounts/{id}", Status: 404, Latency: 5 * time.Millisecond, KeyPrefix: "uk_gone_"})
	f.requests.Record("another-app", requestlog.Entry{At: now, Method: "POST", Route: "/v1/calendars/{endUserAccountId}", Status: 500, KeyPrefix: "uk_other_"})

	p := b.get("/dashboard/apps/" + appID + "/requests")
	if p.status != http.StatusOK {
		t.Fatalf("GET requests = %d:\n%s", p.status, p.body)
	}
	deleteAt, listAt := strings.Index(p.body, "/v1/endUserAccounts/{id}"), strings.Index(p.body, "<code>/v1/endUserAccounts</code>")
	if deleteAt < 0 || listAt < 0 || deleteAt > listAt {
		t.Errorf("the page does not list both requests newest first:\n%s", p.body)
	}
	for _, want := range []string{"<td>404</td>", "<td>200</td>", "backend-prod", keys[0].ID, "uk_gone_…</code> (revoked)", "5.0 ms", "3.0 ms"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if strings.Contains(p.body, "uk_other_") || strings.Contains(p.body, "/v1/calendars/") {
		t.Error("the page shows another application's request")
	}
	failed := b.get("/dashboard/apps/" + appID + "/requests?failed=1")
	if !strings.Contains(failed.body, "<td>404</td>") || strings.Contains(failed.body, "<td>200</td>") {
		t.Errorf("the failed-only page does not list just the 404:\n%s", failed.body)
	}
}
