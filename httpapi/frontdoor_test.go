package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// startWithOptions is MustNewServerWith with the handler built from opts.
func startWithOptions(tb testing.TB, opts httpapi.Config, wrap func(*memory.Provider) unical.Provider) *testServer {
	tb.Helper()
	return newTestServer(tb, opts, wrap)
}

// sendFrom sends GET path with key and, when from is set, X-Forwarded-For.
func sendFrom(tb testing.TB, ts *testServer, key, from, path string) *response {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), "GET", ts.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("x-api-key", key)
	if from != "" {
		req.Header.Set("X-Forwarded-For", from)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// answer is what a rate-limit test compares of a response.
type answer struct {
	Status     int
	Code       string
	RetryAfter bool // Retry-After is a whole number of seconds from 1 to 1000
}

func answerOf(tb testing.TB, r *response) answer {
	tb.Helper()
	a := answer{Status: r.Status}
	if r.Status != http.StatusOK {
		a.Code = r.Error(tb).Code
	}
	if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err == nil && n >= 1 && n <= 1000 {
		a.RetryAfter = true
	}
	return a
}

var (
	okAnswer      = answer{Status: 200}
	limitedAnswer = answer{Status: 429, Code: "rate_limited", RetryAfter: true}
	badKeyAnswer  = answer{Status: 401, Code: "unauthorized"}
)

// slowRate refills one token in 1,000 seconds: within a test, a bucket
// that is empty stays empty.
const slowRate = 0.001

// TestRateLimitPerKey checks that a key past its burst gets 429 with
// Retry-After while another key, from the same address, does not.
func TestRateLimitPerKey(t *testing.T) {
	t.Parallel()
	ts := startWithOptions(t, httpapi.Config{KeyRateLimit: httpapi.RateLimit{PerSecond: slowRate, Burst: 2}}, nil)
	_, keyB := ts.mustCreateApp(t, "other", "")
	_, keyA2 := ts.CreateAPIKeyOf(t)
	steps := []struct {
		key  string
		want answer
	}{
		{ts.APIKey, okAnswer},
		{ts.APIKey, okAnswer},
		{ts.APIKey, limitedAnswer},
		{ts.APIKey, limitedAnswer},
		{keyB, okAnswer},
		{keyA2, okAnswer}, // another key of the same application has its own bucket
		{"uk_nope_secret", badKeyAnswer},
		{keyB, okAnswer},
		{keyB, limitedAnswer},
	}
	var got, want []answer
	for _, s := range steps {
		got = append(got, answerOf(t, sendFrom(t, ts, s.key, "", "/v1/endUserAccounts")))
		want = append(want, s.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
}

// CreateAPIKeyOf creates a second API key of the server's application.
func (ts *testServer) CreateAPIKeyOf(tb testing.TB) (id, key string) {
	tb.Helper()
	created, err := admin.Of(ts.Client).CreateAPIKey(tb.Context(), ts.AppID, "")
	if err != nil {
		tb.Fatal(err)
	}
	return created.Key.ID, created.APIKey
}

// TestRateLimitPerIP checks the per-address limit: it counts requests
// with bad keys too (it applies before authentication), answers 429 with
// Retry-After, and leaves other addresses alone. An IPv6 address counts
// as its /64.
func TestRateLimitPerIP(t *testing.T) {
	t.Parallel()
	t.Run("Peer", func(t *testing.T) {
		t.Parallel()
		ts := startWithOptions(t, httpapi.Config{IPRateLimit: httpapi.RateLimit{PerSecond: slowRate, Burst: 2}}, nil)
		var got []answer
		for _, key := range []string{"uk_bad_key", "uk_bad_key", "uk_bad_key", ts.APIKey} {
			// X-Forwarded-For is not trusted: every request is 127.0.0.1's.
			got = append(got, answerOf(t, sendFrom(t, ts, key, fmt.Sprintf("192.0.2.%d", len(got)), "/v1/endUserAccounts")))
		}
		if diff := cmp.Diff([]answer{badKeyAnswer, badKeyAnswer, limitedAnswer, limitedAnswer}, got); diff != "" {
			t.Errorf("answers mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("Forwarded", func(t *testing.T) {
		t.Parallel()
		ts := startWithOptions(t, httpapi.Config{IPRateLimit: httpapi.RateLimit{PerSecond: slowRate, Burst: 1}, TrustForwardedFor: true}, nil)
		steps := []struct {
			from string
			want answer
		}{
			{"192.0.2.1", okAnswer},
			{"192.0.2.1", limitedAnswer},
			{"192.0.2.2", okAnswer},
			{"203.0.113.5, 192.0.2.1", limitedAnswer}, // the last entry counts
			{"2001:db8:0:1::1", okAnswer},
			{"2001:db8:0:1::2", limitedAnswer}, // same /64
			{"2001:db8:0:2::1", okAnswer},
		}
		var got, want []answer
		for _, s := range steps {
			got = append(got, answerOf(t, sendFrom(t, ts, ts.APIKey, s.from, "/v1/endUserAccounts")))
			want = append(want, s.want)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestRateLimitTableBounded sends requests from more distinct addresses,
// and with more distinct keys, than the limiters remember. If the tables
// grew with each new caller, each would get a burst of its own; bounded,
// the callers past the table share one bucket (a table this small has one
// shard) and get one request between them.
func TestRateLimitTableBounded(t *testing.T) {
	t.Parallel()
	const size = 16
	t.Run("Addresses", func(t *testing.T) {
		t.Parallel()
		ts := startWithOptions(t, httpapi.Config{IPRateLimit: httpapi.RateLimit{PerSecond: slowRate, Burst: 1}, TrustForwardedFor: true, LimiterSize: size}, nil)
		const callers = 5 * size
		allowed := 0
		for i := range callers {
			if r := sendFrom(t, ts, ts.APIKey, fmt.Sprintf("10.1.%d.%d", i/256, i%256), "/v1/endUserAccounts"); r.Status == http.StatusOK {
				allowed++
			} else if a := answerOf(t, r); a != limitedAnswer {
				t.Fatalf("caller %d: %+v, want 200 or 429", i, a)
			}
		}
		if allowed != size+1 {
			t.Errorf("%d of %d addresses were allowed, want %d: the table's %d and one more", allowed, callers, size+1, size)
		}
	})
	t.Run("Keys", func(t *testing.T) {
		t.Parallel()
		ts := startWithOptions(t, httpapi.Config{KeyRateLimit: httpapi.RateLimit{PerSecond: slowRate, Burst: 1}, LimiterSize: size}, nil)
		const callers = 2 * size
		allowed := 0
		for i := range callers {
			key := ts.APIKey
			if i > 0 {
				_, key = ts.CreateAPIKeyOf(t)
			}
			if r := sendFrom(t, ts, key, "", "/v1/endUserAccounts"); r.Status == http.StatusOK {
				allowed++
			} else if a := answerOf(t, r); a != limitedAnswer {
				t.Fatalf("key %d: %+v, want 200 or 429", i, a)
			}
		}
		if allowed != size+1 {
			t.Errorf("%d of %d keys were allowed, want %d: the table's %d and one more", allowed, callers, size+1, size)
		}
	})
}

// hangingProvider never answers ListCalendars until its context ends, like
// a provider call to a server that accepted the connection and went quiet.
type hangingProvider struct {
	*memory.Provider
	returned chan error
}

func (p hangingProvider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	<-ctx.Done()
	p.returned <- ctx.Err()
	return nil, ctx.Err()
}

// TestRequestTimeout checks that a request whose provider call hangs is
// answered 504 timeout once the request deadline passes, and that the
// provider call was cancelled.
func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	returned := make(chan error, 1)
	ts := startWithOptions(t, httpapi.Config{RequestTimeout: 2 * time.Second}, func(p *memory.Provider) unical.Provider {
		return hangingProvider{p, returned}
	})
	var acct unical.Account
	ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": googleUser, "providerType": "PROVIDER_A", "refreshToken": googleToken}).Into(t, &acct)
	r := ts.do(t, "GET", "/v1/calendars/"+acct.ID, nil)
	if got := answerOf(t, r); got != (answer{Status: http.StatusGatewayTimeout, Code: "timeout"}) {
		t.Errorf("hung provider: %+v %s, want 504 timeout", got, r.Body)
	}
	select {
	case err := <-returned:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the provider call ended with %v, want its deadline", err)
		}
	default:
		t.Error("the answer came before the provider call was cancelled")
	}
	// The account is still usable: a timeout is not an expired account.
	var got unical.Account
	ts.must(t, "GET", "/v1/endUserAccounts/"+acct.ID, nil).Into(t, &got)
	if got.Status != unical.AccountStatusActive {
		t.Errorf("after the timeout the account is %s, want ACTIVE", got.Status)
	}
}

// hangingStore is a bolt store whose account reads under a deadline (a
// request's) wait for their context to end and report how it ended.
type hangingStore struct {
	*bolt.Store
	returned chan error
}

func (s hangingStore) GetAccount(ctx context.Context, appID, id string) (*unical.AccountRecord, error) {
	if _, ok := ctx.Deadline(); !ok {
		return s.Store.GetAccount(ctx, appID, id)
	}
	return nil, s.hang(ctx)
}

func (s hangingStore) ListAccounts(ctx context.Context, appID string, filter unical.AccountFilter) ([]*unical.AccountRecord, error) {
	if _, ok := ctx.Deadline(); !ok {
		return s.Store.ListAccounts(ctx, appID, filter)
	}
	return nil, s.hang(ctx)
}

func (s hangingStore) hang(ctx context.Context) error {
	<-ctx.Done()
	s.returned <- ctx.Err()
	return ctx.Err()
}

// TestRequestTimeout_CachedReads checks that the account reads, whose
// requests routeMux serves without the deadline in their context
// (HandleReadFunc), still end at the request deadline: a Store read that
// hangs is cancelled and answered 504 timeout.
func TestRequestTimeout_CachedReads(t *testing.T) {
	t.Parallel()
	returned := make(chan error, 2)
	st := apitest.StartWithOptions(t, nil, func(cfg *apitest.Config) {
		cfg.Store = hangingStore{cfg.Store.(*bolt.Store), returned}
	}, httpapi.Config{RequestTimeout: time.Second})
	_, key := st.CreateApp(t, &admin.ApplicationParams{})
	for _, path := range []string{"/v1/endUserAccounts/acct_1", "/v1/endUserAccounts?limit=5"} {
		r := st.DoKey(t, key, "GET", path, nil)
		if got := answerOf(t, r); got != (answer{Status: http.StatusGatewayTimeout, Code: "timeout"}) {
			t.Errorf("GET %s with a hung Store: %+v %s, want 504 timeout", path, got, r.Body)
		}
		select {
		case err := <-returned:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("GET %s: the Store read ended with %v, want its deadline", path, err)
			}
		default:
			t.Errorf("GET %s: the answer came before the Store read was cancelled", path)
		}
	}
}

// TestRefusedBeforeBody sends request headers and the start of a large
// body, then waits: a bad API key (or a spent rate limit) is answered, and
// the connection closed, while the body is still unsent. A server that
// read the body first would wait here until the client's own deadline.
func TestRefusedBeforeBody(t *testing.T) {
	t.Parallel()
	ts := startWithOptions(t, httpapi.Config{IPRateLimit: httpapi.RateLimit{PerSecond: slowRate, Burst: 3}}, nil)
	const head = `{"email":"`
	tests := []struct {
		name       string
		key        string
		framing    string // the body's framing header
		first      string // the part of the body sent before waiting
		wantStatus int
		wantCode   string
	}{
		{"BadKeyContentLength", "uk_nope_secret", "Content-Length: 10485760", head, 401, "unauthorized"},
		{"BadKeyChunked", "", "Transfer-Encoding: chunked", fmt.Sprintf("%x\r\n%s\r\n", len(head), head), 401, "unauthorized"},
		{"SmallBody", "uk_nope_secret", "Content-Length: 1000", head, 401, "unauthorized"},
		// The burst of 3 is spent by the cases above.
		{"RateLimited", ts.APIKey, "Content-Length: 10485760", head, 429, "rate_limited"},
	}
	for _, tc := range tests {
		// Sequential: the rate-limited case counts on the ones before it.
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// A bound on the test, not an expectation of speed.
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			var events []string
			req := "POST /v1/endUserAccounts HTTP/1.1\r\nHost: unical.test\r\nContent-Type: application/json\r\n" + tc.framing + "\r\n"
			if tc.key != "" {
				req += "x-api-key: " + tc.key + "\r\n"
			}
			if _, err := io.WriteString(conn, req+"\r\n"+tc.first); err != nil {
				t.Fatal(err)
			}
			events = append(events, "sent the headers and the start of the body")
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer while the body is unsent: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			r := &response{Status: resp.StatusCode, Header: resp.Header, Body: body}
			events = append(events, fmt.Sprintf("answer %d %s", r.Status, r.Error(t).Code))
			if rest, err := br.ReadByte(); err == io.EOF {
				events = append(events, "connection closed by the server")
			} else {
				t.Errorf("after the answer: %q, %v; want the connection closed", rest, err)
			}
			want := []string{
				"sent the headers and the start of the body",
				fmt.Sprintf("answer %d %s", tc.wantStatus, tc.wantCode),
				"connection closed by the server",
			}
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			if tc.wantStatus == 429 && resp.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
		})
	}
}

// TestInvalidUTF8 sends bodies with invalid UTF-8 and checks the 400 names
// the field, and that nothing was written. encoding/json alone would store
// U+FFFD in place of the bad bytes.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	events := "/v1/events/" + ids[unical.ProviderGoogle] + "/" + esc("primary/"+googleUser)
	const bad = "\xff\xfe"
	event := `"start":{"dateTime":"2026-01-05T09:00:00Z"},"end":{"dateTime":"2026-01-05T10:00:00Z"}`
	tests := []struct {
		name, path, body, wantField string
	}{
		{"AccountEmail", "/v1/endUserAccounts", `{"email":"a` + bad + `@example.com","providerType":"PROVIDER_C","password":"x"}`, "email"},
		{"AccountPassword", "/v1/endUserAccounts", `{"email":"` + davUser + `","providerType":"PROVIDER_C","password":"` + bad + `"}`, "password"},
		{"EventTitle", events, `{"title":"Caf` + bad + `",` + event + `}`, "title"},
		{"EventTimeZone", events, `{"title":"t","start":{"dateTime":"2026-01-05T09:00:00","timeZone":"Europe/` + bad + `"},"end":{"dateTime":"2026-01-05T10:00:00Z"}}`, "start.timeZone"},
		{"EventAttendee", events, `{"title":"t",` + event + `,"attendees":[{"email":"bob@example.com"},{"email":"x` + bad + `@example.com"}]}`, "attendees[1].email"},
		{"EventRecurrence", events, `{"title":"t",` + event + `,"recurrence":["RRULE:FREQ=DAILY` + bad + `"]}`, "recurrence[0]"},
		{"InKey", events, `{"title":"t",` + event + `,"` + bad + `":1}`, "body"},
		{"OutsideString", events, `{"title":"t",` + event + `}` + bad, "body"},
	}
	before, err := os.ReadFile(ts.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	writes := map[unical.ProviderType]int64{}
	for pt, p := range ts.Providers {
		writes[pt] = p.Writes()
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.do(t, "POST", tc.path, []byte(tc.body))
			e := r.Error(t)
			if diff := cmp.Diff([]any{400, "invalid_request", tc.wantField}, []any{r.Status, e.Code, e.Field}); diff != "" {
				t.Errorf("status, code, field mismatch (-want +got):\n%s\nbody: %s", diff, r.Body)
			}
		})
	}
	after, err := os.ReadFile(ts.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the bolt file changed during bad requests")
	}
	for pt, p := range ts.Providers {
		if p.Writes() != writes[pt] {
			t.Errorf("provider %s was written to during bad requests", pt)
		}
	}
}

// BenchmarkFrontDoor measures GET /v1/endUserAccounts/{id} without limits
// and with both limiters and the deadline on (at rates it never reaches),
// to show what the front door costs per request.
func BenchmarkFrontDoor(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts httpapi.Config
	}{
		{"Off", httpapi.Config{}},
		{"On", httpapi.Config{
			KeyRateLimit: httpapi.RateLimit{PerSecond: 1e9}, IPRateLimit: httpapi.RateLimit{PerSecond: 1e9},
			RequestTimeout: httpapi.DefaultRequestTimeout,
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ts := startWithOptions(b, bc.opts, nil)
			var acct unical.Account
			ts.must(b, "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": davPassword}).Into(b, &acct)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			req, _ := http.NewRequest("GET", ts.URL+"/v1/endUserAccounts/"+acct.ID, nil)
			req.Header.Set("x-api-key", ts.APIKey)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
