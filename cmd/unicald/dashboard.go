package main

import (
	"context"
	"crypto/subtle"
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
	token := m.Getenv("UNICAL_ADMIN_TOKEN")
	dash, err := dashboard.New(dashboard.Options{
		Admin: client,
		VerifyToken: func(_ context.Context, t string) bool {
			return token != "" && subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1
		},
		SessionKey: func() []byte { k := key.Derive("dashboard-session"); return k[:] }(),
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
