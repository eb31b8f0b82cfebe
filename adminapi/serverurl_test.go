package adminapi_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
)

// TestProviderSettings_PrivateServerURL saves CalDAV server URLs on
// addresses a server must not reach: without --allow-private-targets each
// is a 400 naming serverUrl, as a webhook URL on them is, and the settings
// stay as they were; with it they are saved.
func TestProviderSettings_PrivateServerURL(t *testing.T) {
	strict := startServer(t, func(cfg *apitest.Config) { cfg.AllowPrivateTargets = false })
	app := strict.createApp(t, "dav")
	path := "/admin/v1/applications/" + app.Application.ID + "/providers/provider_c"
	strict.must(t, "PUT", path, map[string]any{"serverUrl": "https://dav.example.com/"}, nil)
	var before admin.ProviderSettingsView
	strict.must(t, "GET", path, nil, &before)
	private := []string{
		"https://127.0.0.1/dav/",
		"http://localhost:5232/",
		"https://dav.localhost/",
		"https://[::1]:8443/",
		"https://10.1.2.3/",
		"https://192.168.0.10/",
		"https://169.254.169.254/latest/",
		"https://[fd00::5]/",
		"https://192.88.99.1/",
	}
	for _, raw := range private {
		wantError(t, strict.admin(t, "PUT", path, map[string]any{"serverUrl": raw}), http.StatusBadRequest, "invalid_request", "serverUrl")
		wantError(t, strict.admin(t, "PUT", "/admin/v1/applications/"+app.Application.ID+"/webhook", map[string]string{"url": raw}),
			http.StatusBadRequest, "invalid_request", "url")
	}
	var after admin.ProviderSettingsView
	strict.must(t, "GET", path, nil, &after)
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("refused serverUrls changed the settings (-before +after):\n%s", d)
	}

	// The test servers allow private targets, as --allow-private-targets does.
	lax := startServer(t, nil)
	app = lax.createApp(t, "dav")
	var got admin.ProviderSettingsView
	lax.must(t, "PUT", "/admin/v1/applications/"+app.Application.ID+"/providers/provider_c", map[string]any{"serverUrl": private[0]}, &got)
	if got.ServerURL != private[0] {
		t.Errorf("serverUrl saved with private targets allowed = %q, want %q", got.ServerURL, private[0])
	}
}
