package main

import (
	"log/slog"
	"net/http"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/metrics"
)

// newDashboard returns the web dashboard, to be served under
// dashboard.Prefix. Its session key is derived from the master key, and
// logouts are kept in the store, so that every replica accepts the
// others' sessions and refuses the ones logged out anywhere.
func newDashboard(svc *admin.Service, key seal.Key, publicURL string, logger *slog.Logger, met *metrics.Metrics, failures *httpapi.FailureLimiter) (http.Handler, error) {
	sessionKey := key.Derive("dashboard-session")
	return dashboard.New(dashboard.Config{
		Admin:      svc,
		SessionKey: sessionKey[:],
		PublicURL:  publicURL,
		Failures:   failures,
		Logger:     logger,

		DeliveryCounts: met.DeliveryCounts,
		RequestCounts:  met.RequestCounts,
	})
}
