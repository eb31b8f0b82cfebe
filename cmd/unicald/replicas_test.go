package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/postgres"
	"github.com/unical/unical/subscriptions"
)

// replicaReceiver is the HTTPS webhook receiver of TestReplicas: it
// verifies each request with its path's secret and records the message
// ids.
type replicaReceiver struct {
	mu       sync.Mutex
	verifier map[string]*standardwebhooks.Webhook // by path
	seen     map[string]int                       // message id → deliveries
	bad      int
}

func (r *replicaReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if req.URL.Path == "/bulk" {
		// A receiver that takes a moment, so that the kill finds
		// deliveries under way, and 1,000 take more than an instant.
		time.Sleep(30 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	wh := r.verifier[req.URL.Path]
	if wh == nil || wh.Verify(body, req.Header) != nil {
		r.bad++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.seen[req.Header.Get("webhook-id")]++
	w.WriteHeader(http.StatusNoContent)
}

func (r *replicaReceiver) expect(tb testing.TB, path, secret string) {
	tb.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		tb.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verifier[path] = wh
}

// arrived returns how many of ids arrived at least once.
func (r *replicaReceiver) arrived(ids []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, id := range ids {
		if r.seen[id] > 0 {
			n++
		}
	}
	return n
}

// replica is one unicald serve process.
type replica struct {
	url    string
	cmd    *exec.Cmd
	stderr *os.File
}

// TestReplicas starts three `unicald serve` processes, built from this
// module, on one PostgreSQL database with the Google fake as provider,
// and checks over real HTTP that they share one state and split the work:
// what one creates the others read; an OAuth flow started on one ends on
// another; a revoked API key stops working on all within the cache time;
// 200 subscriptions polled every 2 s are checked about once per interval
// in all, also after one replica is killed; a subscription limited to 2
// messages per second gets them at that pace from all three together; and
// 1,000 messages all arrive although a replica is killed with SIGKILL
// while sending them, with each duplicate one it held a lease on.
func TestReplicas(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds unicald and starts three processes on PostgreSQL")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "unicald")
	built := make(chan error, 1)
	go func() {
		out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("go build: %v\n%s", err, out)
		}
		built <- err
	}()
	pg := pgtest.Start(t, pgtest.Options{})
	storeURL := pg.NewDatabase(t)
	masterKey := seal.NewKey().String()
	// The fakes listen on loopback: the admin commands save their URLs
	// under the development policy, as the replicas use them.
	env := envOf(map[string]string{"UNICAL_MASTER_KEY": masterKey, "UNICAL_ALLOW_PRIVATE_TARGETS": "1"})

	// The provider, and the receiver with a certificate the replicas
	// trust through SSL_CERT_FILE.
	const user, clientID, clientSecret, back = "dana@example.com", "client-1", "secret-1", "https://app.example.com/back"
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: user, Name: "Dana", TimeZone: "Europe/Paris"})
	rcv := &replicaReceiver{verifier: map[string]*standardwebhooks.Webhook{}, seen: map[string]int{}}
	hooks := httptest.NewTLSServer(rcv)
	t.Cleanup(hooks.Close)
	bundle := filepath.Join(dir, "receiver-ca.pem")
	if err := os.WriteFile(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hooks.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	// The application, made with the admin commands on the same database.
	var out bytes.Buffer
	admin := func(args ...string) string {
		t.Helper()
		out.Reset()
		m := &Main{Stdout: &out, Stderr: io.Discard, Getenv: env, Providers: []unical.Provider{}}
		if err := m.Run(t.Context(), append(args, "--store", storeURL)); err != nil {
			t.Fatalf("unicald %v: %v", args, err)
		}
		return out.String()
	}
	var app struct {
		ApplicationID string `json:"applicationId"`
		APIKey        string `json:"apiKey"`
	}
	if err := json.Unmarshal([]byte(admin("apps", "create", "--name", "replicas", "--json", "--redirect-url", back)), &app); err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(dir, "client-secret")
	if err := os.WriteFile(secretFile, []byte(clientSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	admin("apps", "update", "--id", app.ApplicationID, "--provider", "provider_a", "--client-id", clientID, "--client-secret-file", secretFile,
		"--auth-url", g.AuthURL(), "--token-url", g.TokenURL(), "--userinfo-url", g.UserinfoURL(), "--api-base-url", g.APIBaseURL())

	// Three replicas. They share one public URL, replica 2's, as they
	// would a load balancer's: the OAuth callback lands there. It is
	// http, which the fake refuses for push, so every subscription is
	// polled.
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	var ports []string
	for range 3 {
		ports = append(ports, freePort(t))
	}
	publicURL := "http://127.0.0.1:" + ports[1]
	g.AddClient(googletest.Client{ID: clientID, Secret: clientSecret, RedirectURIs: []string{publicURL + unical.OAuthCallbackPath}})
	var reps []*replica
	for i, port := range ports {
		reps = append(reps, startReplica(t, bin, dir, i+1, []string{"UNICAL_MASTER_KEY=" + masterKey, "SSL_CERT_FILE=" + bundle, "SSL_CERT_DIR="},
			"serve", "--addr", "127.0.0.1:"+port, "--store", storeURL, "--public-url", publicURL, "--allow-private-targets",
			"--poll-interval", "2s", "--delivery-timeout", "2s", "--delivery-lease", "5s", "--rate-limit-key", "0", "--rate-limit-ip", "0"))
	}
	for _, r := range reps {
		waitReady(t, r)
	}
	call := func(r *replica, method, path string, body, v any) {
		t.Helper()
		code, b := request(t, method, r.url+path, app.APIKey, body)
		if code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("%s %s on %s = %d %s", method, path, r.url, code, b)
		}
		if v != nil {
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
	}

	// What replica 1 creates, replicas 2 and 3 read.
	var acct unical.Account
	call(reps[0], "POST", "/v1/endUserAccounts", map[string]any{"email": user, "providerType": unical.ProviderGoogle,
		"refreshToken": g.IssueRefreshToken(clientID, user)}, &acct)
	var cal unical.Calendar
	call(reps[0], "POST", "/v1/calendars/"+acct.ID, map[string]any{"name": "Replicated"}, &cal)
	var sub subscriptions.Created
	call(reps[0], "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": cal.ID, "webhookUrl": hooks.URL + "/first"}, &sub)
	for _, r := range reps[1:] {
		var gotAcct unical.Account
		call(r, "GET", "/v1/endUserAccounts/"+acct.ID, nil, &gotAcct)
		var gotCal unical.Calendar
		call(r, "GET", "/v1/calendars/"+acct.ID+"/"+url.PathEscape(cal.ID), nil, &gotCal)
		var subs struct {
			Data []unical.Subscription `json:"data"`
		}
		call(r, "GET", "/v1/calendarSubscriptions/"+acct.ID, nil, &subs)
		if gotAcct.ID != acct.ID || gotAcct.Email != user || gotCal.Name != "Replicated" ||
			len(subs.Data) != 1 || subs.Data[0].ID != sub.WebhookSubscriptionID {
			t.Errorf("%s reads account %+v, calendar %+v, subscriptions %+v; want what replica 1 made", r.url, gotAcct, gotCal, subs.Data)
		}
	}

	// 200 subscriptions, one calendar each, polled every 2 s. Made through
	// all three replicas at once.
	const polled = 200
	calendars := make([]string, polled)
	for i := range calendars {
		calendars[i] = g.AddCalendar(user, googletest.Calendar{Summary: fmt.Sprintf("Polled %d", i)})
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := w; i < polled; i += 6 {
				call(reps[i%3], "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": calendars[i], "webhookUrl": hooks.URL + "/polled"}, nil)
			}
		})
	}
	wg.Wait()
	checks := func() []int {
		n := make([]int, polled)
		for i, c := range calendars {
			n[i] = g.RequestCount("GET", "/calendar/v3/calendars/"+c+"/events")
		}
		return n
	}
	time.Sleep(2 * time.Second) // each one's first check, at a random point of the first interval
	pollStart, pollFrom := time.Now(), checks()

	// Meanwhile: an OAuth flow started on replica 1 ends on replica 2.
	var final, callback *url.URL
	browser := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		switch {
		case r.URL.Host == "app.example.com":
			final = r.URL
			return http.ErrUseLastResponse
		case r.URL.Path == unical.OAuthCallbackPath:
			callback = r.URL
		}
		return nil
	}}
	q := url.Values{"redirectUrl": {back}, "state": {"s1"}, "loginHint": {user}}
	resp, err := browser.Get(reps[0].url + "/v1/oauth/authorize/" + app.ApplicationID + "/provider_a?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if callback == nil || callback.Host != "127.0.0.1:"+ports[1] || final == nil ||
		final.Query().Get("endUserAccountId") == "" || final.Query().Get("state") != "s1" {
		t.Errorf("OAuth from replica 1: callback %v, back at the application with %v; want the callback on replica 2 and an account", callback, final)
	}

	// Meanwhile: a key revoked by an admin command stops working on every
	// replica within the cache time (5 s).
	var key struct{ KeyID, APIKey string }
	if err := json.Unmarshal([]byte(admin("keys", "create", "--app", app.ApplicationID)), &key); err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if code, b := request(t, "GET", r.url+"/v1/endUserAccounts", key.APIKey, nil); code != http.StatusOK {
			t.Fatalf("new key on %s = %d %s", r.url, code, b)
		}
	}
	admin("keys", "revoke", "--app", app.ApplicationID, "--key", key.KeyID)
	revoked := time.Now()
	for _, r := range reps {
		for {
			code, _ := request(t, "GET", r.url+"/v1/endUserAccounts", key.APIKey, nil)
			if code == http.StatusUnauthorized {
				break
			}
			if time.Since(revoked) > 15*time.Second {
				t.Errorf("revoked key still answers %d on %s after %v; want 401 within the 5 s cache time", code, r.url, time.Since(revoked))
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// Meanwhile: a burst for a subscription limited to 2 per second.
	store, err := postgres.Open(t.Context(), postgres.Config{URL: storeURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var limited subscriptions.Created
	call(reps[1], "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": cal.ID, "webhookUrl": hooks.URL + "/limited", "rateLimit": 2}, &limited)
	rcv.expect(t, "/limited", limited.EndpointSecret)
	limitedIDs := queueMessages(t, store, app.ApplicationID, limited.WebhookSubscriptionID, "limited", 10)

	time.Sleep(time.Until(pollStart.Add(10 * time.Second)))
	pollTo := checks()
	total := 0
	for i := range calendars {
		n := pollTo[i] - pollFrom[i]
		total += n
		if n < 2 || n > 8 {
			t.Errorf("subscription %d checked %d times in 10 s at 2 s by three replicas; want about 5", i, n)
		}
	}
	// About 5 each: 1,000 in all, not 3,000 (each replica checking all).
	if total < 700 || total > 1300 {
		t.Errorf("%d subscriptions checked %d times in all in 10 s at 2 s; want about %d", polled, total, polled*5)
	}
	t.Logf("polling: %d checks of %d subscriptions in %v", total, polled, time.Since(pollStart).Round(time.Millisecond))

	waitFor(t, "the rate-limited burst", 30*time.Second, func() bool { return rcv.arrived(limitedIDs) == len(limitedIDs) })
	// The limit paces when sends start, which the delivery log records
	// (attempt timestamps); arrivals add each request's connection,
	// handshake and scheduling delays, which under load bunch them.
	at := sendTimes(t, store, app.ApplicationID, limited.WebhookSubscriptionID, len(limitedIDs))
	// 10 at 2 per second take 4.5 s; any 1 s window holds about 2.
	if span := at[len(at)-1].Sub(at[0]); span < 3500*time.Millisecond {
		t.Errorf("10 messages at 2 per second were sent within %v; want about 4.5 s", span)
	}
	for i := 3; i < len(at); i++ {
		if at[i].Sub(at[i-3]) < time.Second {
			t.Errorf("sends %d to %d started within %v; want at most 2 per second, across replicas", i-3, i, at[i].Sub(at[i-3]))
		}
	}

	// 1,000 messages; replica 3 is killed while they are being sent.
	var bulk subscriptions.Created
	call(reps[0], "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": cal.ID, "webhookUrl": hooks.URL + "/bulk", "rateLimit": 100000}, &bulk)
	rcv.expect(t, "/bulk", bulk.EndpointSecret)
	bulkIDs := queueMessages(t, store, app.ApplicationID, bulk.WebhookSubscriptionID, "bulk", 1000)
	for deadline := time.Now().Add(60 * time.Second); rcv.arrived(bulkIDs) < 100; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 1,000 messages arrived in 60 s", rcv.arrived(bulkIDs))
		}
	}
	victim := reps[2]
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = victim.cmd.Wait()
	killedAt, atKill := time.Now(), rcv.arrived(bulkIDs)
	// The leases the killed replica held are those of the lease owner
	// whose leases are all still held, unchanged, a second later: the
	// live replicas finish theirs in milliseconds. (The delivery lease is
	// 5 s.) One query each, straight from the outbox table, so that both
	// are read well within the lease.
	db, err := pgx.Connect(t.Context(), storeURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	leases := func() map[string]string {
		rows, err := db.Query(t.Context(), `SELECT id, lease_owner || '@' || lease_expiry::text FROM outbox
			WHERE subscription_id = $1 AND status = 'pending' AND lease_owner <> ''`, bulk.WebhookSubscriptionID)
		if err != nil {
			t.Fatal(err)
		}
		held := map[string]string{}
		for rows.Next() {
			var id, lease string
			if err := rows.Scan(&id, &lease); err != nil {
				t.Fatal(err)
			}
			held[id] = lease
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return held
	}
	first := leases()
	time.Sleep(time.Second)
	second := leases()
	if time.Since(killedAt) > 4*time.Second {
		t.Fatalf("reading the leases took %v; the killed replica's may have run out", time.Since(killedAt))
	}
	victimLeases := map[string]bool{}
	for id, l := range second {
		if first[id] == l {
			victimLeases[id] = true
		}
	}
	waitFor(t, "all 1,000 messages", 90*time.Second, func() bool { return rcv.arrived(bulkIDs) == len(bulkIDs) })
	rcv.mu.Lock()
	dups := 0
	for _, id := range bulkIDs {
		if n := rcv.seen[id]; n > 1 {
			dups += n - 1
			if !victimLeases[id] {
				t.Errorf("message %s arrived %d times, but the killed replica held no lease on it", id, n)
			}
		}
	}
	if rcv.bad != 0 {
		t.Errorf("%d webhook requests failed verification", rcv.bad)
	}
	rcv.mu.Unlock()
	t.Logf("deliveries: %d of 1,000 before the kill, %d leases held by the killed replica, %d duplicates", atKill, len(victimLeases), dups)

	// The killed replica's share of the polling passes to the others: its
	// claims come due again one interval (2 s) later.
	time.Sleep(time.Until(killedAt.Add(2 * time.Second)))
	afterFrom := checks()
	time.Sleep(4 * time.Second)
	afterTo := checks()
	for i := range calendars {
		if n := afterTo[i] - afterFrom[i]; n < 1 || n > 4 {
			t.Errorf("after the kill: subscription %d checked %d times in 4 s at 2 s by two replicas; want about 2", i, n)
		}
	}
}

// queueMessages queues n pending messages for a subscription directly in
// the store, as an engine would, and returns their ids.
func queueMessages(tb testing.TB, store unical.Store, appID, subID, prefix string, n int) []string {
	tb.Helper()
	now := time.Now().UTC()
	var msgs []*outbox.Message
	var ids []string
	for i := range n {
		id := fmt.Sprintf("msg_%s_%04d", prefix, i)
		body, _ := json.Marshal(unical.MessagePayload{EventType: unical.EventTypeCalendarEventChanged, Timestamp: unical.FormatTimestamp(now), SubscriptionID: subID})
		msgs = append(msgs, &outbox.Message{ID: id, ApplicationID: appID, SubscriptionID: subID,
			EventType: unical.EventTypeCalendarEventChanged, Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now})
		ids = append(ids, id)
	}
	if err := store.EnqueueMessages(tb.Context(), msgs); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// sendTimes waits until the delivery log holds at least n attempts of a
// subscription (replicas write it after each send) and returns when
// every attempt started, in order.
func sendTimes(tb testing.TB, store unical.Store, appID, subID string, n int) []time.Time {
	tb.Helper()
	var at []time.Time
	waitFor(tb, "the delivery log", 10*time.Second, func() bool {
		attempts, err := store.ListAttempts(tb.Context(), appID, subID, time.Now(), "", 1000)
		if err != nil {
			tb.Fatal(err)
		}
		at = at[:0]
		for _, a := range attempts {
			at = append(at, a.At)
		}
		return len(at) >= n
	})
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	return at
}

// freePort returns a loopback port that was free a moment ago.
func freePort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// startReplica starts the unicald binary with args, its log in dir, and
// kills it when the test ends.
func startReplica(tb testing.TB, bin, dir string, n int, env []string, args ...string) *replica {
	tb.Helper()
	logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("replica-%d.log", n)))
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, logf
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	r := &replica{url: "http://" + args[slices.Index(args, "--addr")+1], cmd: cmd, stderr: logf}
	tb.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			_ = cmd.Wait()
		}
		logf.Close()
		if tb.Failed() {
			b, _ := os.ReadFile(logf.Name())
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			tb.Logf("replica %d log (tail):\n%s", n, b)
		}
	})
	return r
}

// waitReady waits until a replica answers /readyz.
func waitReady(tb testing.TB, r *replica) {
	tb.Helper()
	waitFor(tb, r.url+" to start", 30*time.Second, func() bool {
		resp, err := http.Get(r.url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// waitFor polls cond every 50 ms until it holds, or fails after limit.
func waitFor(tb testing.TB, what string, limit time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
