package adminapi_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/metrics"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/microsoft"
)

// checkFields runs the check action and returns the fields of its
// problems (or "ok").
func checkFields(t *testing.T, s *server, appID, provider string) ([]string, admin.ProviderCheck) {
	t.Helper()
	var check admin.ProviderCheck
	s.must(t, "POST", "/admin/v1/applications/"+appID+"/providers/"+provider+"/check", nil, &check)
	t.Logf("check: %+v", check)
	fields := []string{}
	for _, p := range check.Problems {
		fields = append(fields, p.Field)
	}
	if check.OK != (len(fields) == 0) {
		t.Errorf("ok = %v with problems %v", check.OK, fields)
	}
	return fields, check
}

// closedURL returns a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestProviderCheckOAuth(t *testing.T) {
	// A token endpoint that answers as the scenario's provider does to a
	// made-up code.
	answer := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/ok/token":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"invalid_grant","error_description":"Malformed auth code."}`))
		case "/unknown-client/token":
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"invalid_client","error_description":"The OAuth client was not found."}`))
		case "/wrong-secret/token":
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"invalid_client","error_description":"Unauthorized"}`))
		case "/ms-tenant/token":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"invalid_request","error_description":"AADSTS90002: Tenant 'nope' not found.\r\nTrace ID: x"}`))
		case "/ms-secret/token":
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided."}`))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("<html>no</html>"))
		}
	}
	idp := httptest.NewServer(http.HandlerFunc(answer))
	t.Cleanup(idp.Close)
	g, err := google.New(google.Config{HTTPClient: idp.Client(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := microsoft.New(microsoft.Config{HTTPClient: idp.Client(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	// With metrics, as unicald runs: the providers are wrapped then.
	s := startServer(t, func(cfg *apitest.Config) {
		cfg.Providers = []unical.Provider{g, ms}
		cfg.Observer = metrics.New()
	})
	app := s.createApp(t, "oauth")
	id := app.Application.ID
	s.must(t, "POST", "/admin/v1/applications/"+id+"/redirectUrls", map[string]string{"url": "https://app.example/done"}, nil)
	for _, tc := range []struct {
		provider, tokenURL string
		want               []string
	}{
		{"provider_a", idp.URL + "/ok/token", []string{}},
		{"provider_a", idp.URL + "/unknown-client/token", []string{"clientId"}},
		{"provider_a", idp.URL + "/wrong-secret/token", []string{"clientSecret"}},
		{"provider_a", idp.URL + "/missing/token", []string{"tokenUrl"}},
		{"provider_a", closedURL(t) + "/token", []string{"tokenUrl"}},
		{"provider_b", idp.URL + "/ok/token", []string{}},
		{"provider_b", idp.URL + "/ms-tenant/token", []string{"tenant"}},
		{"provider_b", idp.URL + "/ms-secret/token", []string{"clientSecret"}},
	} {
		t.Run(tc.provider+" "+tc.tokenURL, func(t *testing.T) {
			s.must(t, "PUT", "/admin/v1/applications/"+id+"/providers/"+tc.provider,
				map[string]any{"clientId": "cid", "clientSecret": "check-secret-value", "tokenUrl": tc.tokenURL}, nil)
			got, check := checkFields(t, s, id, tc.provider)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s\n%+v", d, check)
			}
			if check.CallbackURL != s.url+unical.OAuthCallbackPath {
				t.Errorf("callbackUrl = %q", check.CallbackURL)
			}
			b, _ := json.Marshal(check)
			if strings.Contains(string(b), "check-secret-value") {
				t.Errorf("the check answer holds the client secret: %s", b)
			}
		})
	}
}

// TestRedirectURLReachesAuthorize registers and removes a redirect URL
// through the admin API and sees /v1's authorize endpoint follow at once.
func TestRedirectURLReachesAuthorize(t *testing.T) {
	g, err := google.New(google.Config{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(cfg *apitest.Config) { cfg.Providers = []unical.Provider{g} })
	app := s.createApp(t, "authorize")
	base := "/admin/v1/applications/" + app.Application.ID
	s.must(t, "PUT", base+"/providers/provider_a", map[string]any{"clientId": "cid.apps.example", "clientSecret": "authorize-secret"}, nil)
	authorize := "/v1/oauth/authorize/" + app.Application.ID + "/provider_a?redirectUrl=" + url.QueryEscape("https://app.example/done")
	wantError(t, s.send(t, "GET", authorize, nil, nil), http.StatusBadRequest, "invalid_request", "redirectUrl")
	s.must(t, "POST", base+"/redirectUrls", map[string]string{"url": "https://app.example/done"}, nil)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(s.url + authorize)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || !strings.Contains(loc, "client_id=cid.apps.example") {
		t.Fatalf("authorize after registering = %d to %q, want 302 to Google with the client id", resp.StatusCode, loc)
	}
	s.must(t, "DELETE", base+"/redirectUrls?url="+url.QueryEscape("https://app.example/done"), nil, nil)
	wantError(t, s.send(t, "GET", authorize, nil, nil), http.StatusBadRequest, "invalid_request", "redirectUrl")
}

func TestProviderCheckCalDAV(t *testing.T) {
	dav := davtest.Start(t, davtest.Radicale)
	notDAV := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notDAV.Close)
	p, err := caldav.New(caldav.Config{AllowPrivateTargets: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	strict, err := caldav.New(caldav.Config{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		provider  unical.Provider
		serverURL string
		want      []string
	}{
		{"radicale", p, dav.URL, []string{}},
		{"not a CalDAV server", p, notDAV.URL, []string{"serverUrl"}},
		{"nothing listening", p, closedURL(t), []string{"serverUrl"}},
		{"private address refused", strict, dav.URL, []string{"serverUrl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, func(cfg *apitest.Config) { cfg.Providers = []unical.Provider{tc.provider} })
			app := s.createApp(t, "dav")
			s.must(t, "PUT", "/admin/v1/applications/"+app.Application.ID+"/providers/provider_c", map[string]any{"serverUrl": tc.serverURL}, nil)
			got, check := checkFields(t, s, app.Application.ID, "provider_c")
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s\n%+v", d, check)
			}
			if len(got) == 0 && len(check.Passed) == 0 {
				t.Errorf("a passing check says nothing of what it tried")
			}
		})
	}
}
