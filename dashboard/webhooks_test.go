package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
)

// TestWebhooks_TestEventPayloadRetry follows a test event through the
// Webhooks page: "Send a test event" queues a webhook.test message that
// the receiver gets signed; its first attempt fails and the next waits an
// hour, so the log offers "Retry now" and a payload viewer that shows the
// body and headers the receiver got, and no secret; "Retry now" delivers
// it, after which no action is offered.
func TestWebhooks_TestEventPayloadRetry(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiverAnswering(t, func(n int) int {
		if n == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	f := newFixtureWith(t, "https://cal.example.com", func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.AllowPrivateTargets = true
		cfg.RetrySchedule = []time.Duration{0, time.Hour}
		cfg.RetryJitter = -1
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, f.client, f.engine) }()
	t.Cleanup(func() { cancel(); <-done })

	b := f.browser(t)
	token := b.mustLogin()
	created, err := admin.Of(f.client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("hooks")})
	if err != nil {
		t.Fatal(err)
	}
	hooks := "/dashboard/apps/" + created.ApplicationID + "/webhooks"
	set := b.post(hooks+"/url", url.Values{"csrf": {token}, "url": {rcv.URL + "/hook"}})
	secret := regexp.MustCompile(`value="(whsec_[^"]+)"`).FindStringSubmatch(set.body)
	if secret == nil {
		t.Fatalf("setting the webhook URL shows no secret:\n%s", set.body)
	}
	rcv.SetSecret(html.UnescapeString(secret[1]))

	if p := b.post(hooks+"/test", url.Values{"csrf": {token}}); p.status != http.StatusSeeOther || !strings.Contains(p.location, "done=test-queued") {
		t.Fatalf("send a test event = %d to %q:\n%s", p.status, p.location, p.body)
	}
	got := rcv.WaitFor(t, 1)
	if !got[0].Verified || got[0].Payload(t).EventType != "webhook.test" {
		t.Fatalf("the receiver got %s verified %v, want a verified webhook.test", got[0].Body, got[0].Verified)
	}
	var page page
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if page = b.get(hooks); strings.Contains(page.body, ">Retry now</button>") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log offers no Retry now for the failed test event:\n%s", page.body)
		}
	}
	link := regexp.MustCompile(`href="(/dashboard/apps/[^"]+/webhooks/messages/` + got[0].ID + `\?at=\d+)"`).FindStringSubmatch(page.body)
	if link == nil {
		t.Fatalf("the delivery log has no payload link for %s:\n%s", got[0].ID, page.body)
	}
	viewer := b.get(html.UnescapeString(link[1]))
	if viewer.status != http.StatusOK {
		t.Fatalf("payload viewer = %d:\n%s", viewer.status, viewer.body)
	}
	text := html.UnescapeString(viewer.body)
	for _, want := range []string{
		string(got[0].Body),
		"<code>webhook-id</code></td><td><code class=\"wrap\">" + got[0].ID + "<",
		"<code>webhook-timestamp</code></td><td><code class=\"wrap\">" + got[0].Header.Get("webhook-timestamp") + "<",
		"<code>webhook-signature</code></td><td><code class=\"wrap\">" + got[0].Header.Get("webhook-signature") + "<",
		"<code>content-type</code></td><td><code class=\"wrap\">application/json<",
		"<code>user-agent</code></td><td><code class=\"wrap\">" + got[0].Header.Get("User-Agent") + "<",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the payload viewer does not show %q:\n%s", want, viewer.body)
		}
	}
	if strings.Contains(viewer.body, "whsec_") || strings.Contains(page.body, "whsec_") {
		t.Error("the payload viewer or the log shows a webhook secret")
	}

	if p := b.post(hooks+"/resend", url.Values{"csrf": {token}, "message": {got[0].ID}}); p.status != http.StatusSeeOther || !strings.Contains(p.location, "done=retried") {
		t.Fatalf("retry now = %d to %q", p.status, p.location)
	}
	got = rcv.WaitFor(t, 2)
	if got[1].ID != got[0].ID || !got[1].Verified {
		t.Fatalf("the retry is %q verified %v, want %q verified", got[1].ID, got[1].Verified, got[0].ID)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if page = b.get(hooks); strings.Contains(page.body, " delivered</div>") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log does not show the message delivered:\n%s", page.body)
		}
	}
	if strings.Contains(page.body, ">Retry now</button>") || strings.Contains(page.body, ">Resend</button>") {
		t.Errorf("the log offers to send a delivered message again:\n%s", page.body)
	}
	if n := len(rcv.Deliveries()); n != 2 {
		t.Errorf("the receiver got %d requests, want 2", n)
	}
}
