package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/unical/unical/internal/testkit/apitest"
)

// TestDashboard_RetryNow_Browser checks "retry now" in the dashboard: the
// application webhook's first attempt fails and the retry schedule waits
// an hour; the log offers "Retry now" for the pending message, which
// brings that wait to an end, and the receiver gets the message at once,
// verified, and exactly once; once delivered, the log offers no action.
func TestDashboard_RetryNow_Browser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	rcv := apitest.NewReceiverAnswering(t, func(n int) int {
		if n < 1 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	const adminToken = "uat_browser-retry-admin-token-0123456789abcdef"
	addr := freeLoopbackPort(t)
	base := "http://" + addr
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminToken}
	srv := startServe(t, &Main{WebhookTLS: rcv.TLSConfig(), Getenv: func(k string) string { return env[k] }}, t.TempDir(),
		"--addr", addr, "--public-url", base, "--allow-private-targets", "--retry-schedule", "1h", "--retry-jitter", "0")
	apiKey := apiKeyFrom(t, srv.Stdout.String())
	appID := regexp.MustCompile(`applicationId: +(\S+)`).FindStringSubmatch(srv.Stdout.String())[1]
	appURL := base + "/dashboard/apps/" + appID

	b.open(base + "/dashboard/")
	b.submit("login", chromedp.KeyEvent(adminToken+"\r"))
	b.open(appURL + "/webhooks")
	b.do("fill webhook", chromedp.SendKeys(chromedp.ID("webhook-url"), rcv.URL+"/hook"))
	b.submit("save webhook", chromedp.Submit(chromedp.ID("webhook-url")))
	rcv.SetSecret(b.value("newsecret"))

	// A new account queues an enduseraccount message; its first attempt
	// fails, and the next is an hour away.
	if status, body := request(t, "POST", base+"/v1/endUserAccounts", apiKey, map[string]any{"email": "retry@example.com", "providerType": "VIRTUAL"}); status != http.StatusOK {
		t.Fatalf("create account = %d %s", status, body)
	}
	rcv.WaitFor(t, 1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		b.open(appURL + "/webhooks")
		if rows := b.rows("table.log tbody tr"); len(rows) == 1 && len(rows[0]) > 3 && rows[0][3] == "500" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log does not show the failed attempt:\n%s", b.text())
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.shot("retry-01-failed")
	if got := b.rows("table.log tbody tr")[0]; got[len(got)-1] != "Payload of attempt 1 of "+got[6]+"\nRetry now" {
		t.Errorf("the failed attempt's actions read %q, want its payload link and Retry now", got[len(got)-1])
	}

	if status := b.submit("retry now", chromedp.Click(chromedp.CSS(`form[action$="/webhooks/resend"] button`))); status != http.StatusOK {
		t.Errorf("retry now = %d, want 200", status)
	}
	b.mustSee("webhooks", "The message's next attempt was brought forward to now.")
	got := rcv.WaitFor(t, 2)
	if len(got) != 2 || got[1].ID != got[0].ID || !got[1].Verified {
		t.Fatalf("receiver got %+v, want the same message again, verified", got)
	}
	// Delivered, the message is in the log once more, and nothing offers
	// to send it again.
	deadline = time.Now().Add(20 * time.Second)
	for {
		b.open(appURL + "/webhooks")
		if rows := b.rows("table.log tbody tr"); len(rows) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log does not show the second attempt:\n%s", b.text())
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.mustSee("webhooks", "204", "delivered")
	if n := len(b.rows(`form[action$="/webhooks/resend"]`)); n != 0 {
		t.Errorf("the log offers %d resend or retry buttons for a delivered message, want none", n)
	}
	b.shot("retry-02-delivered")
	if n := len(rcv.Deliveries()); n != 2 {
		t.Errorf("the receiver got %d requests, want 2", n)
	}
	if strings.Contains(b.html(), "whsec_") {
		t.Error("the Webhooks page shows the webhook secret after the page that created it")
	}
}
