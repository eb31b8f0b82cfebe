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
	"github.com/unical/unical/engine"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/openapitest"
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
	store, err := bolt.Open(bolt.Config{Path: fs.dbPath, NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	cfg := unical.Config{
		Store: store, Providers: []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})}, MasterKey: seal.NewKey(),
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
	fs.handler = openapitest.Handler(tb, httpapi.NewHandler(httpapi.Config{Client: fs.client}))
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

// maxStateLength is the README's bound on the state we send to the
// provider, reached with the caller's state and login hint at their limits.
const maxStateLength = 3400

// TestAuthorize_FloodWritesNothing sends 3,000 authorize calls with every
// parameter at its limit, three times the cap pending flows used to have:
// every one is answered with a redirect, the state each carries stays
// under the documented length, and the store file does not change at all,
// because a sign-in in progress lives only in its state.
func TestAuthorize_FloodWritesNothing(t *testing.T) {
	t.Parallel()
	fs := newFlowStack(t, nil)
	// 3,000 alike exchanges: the OpenAPI check of each (as newFlowStack
	// wraps) would add minutes under -race and nothing that the other
	// authorize tests do not check already.
	fs.handler = httpapi.NewHandler(httpapi.Config{Client: fs.client})
	params := url.Values{
		"loginHint": {strings.Repeat("l", 320)},
		"state":     {strings.Repeat("s", 2048)},
		"prompt":    {"consent"},
	}
	before := fs.fileSize(t)
	statuses := map[int]int{}
	longest := 0
	for range 3000 {
		w := fs.authorize(params)
		statuses[w.Code]++
		if loc, err := url.Parse(w.Header().Get("Location")); err == nil {
			longest = max(longest, len(loc.Query().Get("state")))
		}
	}
	if d := cmp.Diff(map[int]int{http.StatusFound: 3000}, statuses); d != "" {
		t.Errorf("statuses of 3,000 authorize calls (-want +got):\n%s", d)
	}
	if longest == 0 || longest > maxStateLength {
		t.Errorf("longest state sent to the provider = %d bytes, want 1 to %d", longest, maxStateLength)
	}
	if after := fs.fileSize(t); after != before {
		t.Errorf("bolt file grew from %d to %d bytes during the flood, want no write", before, after)
	}
	fs.clock.Add(15 * time.Minute)
	swept, err := engine.Sweep(t.Context(), fs.client, engine.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if swept.Flows != 0 {
		t.Errorf("Sweep() after the flood removed %d flows, want 0", swept.Flows)
	}
}

func TestAuthorize_ErrTooLong(t *testing.T) {
	t.Parallel()
	fs := newFlowStack(t, nil)
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
