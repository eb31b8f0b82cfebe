package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy/httpguard"
	"github.com/unical/unical/invite"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/icsfeed"
	"github.com/unical/unical/provider/microsoft"
	"github.com/unical/unical/provider/virtual"
)

// defaultProviders returns the providers the server ships with, each with
// its public endpoints as defaults; an application's provider settings
// point them elsewhere (national clouds, self-hosted CalDAV, tests). Unless
// allowPrivate (--allow-private-targets), their requests never connect to
// loopback, private or link-local addresses, whatever URL the settings or
// a provider's answers name. A provider is one line of the list: nothing
// else in unicald names it (admin, the dashboard, the CLI and the OpenAPI
// documents list the Client's providers).
func defaultProviders(logger *slog.Logger, allowPrivate bool) ([]unical.Provider, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: httpguard.Transport(allowPrivate)}
	var providers []unical.Provider
	for _, build := range []func() (unical.Provider, error){
		func() (unical.Provider, error) { return google.New(google.Config{HTTPClient: client}) },
		func() (unical.Provider, error) { return microsoft.New(microsoft.Config{HTTPClient: client}) },
		func() (unical.Provider, error) { return caldav.New(caldav.Config{AllowPrivateTargets: allowPrivate}) },
		func() (unical.Provider, error) { return icsfeed.New(icsfeed.Config{AllowPrivateTargets: allowPrivate}) },
	} {
		p, err := build()
		if err != nil {
			return nil, err
		}
		providers = append(providers, p)
	}
	return providers, nil
}

// withInvitations wraps the bundled VIRTUAL and CalDAV providers so that
// their writes with notifyAttendees=true mail iMIP invitations (package
// invite); other providers, and providers an embedder passed in, are
// left as they are, since the wrapper would hide their optional
// interfaces.
func withInvitations(providers []unical.Provider, cfg invite.Config) []unical.Provider {
	out := make([]unical.Provider, len(providers))
	for i, p := range providers {
		switch p.(type) {
		case *virtual.Provider, *caldav.Provider:
			out[i] = invite.Wrap(p, cfg)
		default:
			out[i] = p
		}
	}
	return out
}
