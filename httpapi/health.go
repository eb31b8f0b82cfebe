package httpapi

import (
	"net/http"

	"github.com/unical/unical/internal/adapter/httpwire"
)

// ReadyTimeout is how long /readyz waits for the store to answer a read.
const ReadyTimeout = httpwire.ReadyTimeout

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
	Status string              `json:"status"`
	Checks *httpwire.Readiness `json:"checks,omitempty"`
}

// handleReadyz answers 200 when the store answers a read within
// ReadyTimeout and the webhook engine runs, else 503 with the part that is
// not ready, so that a load balancer sends requests elsewhere.
func (h *handler) handleReadyz(w http.ResponseWriter, r *http.Request) {
	checks, err := httpwire.CheckReadiness(r.Context(), h.client.Store(), h.client.Config().Outbox.Running(), ReadyTimeout)
	if err != nil {
		h.log.WarnContext(r.Context(), "readiness: store not ready", "err", err)
	}
	if !checks.Ready {
		writeJSON(w, http.StatusServiceUnavailable, readiness{Status: "not_ready", Checks: &checks})
		return
	}
	writeJSON(w, http.StatusOK, readiness{Status: "ready", Checks: &checks})
}
