package engine_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/postgres"
	"github.com/unical/unical/subscriptions"
	deliver "github.com/unical/unical/webhooksender"
)

// countingReceiver records the arrival time of each webhook-id; unlike the
// test receiver it does not verify (the tests do), so that the receiver is
// not what the benchmark measures.
type countingReceiver struct {
	mu      sync.Mutex
	arrived map[string]time.Time
	want    int
	done    chan struct{}
}

func (r *countingReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	id := req.Header.Get("webhook-id")
	r.mu.Lock()
	if _, dup := r.arrived[id]; !dup {
		r.arrived[id] = time.Now()
		if len(r.arrived) == r.want {
			close(r.done)
		}
	}
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// BenchmarkDelivery measures signed deliveries through the durable bolt
// outbox to a loopback HTTPS receiver, next to what the bolt outbox alone
// allows in the same run:
//
//   - BoltClaim1Update: claim one message and mark it delivered, two
//     fsynced commits per message (as store/bolt's benchmark).
//   - BoltClaim16Record1 and BoltClaim16Record16: claim 16 at a time, then
//     write them back with their delivery-log entries one per commit, or
//     all 16 in one commit (the engine's group commit at its best).
//   - Engine: b.N queued messages drained by Client.Run (16 workers) to the
//     receiver: deliveries per second.
//   - Latency: messages queued one at a time, 5 ms apart (200/s, below
//     saturation), the way change detection queues them; the time from
//     queueing to arrival, p50 and p99.
func BenchmarkDelivery(b *testing.B) {
	b.Run("BoltClaim1Update", func(b *testing.B) {
		env := mustNewEngineEnv(b, nil)
		subID, _ := env.mustSubscribe(b, "https://hooks.example.com/bench", 100000)
		env.mustEnqueueMany(b, subID, b.N)
		ctx := context.Background()
		b.ResetTimer()
		for range b.N {
			msgs, err := env.Store.ClaimMessages(ctx, "bench", time.Now(), time.Minute, 1)
			if err != nil || len(msgs) != 1 {
				b.Fatalf("ClaimMessages() = %d, %v", len(msgs), err)
			}
			msgs[0].Status, msgs[0].Attempts = outbox.Delivered, 1
			if err := env.Store.UpdateMessage(ctx, msgs[0]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	for _, perCommit := range []int{1, 16} {
		b.Run(fmt.Sprintf("BoltClaim16Record%d", perCommit), func(b *testing.B) {
			env := mustNewEngineEnv(b, nil)
			subID, _ := env.mustSubscribe(b, "https://hooks.example.com/bench", 100000)
			env.mustEnqueueMany(b, subID, b.N)
			ctx := context.Background()
			b.ResetTimer()
			for done := 0; done < b.N; {
				msgs, err := env.Store.ClaimMessages(ctx, "bench", time.Now(), time.Minute, 16)
				if err != nil || len(msgs) == 0 {
					b.Fatalf("ClaimMessages() = %d, %v", len(msgs), err)
				}
				results := deliveredResults(msgs)
				for chunk := range slices.Chunk(results, perCommit) {
					errs, err := env.Store.RecordDeliveries(ctx, chunk)
					if err != nil || slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
						b.Fatal(err, errs)
					}
				}
				done += len(msgs)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
	b.Run("Engine", func(b *testing.B) {
		rcv := &countingReceiver{arrived: map[string]time.Time{}, want: b.N, done: make(chan struct{})}
		url, sender := benchTarget(b, rcv)
		env := mustNewEngineEnv(b, func(cfg *apitest.Config) { cfg.Sender = sender })
		subID, _ := env.mustSubscribe(b, url+"/bench", 100000)
		env.mustEnqueueMany(b, subID, b.N)
		b.ResetTimer()
		env.run(b)
		select {
		case <-rcv.done:
		case <-time.After(10 * time.Minute):
			b.Fatal("deliveries did not finish")
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
	})
	b.Run("Latency", func(b *testing.B) {
		rcv := &countingReceiver{arrived: map[string]time.Time{}, want: b.N, done: make(chan struct{})}
		url, sender := benchTarget(b, rcv)
		env := mustNewEngineEnv(b, func(cfg *apitest.Config) { cfg.Sender = sender })
		subID, _ := env.mustSubscribe(b, url+"/bench", 100000)
		env.run(b)
		ctx := context.Background()
		queued := make(map[string]time.Time, b.N)
		b.ResetTimer()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for range b.N {
			<-tick.C
			start := time.Now()
			id, err := enqueueChange(ctx, env.Client, env.App.ID(), subID)
			if err != nil {
				b.Fatal(err)
			}
			queued[id] = start
		}
		select {
		case <-rcv.done:
		case <-time.After(time.Minute):
			b.Fatal("deliveries did not finish")
		}
		rcv.mu.Lock()
		var lat []time.Duration
		for id, at := range rcv.arrived {
			lat = append(lat, at.Sub(queued[id]))
		}
		rcv.mu.Unlock()
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	})
}

// mustEnqueueMany queues n messages for a subscription in batches.
func (env *engineEnv) mustEnqueueMany(tb testing.TB, subID string, n int) {
	tb.Helper()
	now := time.Now().UTC()
	for start := 0; start < n; start += 1000 {
		var msgs []*outbox.Message
		for i := start; i < min(start+1000, n); i++ {
			msgs = append(msgs, &outbox.Message{
				ID: fmt.Sprintf("msg_bench_%09d", i), ApplicationID: env.App.ID(), SubscriptionID: subID,
				EventType: unical.EventTypeCalendarEventChanged, Payload: []byte(`{"eventType":"calendar.event.changed","timestamp":"2026-11-22T12:00:00Z"}`),
				CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
			})
		}
		if err := env.Store.EnqueueMessages(context.Background(), msgs); err != nil {
			tb.Fatal(err)
		}
	}
}

// benchTarget serves h on loopback HTTPS and returns its URL and the
// delivery client of unicald trusting it. The benchmark counts arrivals
// without verifying signatures, so it measures our side only.
func benchTarget(b *testing.B, h http.Handler) (string, engine.Sender) {
	srv := httptest.NewTLSServer(h)
	b.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv.URL, deliver.New(deliver.Config{AllowPrivate: true, TLSConfig: &tls.Config{RootCAs: pool}, Timeout: 5 * time.Second})
}

// BenchmarkPolling measures the CPU cost of change polling: 1,000
// subscriptions on the in-memory provider (a fast local fake, so that the
// engine's own cost shows: claiming due subscriptions from the Store, the
// sync-cursor check, the bookkeeping), each due every second, checked by
// Client.Run until b.N checks are done, on bolt and on PostgreSQL (a
// throwaway cluster on the same machine; its server's CPU is not counted,
// only this process's, which is one replica's). It reports the process's
// CPU time (user + system) per 1,000 checks, and what that makes of one
// replica keeping 10,000 subscriptions on a one-minute interval (167
// checks a second) as a share of one core.
func BenchmarkPolling(b *testing.B) {
	b.Run("Bolt", func(b *testing.B) { benchmarkPolling(b, nil) })
	b.Run("Postgres", func(b *testing.B) {
		url := pgtest.Start(b, pgtest.Options{Durable: true}).NewDatabase(b)
		store, err := postgres.Open(b.Context(), postgres.Config{URL: url})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { store.Close() })
		benchmarkPolling(b, store)
	})
}

// BenchmarkPollingGoogleFake is BenchmarkPolling on bolt with the Google
// provider against the Google fake (internal/testkit/googletest) over loopback
// HTTP: the provider's requests and JSON count too. The fake runs in this
// process, so its CPU is counted as well, which makes this an upper bound
// for a replica.
func BenchmarkPollingGoogleFake(b *testing.B) {
	const subs, user, clientID, secret = 1000, "dana@example.com", "bench-client", "bench-secret"
	g := googletest.NewServer(b, googletest.Options{})
	g.AddUser(googletest.User{Email: user, Name: "Dana", TimeZone: "UTC"})
	g.AddClient(googletest.Client{ID: clientID, Secret: secret, RedirectURIs: []string{"https://unical.example.com/v1/oauth/callback"}})
	p, err := google.New(google.Config{})
	if err != nil {
		b.Fatal(err)
	}
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(b.TempDir(), "unical.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	settings := engine.Settings{Sender: &fakeSender{status: http.StatusOK}, ChangePollInterval: time.Second}
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{p}, MasterKey: seal.NewKey(),
		AllowPrivateTargets: true, Subscriptions: &subscriptions.Hooks{ChangePollInterval: settings.ChangePollInterval}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Close() })
	ctx := context.Background()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("bench"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{unical.ProviderGoogle: {ClientID: clientID, ClientSecret: secret,
			AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(), APIBaseURL: g.APIBaseURL()}}})
	if err != nil {
		b.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		b.Fatal(err)
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: user, ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some(g.IssueRefreshToken(clientID, user))})
	if err != nil {
		b.Fatal(err)
	}
	for i := range subs {
		cal := g.AddCalendar(user, googletest.Calendar{Summary: fmt.Sprint("Calendar ", i)})
		if _, err := subscriptions.Create(ctx, app, acct.ID, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: "https://hooks.example.com/poll"}); err != nil {
			b.Fatal(err)
		}
	}
	total := func() int { return g.RequestCount("GET", "/calendar/v3/calendars/") }
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	before, start := cpuTime(b), time.Now()
	from := total()
	b.ResetTimer()
	go func() { done <- engine.Run(runCtx, client, settings) }()
	for total()-from < b.N {
		time.Sleep(200 * time.Millisecond)
	}
	b.StopTimer()
	checks, cpu, wall := total()-from, cpuTime(b)-before, time.Since(start)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	perThousand := cpu.Seconds() / float64(checks) * 1000
	b.ReportMetric(perThousand, "cpu-s/1000checks")
	b.ReportMetric(float64(checks)/wall.Seconds(), "checks/s")
	b.ReportMetric(perThousand*10000/60/1000*100, "%core@10k/min")
}

// benchmarkPolling is BenchmarkPolling on store, or on bolt when it is nil.
func benchmarkPolling(b *testing.B, store unical.Store) {
	const subs = 1000
	var counter *checkCounter
	env := mustNewEngineEnv(b, func(cfg *apitest.Config) {
		if store != nil {
			cfg.Store = store
		}
		counter = &checkCounter{Provider: cfg.Providers[0], checks: map[string][]time.Time{}}
		cfg.Providers[0] = counter
		cfg.ChangePollInterval = time.Second
		cfg.Sender = &fakeSender{status: http.StatusOK}
	})
	ctx := context.Background()
	for i := range subs {
		cal, err := env.App.CreateCalendar(ctx, env.AccountID, &unical.CalendarParams{Name: unical.Some(fmt.Sprint("Calendar ", i))})
		if err != nil {
			b.Fatal(err)
		}
		env.mustSubscribe2(b, env.AccountID, cal.ID)
	}
	total := func() int {
		counter.mu.Lock()
		defer counter.mu.Unlock()
		n := 0
		for _, at := range counter.checks {
			n += len(at)
		}
		return n
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	before, start := cpuTime(b), time.Now()
	from := total()
	b.ResetTimer()
	go func() { done <- engine.Run(runCtx, env.Client, env.Engine) }()
	for total()-from < b.N {
		time.Sleep(10 * time.Millisecond)
	}
	b.StopTimer()
	checks, cpu, wall := total()-from, cpuTime(b)-before, time.Since(start)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	perThousand := cpu.Seconds() / float64(checks) * 1000
	b.ReportMetric(perThousand, "cpu-s/1000checks")
	b.ReportMetric(float64(checks)/wall.Seconds(), "checks/s")
	// 10,000 subscriptions a minute are 10000/60 checks a second.
	b.ReportMetric(perThousand*10000/60/1000*100, "%core@10k/min")
}

// cpuTime is the CPU time (user + system) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// deliveredResults writes claimed messages back as delivered on their
// first attempt, each with its delivery-log entry, as a worker would.
func deliveredResults(msgs []*outbox.Message) []outbox.Result {
	results := make([]outbox.Result, 0, len(msgs))
	for _, m := range msgs {
		m.Status, m.Attempts = outbox.Delivered, 1
		results = append(results, outbox.Result{Message: m, Attempt: &outbox.Attempt{
			ID: "att_" + m.ID, ApplicationID: m.ApplicationID, MessageID: m.ID, SubscriptionID: m.SubscriptionID,
			EventType: m.EventType, Attempt: 1, At: time.Now(), StatusCode: 204, ExpiresAt: time.Now().Add(time.Hour)}})
	}
	return results
}

// enqueueChange queues a calendar.event.changed message for a
// subscription the way change detection does (waking a running engine),
// so that benchmarks can time detection-to-delivery without a provider.
func enqueueChange(ctx context.Context, c *unical.Client, appID, subID string) (string, error) {
	sub, err := c.Store().GetSubscription(ctx, appID, subID)
	if err != nil {
		return "", err
	}
	return subscriptions.Enqueue(ctx, c, sub, unical.EventTypeCalendarEventChanged, nil)
}
