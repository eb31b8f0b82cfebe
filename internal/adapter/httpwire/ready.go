package httpwire

import (
	"context"
	"errors"
	"time"

	"github.com/unical/unical"
)

// ReadyTimeout is how long a readiness check waits for the store to
// answer a read.
const ReadyTimeout = time.Second

// Readiness is what /readyz reports, and what other pages that show it
// (the dashboard's overview) read. Each part is "ok" or what is wrong
// with it, never an error's text, which could name files or hosts.
type Readiness struct {
	Ready bool `json:"-"`
	// Store is "ok", "timeout" (no answer within the check's timeout) or
	// "error".
	Store string `json:"store"`
	// WebhookEngine is "ok" or "not_running".
	WebhookEngine string `json:"webhookEngine"`
}

// CheckReadiness pings store within timeout and takes whether the webhook
// engine runs; err is the store's failure, for the log.
func CheckReadiness(ctx context.Context, store unical.Store, engineRunning bool, timeout time.Duration) (Readiness, error) {
	r := Readiness{Ready: true, Store: "ok", WebhookEngine: "ok"}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := pingStore(ctx, store)
	if err != nil {
		r.Ready, r.Store = false, "error"
		if errors.Is(err, context.DeadlineExceeded) {
			r.Store = "timeout"
		}
	}
	if !engineRunning {
		r.Ready, r.WebhookEngine = false, "not_running"
	}
	return r, err
}

// pingStore reads from store and reports whether it answered before ctx
// ended. Stores need not honour ctx during a read (bbolt does not), so
// the read runs on its own and is left behind when ctx ends first.
func pingStore(ctx context.Context, store unical.Store) error {
	answer := make(chan error, 1)
	go func() {
		// An application that cannot exist (ids have a random part): any
		// answer, found or not, shows that the Store reads.
		_, err := store.GetApplication(ctx, "app_readiness-probe")
		if unical.ErrorCode(err) == unical.CodeNotFound {
			err = nil
		}
		answer <- err
	}()
	select {
	case err := <-answer:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
