package unical_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/testkit/apitest"
)

// idemClock is a settable clock for the Client.
type idemClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *idemClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *idemClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func idemApp(t *testing.T) (*unical.App, *idemClock) {
	t.Helper()
	clock := &idemClock{now: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)}
	st := apitest.Start(t, nil, func(cfg *apitest.Config) { cfg.Now = clock.Now })
	st.CreateApp(t, &admin.ApplicationParams{})
	app, err := st.Client.App(t.Context(), st.AppID)
	if err != nil {
		t.Fatal(err)
	}
	return app, clock
}

// TestRunIdempotentKeeps checks which answers are kept (a retry replays
// them) and which free the key (a retry runs again), as the
// Idempotency-Key section of docs/api.md lists them.
func TestRunIdempotentKeeps(t *testing.T) {
	app, _ := idemApp(t)
	for _, tc := range []struct {
		status int
		code   unical.Code
		kept   bool
	}{
		{200, "", true},
		{404, unical.CodeNotFound, true},
		{409, unical.CodeConflict, true},
		{410, unical.CodeGone, true},
		{412, unical.CodePrecondition, true},
		{400, unical.CodeInvalid, false},
		{413, unical.CodeTooLarge, false},
		{401, unical.CodeUnauthorized, false},
		{409, unical.CodeAccountExpired, false},
		{429, unical.CodeRateLimited, false},
		{500, unical.CodeInternal, false},
		{501, unical.CodeNotImplemented, false},
		{502, unical.CodeUpstream, false},
		{503, unical.CodeUnavailable, false},
		{504, "timeout", false},
	} {
		key := fmt.Sprintf("keeps-%d-%s", tc.status, tc.code)
		runs := 0
		run := func(context.Context) idempotency.Answer {
			runs++
			return idempotency.Answer{Status: tc.status, Code: string(tc.code), Body: []byte(`{"n":` + string(rune('0'+runs)) + `}`)}
		}
		first, replayed, err := app.Idempotency().Run(t.Context(), key, "fp", run)
		if err != nil || replayed {
			t.Fatalf("%d %s: first RunIdempotent = replayed %v, %v", tc.status, tc.code, replayed, err)
		}
		second, replayed, err := app.Idempotency().Run(t.Context(), key, "fp", run)
		if err != nil {
			t.Fatalf("%d %s: retry: %v", tc.status, tc.code, err)
		}
		want, wantRuns := first, 1
		if !tc.kept {
			want, wantRuns = idempotency.Answer{Status: tc.status, Code: string(tc.code), Body: []byte(`{"n":2}`)}, 2
		}
		if replayed != tc.kept || runs != wantRuns {
			t.Errorf("%d %s: retry replayed %v after %d runs, want replayed %v after %d", tc.status, tc.code, replayed, runs, tc.kept, wantRuns)
		}
		if d := cmp.Diff(want, second); d != "" {
			t.Errorf("%d %s: retry answer (-want +got):\n%s", tc.status, tc.code, d)
		}
	}
}

// TestRunIdempotentLease checks that a claim whose attempt never finishes
// (its process died) blocks the key only until its lease ends: the
// attempt's deadline plus a margin.
func TestRunIdempotentLease(t *testing.T) {
	app, clock := idemApp(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	block, started := make(chan struct{}), make(chan struct{})
	firstDone := make(chan idempotency.Answer)
	go func() {
		res, _, err := app.Idempotency().Run(ctx, "lease", "fp", func(context.Context) idempotency.Answer {
			close(started)
			<-block // the "dead" attempt
			return idempotency.Answer{Status: 200, Body: []byte(`"first"`)}
		})
		if err != nil {
			t.Error(err)
		}
		firstDone <- res
	}()
	<-started

	second := func(context.Context) idempotency.Answer {
		return idempotency.Answer{Status: 200, Body: []byte(`"second"`)}
	}
	_, _, err := app.Idempotency().Run(t.Context(), "lease", "fp", second)
	if e := (*unical.Error)(nil); !errors.As(err, &e) || e.Code != unical.CodeConflict || e.Field != "Idempotency-Key" || e.RetryAfter <= 0 {
		t.Errorf("retry while the first runs: %v, want CodeConflict naming Idempotency-Key with RetryAfter", err)
	}
	// Past the lease (one minute of deadline and the margin) the retry
	// runs again.
	clock.Advance(2 * time.Minute)
	res, replayed, err := app.Idempotency().Run(t.Context(), "lease", "fp", second)
	if err != nil || replayed || string(res.Body) != `"second"` {
		t.Errorf("retry after the lease = %s, replayed %v, %v; want a fresh run", res.Body, replayed, err)
	}
	// The first attempt, back from the dead, keeps nothing: the answer
	// kept is the second's.
	close(block)
	if got := <-firstDone; string(got.Body) != `"first"` {
		t.Errorf("the first attempt returned %s to its own caller, want its answer", got.Body)
	}
	res, replayed, err = app.Idempotency().Run(t.Context(), "lease", "fp", second)
	if err != nil || !replayed || string(res.Body) != `"second"` {
		t.Errorf("retry after both = %s, replayed %v, %v; want the second's answer replayed", res.Body, replayed, err)
	}
}

// TestRunIdempotentPanic checks that an attempt that panics frees its key
// at once, as a 500 does, instead of holding it for its lease.
func TestRunIdempotentPanic(t *testing.T) {
	app, _ := idemApp(t)
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want the attempt's panic", v)
			}
		}()
		app.Idempotency().Run(t.Context(), "panics", "fp", func(context.Context) idempotency.Answer { panic("boom") })
	}()
	res, replayed, err := app.Idempotency().Run(t.Context(), "panics", "fp", func(context.Context) idempotency.Answer {
		return idempotency.Answer{Status: 200, Body: []byte(`"ran"`)}
	})
	if err != nil || replayed || string(res.Body) != `"ran"` {
		t.Errorf("retry after a panic = %s, replayed %v, %v; want a fresh run", res.Body, replayed, err)
	}
}
