package main

import (
	"log/slog"
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
)

// newDashboard returns the web dashboard, to be served under
// dashboard.Prefix. Its session key is derived from the master key, and
// logouts are kept in the store, so that every replica accepts the
// others' sessions and refuses the ones logged out anywhere.
func newDashboard(client *unical.Client, store unical.Store, key seal.Key, publicURL string, logger *slog.Logger, failures *httpapi.FailureLimiter) (http.Handler, error) {
	sessionKey := key.Derive("dashboard-session")
	return dashboard.New(dashboard.Options{
		Admin:      client,
		SessionKey: sessionKey[:],
		PublicURL:  publicURL,
		Revoked:    store,
		Failures:   failures,
		Logger:     logger,
	})
}
