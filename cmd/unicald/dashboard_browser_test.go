package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
)

// chromiumPath finds the browser of the browser tests: $UNICAL_CHROMIUM, or
// Debian's chromium. Without one the test is skipped, except under CI=true,
// where a missing browser fails the run (scripts/install-test-deps.sh
// installs it).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("UNICAL_CHROMIUM"), "chromium", "chromium-browser"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium for the browser tests; run scripts/install-test-deps.sh (apt-get install chromium)")
	}
	t.Skip("no chromium for the browser tests; run scripts/install-test-deps.sh (apt-get install chromium)")
	return ""
}

// browser drives one headless Chromium tab through a flow of pages,
// failing the test on any error, and saves screenshots.
type browser struct {
	t       *testing.T
	ctx     context.Context
	shotDir string
}

// newBrowser starts Chromium for t with flags that need no network, a
// fresh profile, and a window the pages are seen in.
func newBrowser(t *testing.T) *browser {
	bin := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	dir := os.Getenv("UNICAL_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, ctx: ctx, shotDir: dir}
}

// do runs steps, failing the test on an error.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// submit runs steps that submit a form (or follow a link) and returns the
// status of the page that loads.
func (b *browser) submit(what string, steps ...chromedp.Action[chromedp.Void]) int64 {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, steps...)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return resp.Status
}

// open loads a dashboard page and returns its status. Every field of
// every page opened must have a label.
func (b *browser) open(url string) int64 {
	b.t.Helper()
	resp, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(url))
	if err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
	if fields := b.unlabelled(); len(fields) > 0 {
		b.t.Errorf("%s has fields without a label: %v", url, fields)
	}
	return resp.Status
}

// text is the visible text of the page's main element.
func (b *browser) text() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		b.t.Fatalf("page text: %v", err)
	}
	return s
}

// html is the whole page's HTML.
func (b *browser) html() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		b.t.Fatalf("page HTML: %v", err)
	}
	return s
}

func (b *browser) value(id string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Value(chromedp.ID(id)))
	if err != nil {
		b.t.Fatalf("value of #%s: %v", id, err)
	}
	return s
}

// mustSee fails unless the page's main text holds every one of want.
func (b *browser) mustSee(page string, want ...string) {
	b.t.Helper()
	got := b.text()
	for _, w := range want {
		if !strings.Contains(got, w) {
			b.t.Errorf("%s page does not show %q; it shows:\n%s", page, w, got)
		}
	}
}

// unlabelled lists the page's form fields that have no label: every
// visible input, select and textarea needs a <label for> or an aria-label.
func (b *browser) unlabelled() []string {
	b.t.Helper()
	ids, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("input:not([type=hidden]), select, textarea"))
		.filter(e => !e.getAttribute("aria-label") && !(e.id && document.querySelector('label[for="' + e.id + '"]')))
		.map(e => e.outerHTML)`))
	if err != nil {
		b.t.Fatal(err)
	}
	return ids
}

// overflows reports whether the page is wider than the window, so that
// reading it would need scrolling sideways (wide tables scroll inside
// their own box instead).
func (b *browser) overflows() bool {
	b.t.Helper()
	wide, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil {
		b.t.Fatal(err)
	}
	return wide
}

// shot saves a screenshot of the whole page as name.png and logs its path.
func (b *browser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(b.shotDir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

// freeLoopbackPort returns a port that was free a moment ago, so that
// the server's public URL can name its own address.
func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).AddrPort().String()
}

// TestDashboard_Browser drives the dashboard in headless Chromium against
// a real unicald on loopback, through an operator's first day: log in
// (after a wrong token), create an application and use its API key on
// /v1, register a redirect URL and see the authorize endpoint accept it,
// configure Google and a CalDAV server (a throwaway Radicale), connect an
// account through /v1 and find it on the Accounts page, watch the
// account's webhook message fail in the delivery log and resend it, revoke
// the key and see /v1 refuse it, and see a form without its CSRF token
// refused. Each step saves a screenshot of the page it checks.
func TestDashboard_Browser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	const email = "dash@example.com"
	dav := davtest.StartUser(t, davtest.Radicale, email)
	// The receiver fails the message's two attempts (the schedule has one
	// retry), so that it fails and can be resent, and accepts it then.
	rcv := apitest.NewReceiverAnswering(t, func(n int) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	const adminToken = "uat_browser-test-admin-token-0123456789abcdef"
	addr := freeLoopbackPort(t)
	base := "http://" + addr
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminToken}
	dataDir := t.TempDir()
	srv := startServe(t, &Main{WebhookTLS: rcv.TLSConfig(), Getenv: func(k string) string { return env[k] }}, dataDir,
		"--addr", addr, "--public-url", base, "--allow-private-targets", "--retry-schedule", "1s", "--retry-jitter", "0")
	dash := base + "/dashboard"
	secrets := []string{adminToken}

	// A wrong token is refused, and the login page says so.
	b.open(dash + "/")
	if status := b.submit("wrong login", chromedp.SendKeys(chromedp.ID("token"), "uat_not-the-token-0123456789abcdefgh"), chromedp.Submit(chromedp.ID("token"))); status != http.StatusUnauthorized {
		t.Errorf("login with a wrong token = %d, want 401", status)
	}
	b.mustSee("login", "The admin token is wrong.")
	b.shot("01-login-refused")
	if status := b.open(dash + "/apps"); status != http.StatusOK || !strings.Contains(b.text(), "Admin token") {
		t.Fatalf("after a wrong token, /dashboard/apps = %d and not the login page:\n%s", status, b.text())
	}

	// The right token logs in, to the overview; the applications list
	// the first start's default one.
	// By keyboard alone: the token field has the focus, Enter submits.
	b.submit("login", chromedp.KeyEvent(adminToken+"\r"))
	b.mustSee("overview", "Overview", "Readiness")
	b.open(dash + "/apps")
	b.mustSee("applications", "Applications", "default")

	// A new application shows its first API key once; the key works on /v1.
	// Keyboard again: Tab moves from the skip link through the links to the
	// name field, whose form Enter submits.
	focused := ""
	for range 20 {
		b.do("tab", chromedp.KeyEvent("\t"))
		id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement.id`))
		if err != nil {
			t.Fatal(err)
		}
		if focused = id; focused == "name" {
			break
		}
	}
	if focused != "name" {
		t.Fatal("20 presses of Tab did not reach the new application's name field")
	}
	b.submit("create application", chromedp.KeyEvent("Browser test app\r"))
	b.mustSee("created", "Browser test app", "shown only now")
	apiKey := b.value("newkey")
	if !strings.HasPrefix(apiKey, "uk_") {
		t.Fatalf("created page shows key %q, want a uk_ key", apiKey)
	}
	secrets = append(secrets, apiKey)
	// The copy button (our one script, allowed by the page's CSP) copies it.
	b.do("copy", chromedp.Click(chromedp.CSS(`button.copy[data-copy="newkey"]`)))
	// The label changes when the clipboard's promise settles, after the
	// click returns: read it until it does, for at most five seconds.
	var label string
	var labelErr error
	for range 50 {
		if label, labelErr = chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(`button.copy[data-copy="newkey"]`))); labelErr != nil || label == "Copied" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if labelErr != nil || label != "Copied" {
		t.Errorf("copy button says %q (%v) after a click, want Copied", label, labelErr)
	}
	b.shot("02-application-created")
	if status, body := request(t, "GET", base+"/v1/endUserAccounts", apiKey, nil); status != http.StatusOK {
		t.Fatalf("GET /v1/endUserAccounts with the new key = %d %s", status, body)
	}
	appID, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("main code").textContent`))
	if err != nil || !strings.HasPrefix(appID, "app_") {
		t.Fatalf("created page names application %q (%v)", appID, err)
	}
	appURL := dash + "/apps/" + appID

	// The set-up page lists what OAuth still lacks.
	b.open(appURL)
	b.mustSee("set-up", "2 steps are missing", "Done: Public URL", "Missing: An OAuth provider", "Missing: A redirect URL")
	b.shot("03-setup-missing")

	// A second key from the API keys page is shown once, and gone on reload.
	b.open(appURL + "/keys")
	b.submit("create key", chromedp.Click(chromedp.CSS(`form[action$="/keys"] button`)))
	secondKey := b.value("newkey")
	secrets = append(secrets, secondKey)
	b.shot("04-key-created")
	b.open(appURL + "/keys")
	if html := b.html(); strings.Contains(html, secondKey) || strings.Contains(html, apiKey) {
		t.Error("the API keys page shows a key's secret after the page that created it")
	}

	// A redirect URL registered in the dashboard is accepted by the
	// authorize endpoint, once Google has a client.
	const redirectURL = "https://app.example.test/calendar/connected"
	b.open(appURL + "/redirects")
	b.do("fill redirect", chromedp.SendKeys(chromedp.ID("url"), redirectURL))
	b.submit("add redirect", chromedp.Submit(chromedp.ID("url")))
	b.mustSee("redirects", "The redirect URL was registered.", redirectURL)
	b.shot("05-redirect-registered")

	const clientSecret = "GOCSPX-browser-test-client-secret-needle"
	secrets = append(secrets, clientSecret)
	b.open(appURL + "/providers")
	if got, want := b.value("callback"), base+"/v1/oauth/callback"; got != want {
		t.Errorf("callback URL shown = %q, want %q", got, want)
	}
	b.do("fill google",
		chromedp.SendKeys(chromedp.ID("provider_a-clientId"), "1234-browser.apps.googleusercontent.com"),
		chromedp.SendKeys(chromedp.ID("provider_a-clientSecret"), clientSecret))
	b.submit("save google", chromedp.Submit(chromedp.ID("provider_a-clientId")))
	b.mustSee("providers", "The provider settings were saved.", "A client secret is set")
	b.do("fill caldav", chromedp.SendKeys(chromedp.ID("provider_c-serverUrl"), dav.URL))
	b.submit("save caldav", chromedp.Submit(chromedp.ID("provider_c-serverUrl")))
	if got := b.value("provider_c-serverUrl"); got != dav.URL {
		t.Errorf("CalDAV server URL after saving = %q, want %q", got, dav.URL)
	}
	if got := b.value("provider_a-clientSecret"); got != "" {
		t.Errorf("the client secret field is filled in (%q) after saving", got)
	}
	b.shot("06-providers")
	// The check action finds the Radicale server, and names what
	// Microsoft still lacks.
	b.submit("check caldav", chromedp.Click(chromedp.CSS(`form[action$="/providers/provider_c/check"] button`)))
	b.mustSee("providers check", "Check passed.", "OK: The CalDAV server at "+dav.URL)
	b.submit("check microsoft", chromedp.Click(chromedp.CSS(`form[action$="/providers/provider_b/check"] button`)))
	b.mustSee("providers check", "Check found", "clientId: No OAuth client id is set", "clientSecret: No OAuth client secret is set")
	b.do("show check", chromedp.ScrollIntoView(chromedp.ID("check-result")))
	b.shot("06b-provider-check")

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	authorize := func(redirect string) (int, string) {
		resp, err := noRedirect.Get(base + "/v1/oauth/authorize/" + appID + "/provider_a?redirectUrl=" + redirect)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	if status, loc := authorize(redirectURL); status != http.StatusFound || !strings.Contains(loc, "redirect_uri="+url.QueryEscape(base+"/v1/oauth/callback")+"&") {
		t.Errorf("authorize with the registered redirect URL = %d Location %q, want 302 to Google with our callback", status, loc)
	}
	if status, _ := authorize("https://elsewhere.example.test/"); status != http.StatusBadRequest {
		t.Errorf("authorize with an unregistered redirect URL = %d, want 400", status)
	}
	b.open(appURL)
	b.mustSee("set-up", "Everything OAuth needs is in place", "/v1/oauth/callback")
	b.shot("07-setup-complete")

	// The application's webhook URL: its secret is shown once.
	b.open(appURL + "/webhooks")
	b.do("fill webhook", chromedp.SendKeys(chromedp.ID("webhook-url"), rcv.URL+"/hook"))
	b.submit("save webhook", chromedp.Submit(chromedp.ID("webhook-url")))
	webhookSecret := b.value("newsecret")
	if !strings.HasPrefix(webhookSecret, "whsec_") {
		t.Fatalf("webhook secret shown = %q, want a whsec_ secret", webhookSecret)
	}
	secrets = append(secrets, webhookSecret)
	rcv.SetSecret(webhookSecret)

	// An account connected through /v1 is listed, and found by search.
	status, body := request(t, "POST", base+"/v1/endUserAccounts", apiKey, map[string]any{"email": email, "providerType": "PROVIDER_C", "password": dav.Password})
	if status != http.StatusOK {
		t.Fatalf("connect CalDAV account = %d %s", status, body)
	}
	secrets = append(secrets, dav.Password)
	var acct struct{ ID string }
	json.Unmarshal(body, &acct)
	b.open(appURL + "/accounts?q=dash")
	b.mustSee("accounts", email, "ACTIVE", "CalDAV (PROVIDER_C)", acct.ID)
	b.shot("08-accounts")

	// On a phone-sized screen the pages fit the width (tables scroll in
	// their own box).
	b.do("narrow", chromedp.EmulateViewport(390, 800))
	for _, page := range []string{"/webhooks", "/providers", "/accounts?q=dash"} {
		b.open(appURL + page)
		if b.overflows() {
			t.Errorf("%s is wider than a 390 px screen", page)
		}
	}
	b.shot("08b-narrow-accounts")
	b.do("wide", chromedp.ResetViewport())
	b.open(appURL + "/accounts?q=nobody")
	b.mustSee("accounts search", "No accounts match.")

	// A calendar subscription made through /v1 is listed on the Webhooks
	// page, with its own (still empty) delivery log.
	calPath := dav.NewCalendar(t, "Work")
	calID := strings.TrimSuffix(calPath, "/")
	calID = calID[strings.LastIndexByte(calID, '/')+1:]
	status, body = request(t, "POST", base+"/v1/calendarSubscriptions/"+acct.ID, apiKey, map[string]any{"calendarId": calID, "webhookUrl": rcv.URL + "/calendar"})
	if status != http.StatusOK {
		t.Fatalf("create subscription = %d %s", status, body)
	}
	var sub struct {
		ID     string `json:"webhookSubscriptionId"`
		Secret string `json:"endpointSecret"`
	}
	json.Unmarshal(body, &sub)
	secrets = append(secrets, sub.Secret)
	// The page opens on the subscription's log.
	b.open(appURL + "/webhooks")
	b.mustSee("webhooks", sub.ID, acct.ID, calID, rcv.URL+"/calendar", "Delivery log of subscription "+sub.ID, "No delivery attempts in the log.")
	b.submit("application log", chromedp.Click(chromedp.CSS(`a[href="?sub="]`)))
	b.mustSee("application log", "Delivery log of the application webhook")
	b.submit("subscription log", chromedp.Click(chromedp.CSS(`a[href="?sub=`+sub.ID+`"]`)))
	b.mustSee("subscription log", "Delivery log of subscription "+sub.ID, "No delivery attempts in the log.")

	// The account's enduseraccount message fails twice at the receiver;
	// the delivery log shows both attempts, and a resend delivers it.
	rcv.WaitFor(t, 2)
	// logShows reloads the application webhook's delivery log (the page
	// opens on the subscription's) until it has a row of that attempt
	// number and status code (20 s at most).
	logShows := func(attempt, status string) bool {
		deadline := time.Now().Add(20 * time.Second)
		for {
			b.open(appURL + "/webhooks?sub=")
			rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[][]string](
				`Array.from(document.querySelectorAll("table.log tbody tr")).map(r => Array.from(r.cells).map(c => c.textContent.trim()))`))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				// Time, event, attempt, status code, latency, error, message id.
				if len(r) >= 5 && r[2] == attempt && r[3] == status && strings.HasSuffix(r[4], " ms") {
					return true
				}
			}
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// The second attempt is recorded after the receiver has answered it.
	if !logShows("2", "500") {
		t.Fatalf("the delivery log does not show the second attempt's 500:\n%s", b.text())
	}
	b.mustSee("webhooks", "enduseraccount", "500", " ms")
	b.shot("09-delivery-failed")
	if status := b.submit("resend", chromedp.Click(chromedp.CSS(`form[action$="/webhooks/resend"] button`))); status != http.StatusOK {
		t.Errorf("resend = %d, want 200", status)
	}
	b.mustSee("webhooks", "The message was queued for delivery again.")
	rcv.WaitFor(t, 3)
	if !logShows("1", "204") {
		t.Fatalf("the delivery log does not show the resent message's 204:\n%s", b.text())
	}
	if strings.Contains(b.html(), webhookSecret) {
		t.Error("the Webhooks page shows the webhook secret after the page that created it")
	}
	b.shot("10-delivery-resent")

	// The application cannot be deleted while it has an account, unless
	// asked to delete the accounts too.
	b.open(appURL)
	b.do("fill confirm", chromedp.SendKeys(chromedp.ID("confirm"), "Browser test app"))
	if status := b.submit("delete app", chromedp.Submit(chromedp.ID("confirm"))); status != http.StatusConflict {
		t.Errorf("delete an application with an account = %d, want 409", status)
	}
	b.mustSee("set-up", "The application still has accounts")

	// Deleting the account on the Accounts page: it goes from the list and
	// from /v1.
	b.open(appURL + "/accounts")
	b.submit("delete account", chromedp.Click(chromedp.CSS(`form[action$="/accounts/`+acct.ID+`/delete"] button`)))
	b.mustSee("accounts", "The account was deleted.", "No accounts.")
	if status, body := request(t, "GET", base+"/v1/endUserAccounts/"+acct.ID, apiKey, nil); status != http.StatusNotFound {
		t.Errorf("GET the deleted account = %d %s, want 404", status, body)
	}

	// Revoking the first key: /v1 refuses it at once.
	b.open(appURL + "/keys")
	keyID := "key_" + strings.SplitN(strings.TrimPrefix(apiKey, "uk_"), "_", 2)[0]
	b.submit("revoke", chromedp.Click(chromedp.CSS(`form[action$="/keys/`+keyID+`/revoke"] button`)))
	b.mustSee("keys", "The API key was revoked")
	if strings.Contains(b.text(), keyID) {
		t.Errorf("the revoked key %s is still listed", keyID)
	}
	b.shot("11-key-revoked")
	if status, body := request(t, "GET", base+"/v1/endUserAccounts", apiKey, nil); status != http.StatusUnauthorized {
		t.Errorf("GET /v1/endUserAccounts with the revoked key = %d %s, want 401", status, body)
	}
	if status, body := request(t, "GET", base+"/v1/endUserAccounts", secondKey, nil); status != http.StatusOK {
		t.Errorf("GET /v1/endUserAccounts with the other key = %d %s, want 200", status, body)
	}

	// A form whose CSRF token was removed is refused and changes nothing.
	b.open(appURL + "/redirects")
	b.do("strip csrf",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('form[action$="/redirects"] input[name=csrf]').remove()`),
		chromedp.SendKeys(chromedp.ID("url"), "https://forged.example.test/"))
	if status := b.submit("forged form", chromedp.Submit(chromedp.ID("url"))); status != http.StatusForbidden {
		t.Errorf("form without its CSRF token = %d, want 403", status)
	}
	b.mustSee("refused", "security token is missing or wrong")
	b.shot("12-csrf-refused")
	b.open(appURL + "/redirects")
	if strings.Contains(b.text(), "forged.example.test") {
		t.Error("the form without a CSRF token registered its redirect URL")
	}

	// Deleting the application, after typing its name: its other key
	// stops working too.
	b.open(appURL)
	b.do("fill confirm", chromedp.SendKeys(chromedp.ID("confirm"), "Browser test app"))
	b.submit("delete app", chromedp.Submit(chromedp.ID("confirm")))
	b.mustSee("applications", "The application was deleted.")
	if strings.Contains(b.text(), appID) {
		t.Errorf("the deleted application %s is still listed", appID)
	}
	if status, body := request(t, "GET", base+"/v1/endUserAccounts", secondKey, nil); status != http.StatusUnauthorized {
		t.Errorf("GET /v1/endUserAccounts with the deleted application's key = %d %s, want 401", status, body)
	}

	// Logging out ends the session.
	b.submit("logout", chromedp.Click(chromedp.CSS(`form.logout button`)))
	b.open(appURL + "/keys")
	if !strings.Contains(b.text(), "Admin token") {
		t.Errorf("after logging out, the keys page is not the login page:\n%s", b.text())
	}

	// No secret typed into or shown by the dashboard is in the server's
	// output or in its store file in plaintext.
	srv.stop()
	logs := srv.Stdout.String() + srv.Stderr.String()
	db, err := os.ReadFile(filepath.Join(dataDir, "unicald.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the server's output holds a secret (%.8s…)", s)
		}
		if bytes.Contains(db, []byte(s)) {
			t.Errorf("the store file holds a secret in plaintext (%.8s…)", s)
		}
	}
}
