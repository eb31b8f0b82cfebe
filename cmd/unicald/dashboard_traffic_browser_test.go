package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical/internal/testkit/apitest"
)

// startExampleReceiver builds examples/receiver and runs it on addr with
// secrets, until the test ends; its log goes to the returned buffer.
func startExampleReceiver(t *testing.T, addr string, secrets ...string) *apitest.LogBuffer {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "receiver")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./examples/receiver")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/receiver: %v\n%s", err, out)
	}
	out := &apitest.LogBuffer{}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "UNICAL_WEBHOOK_SECRETS="+strings.Join(secrets, ","), "ADDR="+addr)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, "examples/receiver to listen", time.Minute, func() bool {
		return strings.Contains(out.String(), "receiving unical webhooks at "+addr)
	})
	return out
}

// TestDashboard_Traffic_Browser checks the traffic an operator sees in
// the dashboard: "Send test event" on a subscription reaches
// examples/receiver, which verifies it with the subscription's secret; the
// delivery log shows its 204 and a payload viewer whose body and headers
// verify with that secret, and which never shows it; the Requests page
// lists a failed /v1 call with its route and status, and neither the API
// key nor the query value nor the id in the path it was sent with. Both
// pages fit a 390 px screen.
func TestDashboard_Traffic_Browser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	const adminToken = "uat_browser-traffic-admin-token-0123456789abcdef"
	addr := freeLoopbackPort(t)
	base := "http://" + addr
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminToken}
	srv := startServe(t, &Main{Getenv: func(k string) string { return env[k] }}, t.TempDir(),
		"--addr", addr, "--public-url", base, "--allow-private-targets")
	apiKey := apiKeyFrom(t, srv.Stdout.String())
	appID := regexp.MustCompile(`applicationId: +(\S+)`).FindStringSubmatch(srv.Stdout.String())[1]
	appURL := base + "/dashboard/apps/" + appID

	// A VIRTUAL account's calendar, subscribed to examples/receiver.
	status, body := request(t, "POST", base+"/v1/endUserAccounts", apiKey, map[string]any{"email": "traffic@example.com", "providerType": "VIRTUAL"})
	if status != http.StatusOK {
		t.Fatalf("create account = %d %s", status, body)
	}
	var acct struct{ ID string }
	json.Unmarshal(body, &acct)
	status, body = request(t, "GET", base+"/v1/calendars/"+acct.ID, apiKey, nil)
	var cals struct{ Data []struct{ ID string } }
	if json.Unmarshal(body, &cals); status != http.StatusOK || len(cals.Data) == 0 {
		t.Fatalf("list calendars = %d %s", status, body)
	}
	hookAddr := freeLoopbackPort(t)
	status, body = request(t, "POST", base+"/v1/calendarSubscriptions/"+acct.ID, apiKey, map[string]any{"calendarId": cals.Data[0].ID, "webhookUrl": "http://" + hookAddr + "/unical"})
	if status != http.StatusOK {
		t.Fatalf("create subscription = %d %s", status, body)
	}
	var sub struct {
		ID     string `json:"webhookSubscriptionId"`
		Secret string `json:"endpointSecret"`
	}
	json.Unmarshal(body, &sub)
	receiverLog := startExampleReceiver(t, hookAddr, sub.Secret)

	b.open(base + "/dashboard/")
	b.submit("login", chromedp.KeyEvent(adminToken+"\r"))
	b.open(appURL + "/webhooks")
	if status := b.submit("send test event", chromedp.Click(chromedp.CSS(`button[aria-label="Send a test event to subscription `+sub.ID+`"]`))); status != http.StatusOK {
		t.Fatalf("send test event = %d, want 200", status)
	}
	b.mustSee("webhooks", "A webhook.test message was queued", "Delivery log of subscription "+sub.ID)

	// The delivery log shows the test message's 204 once the receiver
	// has answered it.
	var row []string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		b.open(appURL + "/webhooks?sub=" + sub.ID)
		if rows := b.rows("table.log tbody tr"); len(rows) == 1 && len(rows[0]) == 8 && rows[0][3] == "204" {
			row = rows[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log does not show the test message's 204:\n%s", b.text())
		}
	}
	msgID := row[6]
	if row[1] != "webhook.test" {
		t.Errorf("the log's event is %q, want webhook.test", row[1])
	}
	if got := receiverLog.String(); !strings.Contains(got, msgID+": webhook.test: a test message from unical, received and verified") || strings.Contains(got, "refused") {
		t.Fatalf("examples/receiver did not log %s verified:\n%s", msgID, got)
	}
	b.shot("traffic-01-test-event")

	// The payload viewer: the body and headers it shows verify with the
	// subscription's secret, which it never shows.
	if status := b.submit("payload", chromedp.Click(chromedp.CSS(`a[href*="/webhooks/messages/`+msgID+`?at="]`))); status != http.StatusOK {
		t.Fatalf("payload viewer = %d", status)
	}
	shown, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("signed-body").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	var payload struct{ EventType, WebhookSubscriptionID string }
	if err := json.Unmarshal([]byte(shown), &payload); err != nil || payload.EventType != "webhook.test" || payload.WebhookSubscriptionID != sub.ID {
		t.Fatalf("the viewer's body %q is not the test message (%v)", shown, err)
	}
	header := http.Header{}
	for _, r := range b.rows("table.headers tbody tr") {
		header.Add(r[0], r[1])
	}
	if header.Get("webhook-id") != msgID || header.Get("user-agent") != "unical-webhooks" || header.Get("content-type") != "application/json" {
		t.Errorf("the viewer's headers = %v", header)
	}
	wh, err := standardwebhooks.NewWebhook(sub.Secret)
	if err != nil {
		t.Fatal(err)
	}
	// The attempt was a moment ago, well within the library's tolerance.
	if err := wh.Verify([]byte(shown), header); err != nil {
		t.Errorf("the viewer's body and headers do not verify with the subscription's secret: %v", err)
	}
	if page := b.html(); strings.Contains(page, sub.Secret) || strings.Contains(page, "whsec_") {
		t.Error("the payload viewer shows the subscription's secret")
	}
	b.shot("traffic-02-payload")

	// The request log: a failed call listed by its route and status, with
	// nothing of the key, the query or the path's id.
	const queryNeedle, idNeedle = "limit-query-needle", "acc_path-id-needle"
	if status, body := request(t, "GET", base+"/v1/endUserAccounts?limit="+queryNeedle, apiKey, nil); status != http.StatusBadRequest {
		t.Fatalf("GET with a bad limit = %d %s, want 400", status, body)
	}
	if status, body := request(t, "GET", base+"/v1/endUserAccounts/"+idNeedle, apiKey, nil); status != http.StatusNotFound {
		t.Fatalf("GET an unknown account = %d %s, want 404", status, body)
	}
	b.open(appURL + "/requests")
	rows := b.rows("table.log tbody tr")
	if len(rows) < 2 || len(rows[0]) != 6 || len(rows[1]) != 6 {
		t.Fatalf("the Requests page lists %v, want the calls", rows)
	}
	// Newest first: time, method, route, status, latency, key.
	if got := rows[0][1:4]; strings.Join(got, " ") != "GET /v1/endUserAccounts/{id} 404" {
		t.Errorf("the newest request reads %v, want GET /v1/endUserAccounts/{id} 404", got)
	}
	if got := rows[1][1:4]; strings.Join(got, " ") != "GET /v1/endUserAccounts 400" {
		t.Errorf("the request before reads %v, want GET /v1/endUserAccounts 400", got)
	}
	if !strings.HasPrefix(rows[1][5], "key_") {
		t.Errorf("the request's key is shown as %q, want the key's id", rows[1][5])
	}
	page := b.html()
	for _, secret := range []string{apiKey, apiKey[strings.LastIndex(apiKey, "_"):], queryNeedle, idNeedle} {
		if strings.Contains(page, secret) {
			t.Errorf("the Requests page shows %q", secret)
		}
	}
	b.do("failed only", chromedp.Click(chromedp.CSS(`a[href="?failed=1"]`)), chromedp.WaitVisible(chromedp.CSS("caption")))
	b.mustSee("requests", "Failed requests, newest first", "400", "404")
	b.shot("traffic-03-requests")

	b.do("narrow", chromedp.EmulateViewport(390, 844))
	for _, path := range []string{"/requests", "/webhooks?sub=" + sub.ID} {
		b.open(appURL + path)
		if b.overflows() {
			t.Errorf("%s is wider than a 390 px screen", path)
		}
	}
	b.submit("payload narrow", chromedp.Click(chromedp.CSS(`a[href*="/webhooks/messages/`+msgID+`?at="]`)))
	if b.overflows() {
		t.Error("the payload viewer is wider than a 390 px screen")
	}
	b.shot("traffic-04-payload-narrow")
}
