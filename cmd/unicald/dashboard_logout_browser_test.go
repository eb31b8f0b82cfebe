package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestDashboard_BrowserLogoutEndsSession logs in to a real unicald in
// headless Chromium, keeps the session cookie, and logs out. The kept
// cookie, put back into the browser or sent by another client, opens
// nothing: the server recorded the logout.
func TestDashboard_BrowserLogoutEndsSession(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	const adminToken = "uat_logout-test-admin-token-0123456789abcdef"
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminToken}
	srv := startServe(t, &Main{Getenv: func(k string) string { return env[k] }}, t.TempDir())
	dash := srv.URL + "/dashboard"

	b.open(dash + "/login")
	b.submit("login", chromedp.SendKeys(chromedp.ID("token"), adminToken), chromedp.Submit(chromedp.ID("token")))
	b.mustSee("overview", "Overview")
	kept := sessionCookieOf(t, b, dash+"/apps")
	if kept == nil || !kept.HTTPOnly {
		t.Fatalf("after logging in, the browser holds no HttpOnly session cookie: %+v", kept)
	}
	if status := sessionStatus(t, dash+"/apps", kept.Value); status != http.StatusOK {
		t.Fatalf("apps with the session cookie before logging out = %d, want 200", status)
	}

	b.submit("logout", chromedp.Click(chromedp.CSS(`form.logout button`)))
	httpOnly := true
	if _, err := chromedp.Call(b.ctx, network.SetCookie, network.SetCookieParams{
		Name: kept.Name, Value: kept.Value, URL: dash + "/", Path: kept.Path, HTTPOnly: &httpOnly, SameSite: network.CookieSameSiteStrict,
	}); err != nil {
		t.Fatal(err)
	}
	if back := sessionCookieOf(t, b, dash+"/apps"); back == nil || back.Value != kept.Value {
		t.Fatalf("the browser did not take the kept cookie back: %+v", back)
	}
	b.open(dash + "/apps")
	if text := b.text(); !strings.Contains(text, "Admin token") || strings.Contains(text, "Applications") {
		t.Errorf("with the logged-out cookie put back, /dashboard/apps is not the login page:\n%s", text)
	}
	b.shot("logout-old-cookie-refused")
	if status := sessionStatus(t, dash+"/apps", kept.Value); status != http.StatusSeeOther {
		t.Errorf("apps with the logged-out cookie from another client = %d, want 303 to login", status)
	}
}

// sessionStatus is the status of GET url with the dashboard session
// cookie value, redirects not followed.
func sessionStatus(t *testing.T, url, value string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "unical_dashboard", Value: value})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sessionCookieOf returns the browser's dashboard session cookie for
// url, or nil.
func sessionCookieOf(t *testing.T, b *browser, url string) *network.Cookie {
	t.Helper()
	cookies, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies.Cookies {
		if c.Name == "unical_dashboard" {
			return c
		}
	}
	return nil
}
