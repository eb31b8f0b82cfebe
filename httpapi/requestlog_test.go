package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/requestlog"
)

// TestRequestLog checks what the request log keeps of requests made with
// an application's key: the route pattern (no id, no query), the method,
// the status and how the key begins; a request with a bad key is no
// application's and is not kept.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	log := requestlog.New(requestlog.Config{})
	ts := newTestServer(t, httpapi.Config{RequestLog: log}, nil)
	ts.must(t, "GET", "/v1/endUserAccounts?limit=5", nil)
	if r := ts.do(t, "GET", "/v1/endUserAccounts/acc_secretaccountid", nil); r.Status != http.StatusNotFound {
		t.Fatalf("GET unknown account = %d, want 404", r.Status)
	}
	if r := ts.do(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "not-an-address"}); r.Status != http.StatusBadRequest {
		t.Fatalf("POST bad account = %d, want 400", r.Status)
	}
	if r := ts.doKey(t, "uk_nosuchkey_secret", "GET", "/v1/endUserAccounts", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("GET with a bad key = %d, want 401", r.Status)
	}
	prefix := "uk_" + strings.SplitN(strings.TrimPrefix(ts.APIKey, "uk_"), "_", 2)[0] + "_"
	want := []requestlog.Entry{
		{Method: "POST", Route: "/v1/endUserAccounts", Status: 400, KeyPrefix: prefix},
		{Method: "GET", Route: "/v1/endUserAccounts/{id}", Status: 404, KeyPrefix: prefix},
		{Method: "GET", Route: "/v1/endUserAccounts", Status: 200, KeyPrefix: prefix},
	}
	got := log.List(ts.AppID)
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(requestlog.Entry{}, "At", "Latency")); d != "" {
		t.Errorf("List() mismatch (-want +got):\n%s", d)
	}
	for _, e := range got {
		if e.At.IsZero() || e.Latency <= 0 {
			t.Errorf("entry %+v has no time or latency", e)
		}
	}
}
