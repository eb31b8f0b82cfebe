package adminapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"
)

// v1Timestamp is how /v1 writes every timestamp: RFC 3339 in UTC with
// milliseconds.
var v1Timestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// timestamps returns the JSON paths of body's strings that are RFC 3339
// times, with their values.
func timestamps(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case string:
			if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
				out[path] = v
			}
		}
	}
	walk("", v)
	return out
}

// TestTimestamps: the admin API writes its times (an application's
// createdAt and updatedAt, a key's createdAt and lastUsedAt, a
// delegation credential's updatedAt, the audit log's at) as /v1 writes
// its own, in UTC with milliseconds, rather than with the nanoseconds of
// the stored time.
func TestTimestamps(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	app := s.createApp(t, "stamped")
	base := "/admin/v1/applications/" + app.Application.ID
	if r := s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Fatalf("GET /v1/endUserAccounts = %d\n%s", r.status, r.body)
	}
	s.connect(t, app.APIKey, "ada@example.com")
	s.must(t, "PUT", base+"/delegations/provider_b", map[string]any{"tenantId": "tenant-1", "clientId": "daemon", "clientSecret": "d43mon-secret",
		"domains": []string{"corp.example.org"}}, nil)

	var seen []string
	for _, path := range []string{"/admin/v1/applications", base, base + "/keys", base + "/delegations/provider_b", base + "/webhook",
		base + "/accounts", "/admin/v1/outbox", "/admin/v1/audit", base + "/audit"} {
		r := s.admin(t, "GET", path, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s = %d\n%s", path, r.status, r.body)
		}
		for at, v := range timestamps(t, r.body) {
			seen = append(seen, path+" "+at)
			if !v1Timestamp.MatchString(v) {
				t.Errorf("GET %s: %s = %q, want RFC 3339 in UTC with milliseconds, as /v1 writes it", path, at, v)
			}
		}
	}
	// The answers above hold each kind of time at least once.
	for _, want := range []string{
		"/admin/v1/applications .data[0].createdAt", base + " .updatedAt", base + "/keys .data[0].lastUsedAt",
		base + "/delegations/provider_b .updatedAt", base + "/accounts .data[0].createdAt", "/admin/v1/audit .data[0].at",
	} {
		if !slices.Contains(seen, want) {
			t.Errorf("no timestamp at %s among %q", want, seen)
		}
	}
}
