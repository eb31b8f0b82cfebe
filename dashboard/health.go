package dashboard

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/httpwire"
)

// healthData is what the health panel shows.
type healthData struct {
	Ready  httpwire.Readiness
	Outbox *admin.OutboxStatus
	// Counts are the delivery attempts since start by outcome; nil when
	// the server measures none (Options.DeliveryCounts unset).
	Counts map[string]float64
	// Attempts counts the attempts that reached a receiver or failed;
	// ErrorRate is the share of them that did not deliver, in percent.
	Attempts  float64
	ErrorRate float64
}

// healthPage handles GET /dashboard/health: readiness as /readyz checks
// it, the outbox as GET /admin/v1/outbox counts it, and the delivery
// outcomes /metrics exports, read from the same counters.
func (h *handler) healthPage(w http.ResponseWriter, r *http.Request, s *session) {
	client := h.admin.Client()
	ready, _ := httpwire.CheckReadiness(r.Context(), client.Store(), client.EngineRunning(), httpwire.ReadyTimeout)
	d := &healthData{Ready: ready}
	status, errMsg := http.StatusOK, ""
	out, err := h.admin.Outbox(r.Context())
	switch {
	case err == nil:
		d.Outbox = out
	case unical.ErrorCode(err) != unical.CodeNotImplemented:
		errMsg, status = h.message(r, err), statusOf(err)
	}
	if h.deliveryCounts != nil {
		d.Counts = h.deliveryCounts()
		failed := d.Counts[engine.DeliveryRetrying] + d.Counts[engine.DeliveryFailed]
		d.Attempts = d.Counts[engine.DeliveryDelivered] + failed
		if d.Attempts > 0 {
			d.ErrorRate = 100 * failed / d.Attempts
		}
	}
	h.render(w, r, status, "health", &view{Session: s, Title: "Health", Error: errMsg, Section: "health", Data: d})
}
