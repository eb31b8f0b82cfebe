package main

import (
	"log/slog"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/microsoft"
)

// defaultProviders returns the providers the server ships with, each with
// its public endpoints as defaults; an application's provider settings
// point them elsewhere (national clouds, self-hosted CalDAV, tests).
func defaultProviders(logger *slog.Logger) ([]unical.Provider, error) {
	ms, err := microsoft.New(microsoft.Config{})
	if err != nil {
		return nil, err
	}
	return []unical.Provider{google.New(google.Config{}), ms, caldav.New(caldav.Config{})}, nil
}
