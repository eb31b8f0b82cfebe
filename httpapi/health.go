package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/unical/unical"
)

// ReadyTimeout is how long /readyz waits for the store to answer a read.
const ReadyTimeout = time.Second

// registerHealthRoutes serves the probes, and /metrics when the program
// hands a metrics handler. None of them needs an API key, so none of them
// says anything about an application.
func (h *handler) registerHealthRoutes(metrics http.Handler) {
	h.mux.HandleFunc("GET /healthz", h.handleHealthz)
	h.mux.HandleFunc("GET /readyz", h.handleReadyz)
	if metrics != nil {
		h.mux.Handle("GET /metrics", metrics)
	}
}

// handleHealthz answers 200 while the process serves requests: a liveness
// probe, which must not depend on the store (a restart would not mend it).
func (h *handler) handleHealthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, readiness{Status: "ok"})
}

// readiness is the body of /healthz and /readyz. Checks name each part
// with "ok" or what is wrong with it, never an error's text, which could
// name files or hosts.
type readiness struct {
	Status string       `json:"status"`
	Checks *readyChecks `json:"checks,omitempty"`
}

type readyChecks struct {
	// Store is "ok", "timeout" (no answer within ReadyTimeout) or "error".
	Store string `json:"store"`
	// WebhookEngine is "ok" or "not_running".
	WebhookEngine string `json:"webhookEngine"`
}

// handleReadyz answers 200 when the store answers a read within
// ReadyTimeout and the webhook engine runs, else 503 with the part that is
// not ready, so that a load balancer sends requests elsewhere.
func (h *handler) handleReadyz(w http.ResponseWriter, r *http.Request) {
	ready, checks, err := checkReadiness(r.Context(), h.client)
	if err != nil {
		h.log.WarnContext(r.Context(), "readiness: store not ready", "err", err)
	}
	if !ready {
		writeJSON(w, http.StatusServiceUnavailable, readiness{Status: "not_ready", Checks: checks})
		return
	}
	writeJSON(w, http.StatusOK, readiness{Status: "ready", Checks: checks})
}

// Readiness is what /readyz reports, for other pages that show it (the
// dashboard's overview): Store is "ok", "timeout" or "error",
// WebhookEngine "ok" or "not_running".
type Readiness struct {
	Ready         bool
	Store         string
	WebhookEngine string
}

// CheckReadiness checks what /readyz checks, the same way.
func CheckReadiness(ctx context.Context, client *unical.Client) Readiness {
	ready, checks, _ := checkReadiness(ctx, client)
	return Readiness{Ready: ready, Store: checks.Store, WebhookEngine: checks.WebhookEngine}
}

// checkReadiness pings the store within ReadyTimeout and asks whether the
// engine runs; err is the store's failure, for the log.
func checkReadiness(ctx context.Context, client *unical.Client) (bool, *readyChecks, error) {
	checks := &readyChecks{Store: "ok", WebhookEngine: "ok"}
	ready := true
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	err := pingStore(ctx, client.Store())
	if err != nil {
		ready = false
		checks.Store = "error"
		if errors.Is(err, context.DeadlineExceeded) {
			checks.Store = "timeout"
		}
	}
	if !client.EngineRunning() {
		ready = false
		checks.WebhookEngine = "not_running"
	}
	return ready, checks, err
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
