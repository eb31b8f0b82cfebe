package retry

import (
	"context"
	"time"

	"github.com/unical/unical/internal/retrynote"
)

// Policy is the one retry policy of the providers: which answers are
// worth another try is the caller's (its own error classification, told
// through [Outcome.Retry]); how often and how long to wait is the Policy's.
// The zero value tries once.
type Policy struct {
	// MaxRetries is how many times a transient failure is tried again
	// after the first attempt.
	MaxRetries int
	// Backoff is the wait before a retry when the server named none.
	Backoff Backoff
	// MaxRetryAfter caps the Retry-After the Policy is willing to wait
	// for: a longer one ends the retries at once, so that the caller can
	// hand it on (429 with Retry-After) instead of holding a request open.
	// Zero means Backoff.Max.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx ends; nil uses a timer. Tests inject a
	// recorder here, so that no test waits for real.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Outcome is what one attempt reports to [Policy.Do].
type Outcome struct {
	// Err is nil when the attempt succeeded.
	Err error
	// Retry marks Err as transient: throttling, an outage, a lost
	// connection of a request that may be repeated.
	Retry bool
	// RetryAfter is the wait the server asked for (zero when none). A
	// retry never comes sooner than that.
	RetryAfter time.Duration
}

// Result is how [Policy.Do] ended.
type Result struct {
	// Err is nil on success, the last attempt's error when the failure was
	// final or the retries were spent, or the context's error when it
	// ended during a wait (then Interrupted is set and Last holds the
	// failure that was being waited out).
	Err  error
	Last error
	// Wait is the wait the caller may suggest to its own caller when it
	// gave up on a transient failure: the server's Retry-After, or the
	// backoff the next retry would have used.
	Wait time.Duration
	// Interrupted is set when ctx ended during a wait.
	Interrupted bool
}

// Do runs try until it succeeds, fails for good, or MaxRetries retries
// are spent. The wait before retry n (0-based) is the larger of
// Backoff.Wait(n) and the server's Retry-After; a Retry-After beyond
// MaxRetryAfter is not waited for.
func (p Policy) Do(ctx context.Context, try func(attempt int) Outcome) Result {
	maxRA := p.MaxRetryAfter
	if maxRA <= 0 {
		maxRA = p.Backoff.Max
	}
	for n := 0; ; n++ {
		o := try(n)
		if o.Err == nil {
			return Result{}
		}
		if !o.Retry {
			return Result{Err: o.Err}
		}
		wait := p.Backoff.Wait(n)
		if o.RetryAfter > wait {
			wait = o.RetryAfter
		}
		if n >= p.MaxRetries || o.RetryAfter > maxRA {
			return Result{Err: o.Err, Wait: wait}
		}
		// The measuring wrapper counts retries (see observe.NoteRetry).
		retrynote.Note(ctx)
		if err := p.sleep(ctx, wait); err != nil {
			return Result{Err: err, Last: o.Err, Interrupted: true}
		}
	}
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d or until ctx ends, whichever comes first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RoundUpSecond rounds a wait up to whole seconds, as Retry-After carries.
func RoundUpSecond(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return ((d + time.Second - 1) / time.Second) * time.Second
}
