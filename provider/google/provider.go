// Package google is the Google Calendar provider (PROVIDER_A): a thin
// client of the Calendar API v3 REST interface over golang.org/x/oauth2.
//
// Every Google URL (authorization, token, userinfo, Calendar API root) comes
// from the application's [unical.ProviderSettings], with Google's public
// endpoints as defaults, so tests point the provider at the fake in
// internal/testkit/googletest.
//
// Failures are translated at this boundary into [*unical.Error] codes:
// Calendar API error bodies by HTTP status and errors[].reason (errors.go);
// token endpoint failures by the shared OAuth path, internal/adapter/oauthflow,
// with Google's own table of OAuth error codes (connect.go). Throttling (429,
// 403 rateLimitExceeded and friends) and 5xx answers are retried under the
// shared internal/retry policy (bounded exponential backoff with jitter
// that honours Retry-After), then surface as CodeRateLimited or
// CodeUnavailable.
//
// Events are mapped field by field in both directions (eventmap.go). Updates
// read the event and then PATCH it with If-Match on the etag they read, so
// "any subset" updates can replace maps and switch between timed and
// all-day values without losing a concurrent change. Listings
// (sync.go) carry Google's whole request in their page cursors,
// because Google wants the same query on every page; sync cursors are
// Google's nextSyncToken, used without the parameters Google forbids next
// to syncToken. The Provider also implements [unical.FreeBusyQuerier]
// (freeBusy.query) and [unical.Watcher] (events.watch channels,
// channels.stop and the X-Goog-* push headers, watch.go).
package google

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
	"github.com/unical/unical/internal/adapter/providerhttp"
	"github.com/unical/unical/internal/retry"
	"github.com/unical/unical/provider/kit"
)

// ProviderType is the provider type this package serves.
const ProviderType = unical.ProviderGoogle

// Google's public endpoints, used when the application's settings leave a
// URL empty.
const (
	DefaultAuthURL     = "https://accounts.google.com/o/oauth2/v2/auth"
	DefaultTokenURL    = "https://oauth2.googleapis.com/token"
	DefaultUserInfoURL = "https://openidconnect.googleapis.com/v1/userinfo"
	DefaultAPIBaseURL  = "https://www.googleapis.com/calendar/v3"
	DefaultRevokeURL   = "https://oauth2.googleapis.com/revoke"
)

// Scopes requested when the application's settings name none: full
// calendar access (calendars, calendar list, events, free/busy, watch) plus
// the OpenID scopes that reveal the account's email and id.
const (
	ScopeCalendar = "https://www.googleapis.com/auth/calendar"
	ScopeOpenID   = "openid"
	ScopeEmail    = "email"
)

// DefaultScopes are the scopes requested when ProviderSettings.Scopes is
// empty.
var DefaultScopes = []string{ScopeCalendar, ScopeOpenID, ScopeEmail}

// scopeEmailURL is how Google reports the "email" scope in a grant.
const scopeEmailURL = "https://www.googleapis.com/auth/userinfo.email"

// Config configures a [Provider]. The zero value is ready to use.
type Config struct {
	// HTTPClient sends every request to Google, the token endpoint
	// included. Default: a client with a 30 s timeout.
	HTTPClient *http.Client

	// Now is the clock used to judge access token expiry and Retry-After
	// dates. Default time.Now.
	Now func() time.Time

	// MaxRetries is how many times a throttled (429, 403 rate limit) or
	// failed (5xx, network error on an idempotent request) call is retried
	// after the first attempt. Default 4; negative disables retries.
	MaxRetries int

	// BaseBackoff is the wait before the first retry; each further retry
	// doubles it, with full jitter over the upper half. Default 500 ms.
	BaseBackoff time.Duration

	// MaxBackoff caps one wait. A Retry-After longer than this is not
	// waited for: the call fails at once with the Retry-After in
	// [unical.Error.RetryAfter]. Default 10 s, so one call waits at most
	// MaxRetries × MaxBackoff in total.
	MaxBackoff time.Duration
}

// Provider is the Google Calendar provider. It keeps no per-account state
// and is safe for concurrent use.
type Provider struct {
	client      *http.Client
	now         func() time.Time
	maxRetries  int
	baseBackoff time.Duration
	maxBackoff  time.Duration

	// sleep waits d or until ctx ends; tests replace it to record waits.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a random duration in [0, d); tests make it fixed.
	jitter func(d time.Duration) time.Duration
	// minter mints and keeps the tokens of delegated accounts.
	minter *delegation.Minter
}

var _ unical.OAuthProvider = (*Provider)(nil)
var _ unical.TokenRefresher = (*Provider)(nil)
var _ unical.GrantRevoker = (*Provider)(nil)

// New returns a Provider configured by cfg. Every provider's New has this
// shape; the error is for a Config the provider cannot use, and is nil
// today because every field has a default.
func New(cfg Config) (*Provider, error) {
	p := &Provider{
		client:      providerhttp.DefaultClient(cfg.HTTPClient),
		now:         providerhttp.Clock(cfg.Now),
		maxRetries:  providerhttp.Retries(cfg.MaxRetries, 4),
		baseBackoff: providerhttp.Wait(cfg.BaseBackoff, 500*time.Millisecond),
		maxBackoff:  providerhttp.Wait(cfg.MaxBackoff, 10*time.Second),
		sleep:       retry.Sleep,
		jitter: func(d time.Duration) time.Duration {
			if d <= 0 {
				return 0
			}
			return rand.N(d)
		},
	}
	p.minter = &delegation.Minter{HTTPClient: p.client, Now: p.now}
	return p, nil
}

// Type implements [unical.Provider].
func (p *Provider) Type() unical.ProviderType { return ProviderType }

// Info implements [unical.Describer].
func (p *Provider) Info() kit.ProviderInfo {
	return kit.ProviderInfo{DisplayName: "Google Calendar", Settings: []string{
		"clientId", "clientSecret", "scopes", "authUrl", "tokenUrl", "userInfoUrl", "apiBaseUrl", "revokeUrl"}}
}
