package admin_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

// clock is a settable time for Config.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// mustNewService returns a Service over a fresh stack (bolt, VIRTUAL
// calendars) with a clock, and an application made through it.
func mustNewService(tb testing.TB, cfg admin.Config) (*admin.Service, *apitest.Stack, string) {
	tb.Helper()
	st := apitest.Start(tb, nil, nil)
	cfg.Client = st.Client
	svc, err := admin.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	created, err := svc.CreateApplication(tb.Context(), &admin.ApplicationParams{Name: unical.Some("shop")})
	if err != nil {
		tb.Fatal(err)
	}
	return svc, st, created.ApplicationID
}

// operations lists the audit log's actor, operation and target, newest
// first.
func operations(tb testing.TB, svc *admin.Service, appID string) []string {
	tb.Helper()
	page, err := svc.ListAudit(tb.Context(), &admin.AuditListParams{ApplicationID: appID, Limit: 250})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range page.Data {
		out = append(out, e.Actor+" "+e.Operation+" "+e.TargetID)
	}
	return out
}

func TestService_Audit(t *testing.T) {
	t.Parallel()
	t.Run("ActorsAndRetention", func(t *testing.T) {
		t.Parallel()
		clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
		svc, _, appID := mustNewService(t, admin.Config{Now: clk.Now, AuditRetention: time.Hour})
		ctx := t.Context()
		clk.Advance(2 * time.Hour)
		cli := svc.As(admin.ActorCLI)
		if _, err := cli.RenameApplication(ctx, appID, "shop 2"); err != nil {
			t.Fatal(err)
		}
		dash := svc.As(admin.ActorDashboard)
		key, err := dash.CreateAPIKey(ctx, appID, "deploys")
		if err != nil {
			t.Fatal(err)
		}
		// The first two entries (made two hours ago) are past the hour of
		// retention: the rename's write removed them.
		want := []string{"dashboard apiKey.create " + key.Key.ID, "cli application.rename "}
		if d := cmp.Diff(want, operations(t, svc, appID)); d != "" {
			t.Errorf("audit log mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("RefusedChangeNotRecorded", func(t *testing.T) {
		t.Parallel()
		svc, _, appID := mustNewService(t, admin.Config{})
		before := operations(t, svc, appID)
		if _, err := svc.RenameApplication(t.Context(), appID, " "); unical.ErrorCode(err) != unical.CodeInvalid {
			t.Fatalf("RenameApplication(blank) = %v, want invalid", err)
		}
		if err := svc.RevokeAPIKey(t.Context(), appID, "key_unknown"); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Fatalf("RevokeAPIKey(unknown) = %v, want not_found", err)
		}
		if d := cmp.Diff(before, operations(t, svc, appID)); d != "" {
			t.Errorf("audit log after refused changes mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("ErrInvalidLimit", func(t *testing.T) {
		t.Parallel()
		svc, _, _ := mustNewService(t, admin.Config{})
		for _, limit := range []int{-1, 251} {
			_, err := svc.ListAudit(t.Context(), &admin.AuditListParams{Limit: limit})
			var e *unical.Error
			if unical.ErrorCode(err) != unical.CodeInvalid || !asError(err, &e) || e.Field != "limit" {
				t.Errorf("ListAudit(limit %d) = %v, want invalid naming limit", limit, err)
			}
		}
	})
}

func TestService_ConnectCalDAVAccount(t *testing.T) {
	t.Parallel()
	svc, _, appID := mustNewService(t, admin.Config{})
	ctx := t.Context()
	if _, err := svc.ConnectCalDAVAccount(ctx, appID, admin.CalDAVConnection{Email: "ada@example.com"}); unical.ErrorCode(err) != unical.CodeInvalid || !hasField(err, "password") {
		t.Errorf("ConnectCalDAVAccount(no password) = %v, want invalid naming password", err)
	}
	page, err := svc.ListAccounts(ctx, appID, nil)
	if err != nil || len(page.Data) != 0 {
		t.Errorf("accounts after a refused connection = %v, %v; want none", page, err)
	}
}

// hasField reports whether err is a *unical.Error naming field.
func hasField(err error, field string) bool {
	var e *unical.Error
	return asError(err, &e) && e.Field == field
}

func TestService_PauseResumeSubscription(t *testing.T) {
	t.Parallel()
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	svc, st, appID := mustNewService(t, admin.Config{Now: clk.Now})
	ctx := t.Context()
	acct, err := svc.CreateVirtualAccount(ctx, appID, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	app, err := st.Client.App(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := subscriptions.Create(ctx, app, acct.ID, &subscriptions.CreateParams{CalendarID: "primary", WebhookURL: "https://hooks.example.com/cal"})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := svc.PauseSubscription(ctx, appID, sub.WebhookSubscriptionID)
	if err != nil {
		t.Fatal(err)
	}
	if !admin.Paused(paused.EndpointState) || !paused.DisabledAt.Equal(clk.Now()) {
		t.Errorf("after PauseSubscription state = %+v, want paused at %v", paused.EndpointState, clk.Now())
	}
	resumed, err := svc.ResumeSubscription(ctx, appID, sub.WebhookSubscriptionID)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.EndpointState != (outbox.EndpointState{}) {
		t.Errorf("after ResumeSubscription state = %+v, want working", resumed.EndpointState)
	}
	other, err := svc.CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("other")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PauseSubscription(ctx, other.ApplicationID, sub.WebhookSubscriptionID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("PauseSubscription(other application) = %v, want not_found", err)
	}
	if _, err := svc.DeleteSubscription(ctx, appID, sub.WebhookSubscriptionID); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"admin-token subscription.delete " + sub.WebhookSubscriptionID,
		"admin-token subscription.resume " + sub.WebhookSubscriptionID,
		"admin-token subscription.pause " + sub.WebhookSubscriptionID,
		"admin-token account.create " + acct.ID,
	}
	if d := cmp.Diff(want, operations(t, svc, appID)[:4]); d != "" {
		t.Errorf("audit log mismatch (-want +got):\n%s", d)
	}
}
