package main

import (
	"log/slog"
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/internal/seal"
)

// withDashboard serves the web dashboard under /dashboard/ and everything
// else with api. The dashboard's session key is derived from the master
// key, so that every replica accepts the others' sessions.
func (m *Main) withDashboard(api http.Handler, client *unical.Client, key seal.Key, publicURL string, logger *slog.Logger) (http.Handler, error) {
	sessionKey := key.Derive("dashboard-session")
	dash, err := dashboard.New(dashboard.Options{
		Admin:      client,
		SessionKey: sessionKey[:],
		PublicURL:  publicURL,
		Logger:     logger,
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(dashboard.Prefix, dash)
	mux.Handle("/", api)
	return mux, nil
}
