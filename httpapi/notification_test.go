package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// pushServer is httpapi over a Client whose Google provider pushes.
type pushServer struct {
	URL    string
	Client *unical.Client
	Store  *bolt.Store
	Google *memory.WatchProvider
	App    *unical.App
	Acct   string
	CalID  string
	Engine engine.Settings
}

func mustNewPushServer(tb testing.TB) *pushServer {
	tb.Helper()
	ps := &pushServer{Google: memory.NewWatcher(memory.Config{Type: unical.ProviderGoogle})}
	ps.Google.MaxWatch = time.Hour
	ps.CalID = ps.Google.AddUser(googleUser, googleToken, "")
	st := apitest.Start(tb, []unical.Provider{ps.Google, memory.New(memory.Config{Type: unical.ProviderCalDAV})}, func(cfg *apitest.Config) {
		cfg.WatchRenewBefore = 2 * time.Hour
	})
	ps.URL, ps.Client, ps.Store, ps.Engine = st.URL, st.Client, st.Store, st.Engine
	ctx := context.Background()
	created, err := admin.Of(ps.Client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("push")})
	if err != nil {
		tb.Fatal(err)
	}
	ps.App, _ = ps.Client.App(ctx, created.ApplicationID)
	acct, err := ps.App.CreateAccount(ctx, &unical.AccountCreateParams{Email: googleUser, ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some(googleToken)})
	if err != nil {
		tb.Fatal(err)
	}
	ps.Acct = acct.ID
	return ps
}

// notify posts a notification with header to address and returns the status.
func notify(tb testing.TB, address string, header http.Header) int {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodPost, address, strings.NewReader(""))
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// queued claims and returns the event types of every due message.
func (ps *pushServer) queued(tb testing.TB) []string {
	tb.Helper()
	msgs, err := ps.Store.ClaimMessages(context.Background(), "test", time.Now().Add(time.Second), time.Hour, 100)
	if err != nil {
		tb.Fatal(err)
	}
	var types []string
	for _, m := range msgs {
		m.Status = outbox.Delivered
		if err := ps.Store.UpdateMessage(context.Background(), m); err != nil {
			tb.Fatal(err)
		}
		types = append(types, m.EventType)
	}
	return types
}

func TestNotifications(t *testing.T) {
	t.Parallel()
	ps := mustNewPushServer(t)
	ctx := context.Background()
	created, err := subscriptions.Create(ctx, ps.App, ps.Acct, &subscriptions.CreateParams{CalendarID: ps.CalID, WebhookURL: "https://hooks.example.com/push"})
	if err != nil {
		t.Fatal(err)
	}
	subID := created.WebhookSubscriptionID
	watches := ps.Google.Watches()
	if len(watches) != 1 {
		t.Fatalf("provider has %d watches, want 1", len(watches))
	}
	w := watches[0]
	wantAddress := ps.URL + "/v1/notifications/provider_a/" + ps.App.ID() + "/" + subID
	if w.Address != wantAddress || w.Token == "" || w.CalendarID != ps.CalID {
		t.Errorf("watch = %+v, want address %s with a token", w, wantAddress)
	}
	sub, err := ps.Store.GetSubscription(ctx, ps.App.ID(), subID)
	if err != nil {
		t.Fatal(err)
	}
	if sub.SubscriptionID != w.ID || sub.ResourceID != w.ResourceID || sub.Expiration == nil || !sub.Expiration.Equal(w.Expiration) {
		t.Errorf("listed watch fields = %q %q %v, want those of %+v", sub.SubscriptionID, sub.ResourceID, sub.Expiration, w)
	}

	if got := notify(t, w.Address, memory.NotificationHeader(&w, "sync")); got != http.StatusOK {
		t.Errorf("hello status = %d, want 200", got)
	}
	if got := ps.queued(t); len(got) != 0 {
		t.Errorf("hello queued %v, want nothing", got)
	}
	for range 4 {
		if got := notify(t, w.Address, memory.NotificationHeader(&w, "exists")); got != http.StatusOK {
			t.Fatalf("change status = %d, want 200", got)
		}
	}
	if got := ps.queued(t); len(got) != 1 || got[0] != unical.EventTypeCalendarEventChanged {
		t.Errorf("four changes queued %v, want one calendar.event.changed", got)
	}
	forged := w
	forged.Token = "guessed"
	notify(t, w.Address, memory.NotificationHeader(&forged, "exists"))
	if got := ps.queued(t); len(got) != 0 {
		t.Errorf("forged notification queued %v, want nothing", got)
	}
	if got := notify(t, w.Address, http.Header{}); got != http.StatusBadRequest {
		t.Errorf("unreadable notification status = %d, want 400", got)
	}
	for _, path := range []string{"/v1/notifications/provider_x/a/b", "/v1/notifications/provider_c/" + ps.App.ID() + "/" + subID} {
		if got := notify(t, ps.URL+path, memory.NotificationHeader(&w, "exists")); got != http.StatusNotFound {
			t.Errorf("POST %s status = %d, want 404", path, got)
		}
	}

	// The watch runs an hour and is renewed within two hours of its end,
	// so the next pass renews it.
	ps.Client.Close() // no engine runs; PollChanges works without one
	if err := engine.PollChanges(ctx, ps.Client, ps.Engine); err != nil {
		t.Fatal(err)
	}
	renewed, err := ps.Store.GetSubscription(ctx, ps.App.ID(), subID)
	if err != nil {
		t.Fatal(err)
	}
	if renewed.Watch == nil || renewed.Watch.ID == w.ID || renewed.SubscriptionID != renewed.Watch.ID {
		t.Fatalf("watch after renewal = %+v, want a new one", renewed.Watch)
	}
	if stopped := ps.Google.Stopped(); len(stopped) != 1 || stopped[0] != w.ID {
		t.Errorf("stopped watches = %v, want the old %s", stopped, w.ID)
	}
	// The renewal keeps the token: Graph cannot change a subscription's
	// clientState.
	if nw := ps.Google.Watches(); len(nw) != 1 || nw[0].Token != w.Token || renewed.Watch.Token != w.Token {
		t.Errorf("token after renewal = %+v, want the original %q kept", nw, w.Token)
	}
	notify(t, w.Address, memory.NotificationHeader(&w, "exists"))
	if got := ps.queued(t); len(got) != 0 {
		t.Errorf("the old watch's notification queued %v, want nothing", got)
	}

	if _, err := subscriptions.Delete(ctx, ps.App, ps.Acct, &subscriptions.DeleteParams{SubscriptionID: subID}); err != nil {
		t.Fatal(err)
	}
	if len(ps.Google.Watches()) != 0 {
		t.Errorf("watches after delete = %v, want none", ps.Google.Watches())
	}
}

// TestDeleteAccountStopsWatches checks that deleting an account stops the
// provider watches of its subscriptions.
func TestDeleteAccountStopsWatches(t *testing.T) {
	t.Parallel()
	ps := mustNewPushServer(t)
	ctx := context.Background()
	if _, err := subscriptions.Create(ctx, ps.App, ps.Acct, &subscriptions.CreateParams{CalendarID: ps.CalID, WebhookURL: "https://hooks.example.com/a"}); err != nil {
		t.Fatal(err)
	}
	watches := ps.Google.Watches()
	if len(watches) != 1 {
		t.Fatalf("provider has %d watches, want 1", len(watches))
	}
	if _, err := ps.App.DeleteAccount(ctx, ps.Acct); err != nil {
		t.Fatal(err)
	}
	if left := ps.Google.Watches(); len(left) != 0 {
		t.Errorf("watches after the account was deleted = %+v, want none", left)
	}
	if stopped := ps.Google.Stopped(); len(stopped) != 1 || stopped[0] != watches[0].ID {
		t.Errorf("stopped = %v, want %s", stopped, watches[0].ID)
	}
}
