// Package caldav is the CalDAV provider (PROVIDER_C): iCloud by default and
// any standards CalDAV server (Fastmail, Nextcloud, Radicale, Xandikos)
// through the application's [unical.ProviderSettings.ServerURL].
//
// Accounts connect with an email and an app-specific password, sent as
// HTTP Basic credentials on every request. [Provider.Connect] discovers the
// calendar home the way a real client does (RFC 6764 /.well-known/caldav,
// then DAV:current-user-principal, then CALDAV:calendar-home-set) and keeps
// the absolute home URL in [unical.Connection.State]: iCloud answers the
// home set with an absolute URL on a partition host (pNN-caldav.icloud.com)
// that all later requests must go to, which go-webdav's client loses
// (it keeps only the path), so discovery and collection PROPFINDs are done
// here with net/http and encoding/xml.
//
// Redirects are followed by hand, keeping the method and body, because
// net/http turns a 301 or 302 to a PROPFIND into a GET. Credentials follow
// a redirect only to the same host or to an https URL.
//
// Failures become [*unical.Error] codes in one function, [classify]: 401
// is CodeUnauthorized while connecting and CodeAccountExpired afterwards,
// 404 CodeNotFound, 412 CodePrecondition, 429 CodeRateLimited with
// Retry-After, 502/503/504 and network errors CodeUnavailable, other
// failures CodeUpstream.
package caldav

import (
	"net/http"
	"time"

	"github.com/unical/unical"
)

// ProviderType is the provider type this package serves.
const ProviderType = unical.ProviderCalDAV

// DefaultServerURL is the CalDAV server used when the application's
// settings leave ServerURL empty.
const DefaultServerURL = "https://caldav.icloud.com"

// Config configures a [Provider]. The zero value is ready to use.
type Config struct {
	// HTTPClient sends every request to the CalDAV server. Its
	// CheckRedirect is not used: the provider follows redirects itself.
	// Default: a client with a 30 s timeout.
	HTTPClient *http.Client
}

// Provider is the CalDAV provider. It keeps no per-account state and is
// safe for concurrent use.
type Provider struct {
	client *http.Client
}

var _ unical.Provider = (*Provider)(nil)

// New returns a Provider configured by cfg.
func New(cfg Config) *Provider {
	c := http.Client{Timeout: 30 * time.Second}
	if cfg.HTTPClient != nil {
		c = *cfg.HTTPClient
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Provider{client: &c}
}

// Type returns [ProviderType].
func (p *Provider) Type() unical.ProviderType { return ProviderType }
