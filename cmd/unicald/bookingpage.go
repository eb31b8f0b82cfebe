package main

import (
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/unical/unical"
	"github.com/unical/unical/bookingpage"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
)

// newBookingPage returns the public booking pages, to be served under
// bookingpage.Prefix. Their links are signed with a key derived from the
// master key, so that every replica accepts the links of the others.
// Their per-address limits are the front door's token buckets at the
// page's default rates, counting addresses as /v1 does; --rate-limit-ip
// 0 turns them off too.
func newBookingPage(client *unical.Client, key seal.Key, front *frontSettings, logger *slog.Logger) (http.Handler, error) {
	linkKey := key.Derive("booking-page-links")
	opts := bookingpage.Config{
		Client:  client,
		LinkKey: linkKey[:],
		ClientAddr: func(r *http.Request) netip.Addr {
			return httpapi.ClientAddr(r, front.trustForwardedFor)
		},
		Logger: logger,
	}
	if front.ipRate != 0 {
		opts.PageLimit = httpapi.NewAddressLimiter(httpapi.LimiterConfig{Rate: httpapi.RateLimit{PerSecond: bookingpage.DefaultPageRate, Burst: bookingpage.DefaultPageBurst}, TrustForwardedFor: front.trustForwardedFor})
		opts.WriteLimit = httpapi.NewAddressLimiter(httpapi.LimiterConfig{Rate: httpapi.RateLimit{PerSecond: bookingpage.DefaultWriteRate, Burst: bookingpage.DefaultWriteBurst}, TrustForwardedFor: front.trustForwardedFor})
	}
	return bookingpage.New(opts)
}
