package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/apitest"
	"github.com/unical/unical/internal/openapitest"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// fakeClock is a settable clock for Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// flowStack is the handler over a Client over a bolt file, with a fake
// clock and an application that can start Google OAuth flows, served
// in-process: requests go straight to the handler and the file skips
// fsync, so thousands of them stay cheap. (Neither changes what is
// written.)
type flowStack struct {
	client   *unical.Client
	appID    string
	dbPath   string
	clock    *fakeClock
	handler  http.Handler
	redirect string
	// requests counts the requests sent, to give each its own client
	// address: the flood comes from many addresses, as a real one would,
	// so that per-address rate limits in front do not hide the store's cap.
	requests int
}

func newFlowStack(tb testing.TB, configure func(*unical.Config)) *flowStack {
	tb.Helper()
	fs := &flowStack{
		clock:    &fakeClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)},
		redirect: "https://app.example.com/connected",
		dbPath:   filepath.Join(tb.TempDir(), "unical.db"),
	}
	store, err := bolt.Open(fs.dbPath, &bolt.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	cfg := unical.Config{
		Store: store, Providers: []unical.Provider{memory.New(unical.ProviderGoogle)}, MasterKey: seal.NewKey(),
		PublicURL: "https://unical.example.com", Now: fs.clock.Now,
	}
	if configure != nil {
		configure(&cfg)
	}
	if fs.client, err = unical.New(cfg); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fs.client.Close() })
	created, err := admin.Of(fs.client).CreateApplication(tb.Context(), &admin.ApplicationParams{
		Name:         unical.Some("flows"),
		RedirectURLs: unical.Some([]string{fs.redirect}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderGoogle: {ClientID: "client-1", ClientSecret: "client-secret-1", AuthURL: "https://auth.example.com/authorize"},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	fs.appID = created.ApplicationID
	fs.handler = openapitest.Handler(tb, httpapi.NewHandler(fs.client, httpapi.Options{}))
	return fs
}

// authorize sends one authorize request with params (redirectUrl filled in
// unless set) and returns the recorded answer.
func (fs *flowStack) authorize(params url.Values) *httptest.ResponseRecorder {
	if _, ok := params["redirectUrl"]; !ok {
		params.Set("redirectUrl", fs.redirect)
	}
	req := httptest.NewRequest("GET", "/v1/oauth/authorize/"+fs.appID+"/provider_a?"+params.Encode(), nil)
	fs.requests++
	req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:4321", fs.requests>>16&255, fs.requests>>8&255, fs.requests&255)
	w := httptest.NewRecorder()
	fs.handler.ServeHTTP(w, req)
	return w
}

func (fs *flowStack) fileSize(tb testing.TB) int64 {
	tb.Helper()
	fi, err := os.Stat(fs.dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// maxFlowFileSize is the README's bound on the bolt file of a server whose
// only traffic is a flood of authorize calls with every parameter at its
// length limit: the default cap of 1,000 pending flows per application
// bounds what one flow lifetime adds, and the sweep lets the space be
// reused once they expire. Without the sweep, the flood below would leave
// 5,000 flows (about 20 MB) in the file.
const maxFlowFileSize = 8 << 20

// TestAuthorize_FloodStaysBounded sends 10,000 authorize calls with
// maximal parameters in five bursts, one flow lifetime (15 minutes) apart,
// sweeping after each: each burst gets the cap's worth accepted and the
// rest refused with 429, and the file stays under the documented size.
func TestAuthorize_FloodStaysBounded(t *testing.T) {
	t.Parallel()
	fs := newFlowStack(t, nil)
	// 10,000 alike exchanges: the OpenAPI check of each (as newFlowStack
	// wraps) would add minutes under -race and nothing that the other
	// authorize tests do not check already.
	fs.handler = httpapi.NewHandler(fs.client, httpapi.Options{})
	params := url.Values{
		"loginHint": {strings.Repeat("l", 320)},
		"state":     {strings.Repeat("s", 2048)},
		"prompt":    {"consent"},
	}
	const bursts, perBurst = 5, 2000
	for burst := range bursts {
		statuses := map[int]int{}
		retryAfter := ""
		for range perBurst {
			w := fs.authorize(params)
			statuses[w.Code]++
			if w.Code == http.StatusTooManyRequests {
				retryAfter = w.Header().Get("Retry-After")
			}
		}
		want := map[int]int{http.StatusFound: unical.DefaultMaxPendingFlows, http.StatusTooManyRequests: perBurst - unical.DefaultMaxPendingFlows}
		if d := cmp.Diff(want, statuses); d != "" {
			t.Errorf("burst %d: statuses of %d authorize calls (-want +got):\n%s", burst+1, perBurst, d)
		}
		// The clock stood still: the first flow expires in the whole
		// FlowTTL, 15 minutes.
		if retryAfter != "900" {
			t.Errorf("burst %d: Retry-After = %q, want \"900\"", burst+1, retryAfter)
		}
		fs.clock.Add(15 * time.Minute)
		swept, err := fs.client.Sweep(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if swept.Flows != unical.DefaultMaxPendingFlows {
			t.Errorf("burst %d: Sweep() removed %d flows, want %d", burst+1, swept.Flows, unical.DefaultMaxPendingFlows)
		}
	}
	if size := fs.fileSize(t); size > maxFlowFileSize {
		t.Errorf("bolt file is %d bytes after %d authorize calls, want at most %d", size, bursts*perBurst, maxFlowFileSize)
	}
}

func TestAuthorize_ErrTooLong(t *testing.T) {
	t.Parallel()
	// With a cap of one pending flow, the good call at the end succeeds
	// only if none of the refused calls stored a flow.
	fs := newFlowStack(t, func(cfg *unical.Config) { cfg.MaxPendingFlows = 1 })
	tests := []struct {
		param string
		max   int
	}{
		{"loginHint", 320},
		{"state", 2048},
		{"redirectUrl", 2048},
		{"prompt", 32},
	}
	for _, tc := range tests {
		for _, n := range []int{tc.max + 1, 500_000} {
			w := fs.authorize(url.Values{tc.param: {strings.Repeat("x", n)}})
			var body struct {
				Error struct{ Code, Field string }
			}
			(&apitest.Response{Status: w.Code, Body: w.Body.Bytes()}).Into(t, &body)
			got := []any{w.Code, body.Error.Code, body.Error.Field, w.Header().Get("Location")}
			if d := cmp.Diff([]any{http.StatusBadRequest, "invalid_request", tc.param, ""}, got); d != "" {
				t.Errorf("%s of %d bytes: answer mismatch (-want +got):\n%s", tc.param, n, d)
			}
		}
	}
	// At the limit each is accepted (prompt and redirectUrl have fixed
	// values, so their limits are checked above only).
	w := fs.authorize(url.Values{"loginHint": {strings.Repeat("l", 320)}, "state": {strings.Repeat("s", 2048)}})
	if w.Code != http.StatusFound {
		t.Errorf("authorize at the length limits = %d %s, want 302", w.Code, w.Body)
	}
}

func TestAuthorize_PendingFlowCap(t *testing.T) {
	t.Parallel()
	fs := newFlowStack(t, func(cfg *unical.Config) { cfg.MaxPendingFlows = 2; cfg.FlowTTL = 10 * time.Minute })
	status := func() []any {
		w := fs.authorize(url.Values{"state": {"s"}})
		var body struct{ Error struct{ Code string } }
		if w.Code != http.StatusFound {
			(&apitest.Response{Status: w.Code, Body: w.Body.Bytes()}).Into(t, &body)
		}
		return []any{w.Code, body.Error.Code, w.Header().Get("Retry-After")}
	}
	found := []any{http.StatusFound, "", ""}
	want := [][]any{found, found, {http.StatusTooManyRequests, "rate_limited", "600"}}
	got := [][]any{status(), status(), status()}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("three authorize calls with a cap of 2 (-want +got):\n%s", d)
	}
	// Once the pending flows expire they no longer count, swept or not.
	fs.clock.Add(10 * time.Minute)
	if d := cmp.Diff(found, status()); d != "" {
		t.Errorf("authorize after the flows expired (-want +got):\n%s", d)
	}
}
