// Package microsoft is unical's provider for Microsoft Graph v1.0 (Outlook
// and Microsoft 365 calendars), over golang.org/x/oauth2 and a thin Graph
// client of its own.
//
// Every Microsoft URL comes from the application's
// [unical.ProviderSettings] (AuthURL, TokenURL, APIBaseURL, Tenant), with
// the public cloud as default, so tests point the provider at
// internal/testkit/graphtest and national clouds at their own hosts.
//
// Field mapping is documented on eventFromGraph and graphEventBody;
// recurrence conversion in recurrence.go; extended properties are kept as
// one single-value extended property per key plus an index, see
// extprop.go.
//
// Beyond [unical.Provider] it is a [unical.FreeBusyQuerier] (getSchedule,
// https://learn.microsoft.com/graph/api/calendar-getschedule, with the
// calendar view where getSchedule cannot answer) and a [unical.Watcher]
// (change notifications through Graph subscriptions,
// https://learn.microsoft.com/graph/change-notifications-delivery-webhooks).
// Sync cursors hold calendarView delta links
// (https://learn.microsoft.com/graph/delta-query-events), or a snapshot of
// the calendar view for calendars Graph offers no delta for (snapshot.go).
package microsoft

import (
	"net/http"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
	"github.com/unical/unical/internal/adapter/providerhttp"
	"github.com/unical/unical/provider/kit"
)

// ProviderType is the provider type this package serves.
const ProviderType = unical.ProviderMicrosoft

var (
	_ unical.Provider       = (*Provider)(nil)
	_ unical.OAuthProvider  = (*Provider)(nil)
	_ unical.TokenRefresher = (*Provider)(nil)
)

// Public cloud defaults.
const (
	// DefaultAPIBaseURL is Graph v1.0 in the public cloud.
	DefaultAPIBaseURL = "https://graph.microsoft.com/v1.0"
	// DefaultTenant lets both work or school and personal accounts in.
	DefaultTenant = "common"
)

// DefaultScopes are requested when the settings name none: offline_access
// for a refresh token, User.Read for the profile, Calendars.ReadWrite for
// the calendars.
var DefaultScopes = []string{"offline_access", "User.Read", "Calendars.ReadWrite"}

// Config configures a Provider. Every field is optional.
type Config struct {
	// HTTPClient sends every request, to the identity platform and to
	// Graph. Default a client with a 30-second timeout.
	HTTPClient *http.Client
	// Now is the clock used for token expiry. Default time.Now.
	Now func() time.Time
	// MaxRetries is how often a request answered 429, 503 or 504 is tried
	// again before the error is returned. Default 3; negative means none.
	MaxRetries int
	// MaxRetryWait caps one wait between tries, including a Retry-After
	// from Graph; a longer Retry-After is returned to the caller as
	// CodeRateLimited or CodeUnavailable instead. Default 10 seconds.
	MaxRetryWait time.Duration
	// MaxWatchLifetime caps the lifetime asked for a Graph subscription.
	// Default DefaultMaxWatchLifetime.
	MaxWatchLifetime time.Duration
}

// Provider is the Microsoft Graph provider. It keeps no per-account state
// and is safe for concurrent use.
type Provider struct {
	httpClient   *http.Client
	now          func() time.Time
	maxRetries   int
	maxRetryWait time.Duration
	// maxWatchLifetime caps subscription lifetimes.
	maxWatchLifetime time.Duration
	// minter mints and keeps the app-only tokens of delegated accounts.
	minter *delegation.Minter
}

// New returns a Provider configured by cfg. Every provider's New has this
// shape; the error is for a Config the provider cannot use, and is nil
// today because every field has a default.
func New(cfg Config) (*Provider, error) {
	p := &Provider{
		httpClient:   providerhttp.DefaultClient(cfg.HTTPClient),
		now:          providerhttp.Clock(cfg.Now),
		maxRetries:   providerhttp.Retries(cfg.MaxRetries, 3),
		maxRetryWait: providerhttp.Wait(cfg.MaxRetryWait, 10*time.Second),

		maxWatchLifetime: providerhttp.Wait(cfg.MaxWatchLifetime, DefaultMaxWatchLifetime),
	}
	p.minter = &delegation.Minter{HTTPClient: p.httpClient, Now: p.now}
	return p, nil
}

// Type returns ProviderType.
func (p *Provider) Type() unical.ProviderType { return ProviderType }

// Info implements [unical.Describer].
func (p *Provider) Info() kit.ProviderInfo {
	return kit.ProviderInfo{DisplayName: "Microsoft Outlook", Settings: []string{
		"clientId", "clientSecret", "scopes", "tenant", "authUrl", "tokenUrl", "apiBaseUrl"}}
}
