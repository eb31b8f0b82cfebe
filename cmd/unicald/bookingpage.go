package main

import (
	"log/slog"
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/bookingpage"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
)

// newBookingPage returns the public booking pages, to be served under
// bookingpage.Prefix. Their links are signed with a key derived from the
// master key, so that every replica accepts the links of the others.
// --rate-limit-ip 0 turns their per-address limits off too.
func newBookingPage(client *unical.Client, key seal.Key, front *frontSettings, logger *slog.Logger) (http.Handler, error) {
	linkKey := key.Derive("booking-page-links")
	opts := bookingpage.Options{
		Client:            client,
		LinkKey:           linkKey[:],
		TrustForwardedFor: front.trustForwardedFor,
		Logger:            logger,
	}
	if front.ipRate == 0 {
		opts.PageLimit = httpapi.RateLimit{PerSecond: -1}
		opts.WriteLimit = httpapi.RateLimit{PerSecond: -1}
	}
	return bookingpage.New(opts)
}
