package httpkit_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/unical/unical/provider/kit/httpkit"
)

// staticToken is the token source of an account whose token never needs
// a refresh.
type staticToken string

func (t staticToken) Token(ctx context.Context, force bool) (string, error) { return string(t), nil }

// ExampleCaller sends one provider call to a server that is briefly
// unavailable: the Caller retries the 503 (after the server's
// Retry-After) and returns the answer that follows.
func ExampleCaller() {
	var calls atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `{"seen": %q}`, r.Header.Get("Authorization"))
	}))
	defer server.Close()

	caller := httpkit.Caller{
		Client:  server.Client(),
		Tokens:  staticToken("abc"),
		Policy:  httpkit.Policy{MaxRetries: 2, Backoff: httpkit.Backoff{Base: 10 * time.Millisecond, Max: time.Second}},
		MaxBody: 1 << 20,
		// What an answer means is the provider's to say.
		Classify: func(res *httpkit.Response) httpkit.Outcome {
			if res.StatusCode == http.StatusServiceUnavailable {
				wait, _ := httpkit.RetryAfter(res.Header, time.Now())
				return httpkit.Outcome{Err: fmt.Errorf("unavailable"), Retry: true, RetryAfter: wait}
			}
			return httpkit.Outcome{}
		},
		SendFailed:  func(err error, ctxDone bool) httpkit.Outcome { return httpkit.Outcome{Err: err, Retry: !ctxDone} },
		TokenFailed: func(err error) error { return err },
		TimedOut:    "the calendar server did not answer in time",
	}
	res, err := caller.Do(context.Background(), httpkit.Request{Method: http.MethodGet, URL: server.URL + "/calendars"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StatusCode, string(res.Body), "after", calls.Load(), "requests")
	// Output:
	// 200 {"seen": "Bearer abc"} after 2 requests
}
