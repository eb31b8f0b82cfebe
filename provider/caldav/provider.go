// Package caldav is the CalDAV provider (PROVIDER_C): iCloud by default and
// any standards CalDAV server (Fastmail, Nextcloud, Radicale, Xandikos,
// Cyrus), per account: the server named when the account connects, else
// the application's [unical.ProviderSettings.ServerURL], else the one
// discovered from the email's domain (RFC 6764 SRV and TXT records through
// [Config.Resolver], then https://DOMAIN/.well-known/caldav), else iCloud.
//
// Accounts connect with an email (or a user name where the login is not
// the email) and an app-specific password, sent as HTTP Basic credentials
// on every request. [Provider.Connect] discovers the
// calendar home the way a real client does (RFC 6764 /.well-known/caldav,
// then DAV:current-user-principal, then CALDAV:calendar-home-set) and keeps
// the absolute home URL in [unical.Connection.State]: iCloud answers the
// home set with an absolute URL on a partition host (pNN-caldav.icloud.com)
// that all later requests must go to, which go-webdav's client loses
// (it keeps only the path), so discovery and collection PROPFINDs are done
// here with net/http and encoding/xml.
//
// # Events
//
// An event is one calendar object resource (RFC 4791 §4.1); its id is the
// resource name without ".ics" (the UID for events created here). The
// instances of a series have the ids of internal/recur.InstanceID, the series id
// and the original start; reading, updating or answering one reads or
// creates the RECURRENCE-ID override in the series' resource, and deleting
// one adds an EXDATE. Every change to an existing resource is a
// read-modify-write with If-Match on the ETag read, and creation uses
// If-None-Match: *, so a concurrent change is never overwritten
// (CodePrecondition); deleting a whole event too is conditional on the
// ETag read just before. A caller's If-Match (package ifmatch) is compared
// with the ETag read before anything is written. A weak ETag
// cannot be sent in If-Match (RFC 7232 §3.1 compares strongly), so with a
// server that issues only weak ones the ETag is compared here just before
// the write, which leaves a one-round-trip race; unquoted ETags are quoted
// when read (RFC 7232 §2.3). Each write is
// checked and encoded before it is sent: a refused event leaves nothing on
// the server. Properties unical does not
// map (VALARM, X-APPLE-*, X-MICROSOFT-*) and those whose value did not
// change are written back as they were; internal/adapter/icalmap documents the
// mapping.
//
// Listings are not expanded: masters with their recurrence and overrides
// with RecurringEventID come back, and the Client expands them. A window
// is a calendar-query time-range plus a query for every series, since
// Xandikos tests a series against its first instance only.
//
// Sync cursors are RFC 6578 sync tokens where the collection has a
// DAV:sync-token, else a compressed snapshot of every member's ETag; an
// incremental sync costs two requests whatever the calendar's size. A
// token the server refuses (valid-sync-token, or Xandikos's 500) is
// CodeGone.
//
// go-webdav's client is not used: v0.6.0 has no conditional PUT or DELETE,
// MKCALENDAR, PROPPATCH or sync-collection, drops prop-filters from
// calendar-query, fails on weak or unquoted ETags and keeps only the path
// of the calendar home. The requests it would make are a few lines of XML
// each, sent here through the same redirect-following, error-classifying
// transport as discovery; go-ical reads and writes the iCalendar data.
//
// Redirects are followed by hand, keeping the method and body, because
// net/http turns a 301 or 302 to a PROPFIND into a GET. Credentials follow
// a redirect only to the same origin (scheme, host and port): a server may
// send the request elsewhere, but not the account's password.
//
// The server URL comes from outside (the application's settings, and the
// servers named in discovery answers), so unless
// [Config.AllowPrivateTargets] is set only https URLs are used and no
// request connects to a loopback, private, link-local or reserved address
// (internal/addrpolicy, checked on the address dialled, after DNS). While
// connecting, a refused server URL is a CodeInvalid error naming
// serverUrl.
//
// Calendar and event ids become one path segment under the calendar home;
// an id that is empty, "." or "..", holds a slash or backslash or a control
// character, or is any of these once percent-decoded, is a CodeInvalid
// error naming calendarId or eventId, so that no id reaches outside the home.
//
// A request answered 429 or 503 is sent again up to [Config.MaxRetries]
// times, after the server's Retry-After (at most 10 s) or a backoff.
//
// Failures become [*unical.Error] codes in one function, [classify]: 401
// is CodeUnauthorized while connecting and CodeAccountExpired afterwards,
// 404 CodeNotFound, 412 CodePrecondition, 429 CodeRateLimited with
// Retry-After, 502/503/504 and network errors CodeUnavailable, other
// failures CodeUpstream.
package caldav

import (
	"net"
	"net/http"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy/httpguard"
	"github.com/unical/unical/internal/retry"
	"github.com/unical/unical/provider/kit"
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
	// A client without a Transport gets the address policy's
	// (internal/addrpolicy); one with its own Transport dials as that
	// transport does. Default: a client with a 30 s timeout.
	HTTPClient *http.Client
	// AllowPrivateTargets lets the provider use http URLs and connect to
	// loopback, private and link-local addresses, for development and
	// tests against a server on the same machine or network. Default
	// false: such server URLs are refused.
	AllowPrivateTargets bool
	// Now stamps DTSTAMP, LAST-MODIFIED and CREATED of the events written.
	// Default: time.Now.
	Now func() time.Time
	// MaxRetries is how often a request the server answers with 429 or 503
	// is sent again. Default: 2; negative: never.
	MaxRetries int
	// BaseBackoff is the wait before the first retry when the server sends
	// no Retry-After; it doubles with each retry. A Retry-After over 10 s
	// is not waited for: the error carries it. Default: 250 ms.
	BaseBackoff time.Duration
	// Resolver answers the DNS questions of discovery from an email's
	// domain (RFC 6764 SRV and TXT records). Default: net.DefaultResolver.
	Resolver Resolver
}

// Provider is the CalDAV provider. It is safe for concurrent use. Its
// per-account state is a bounded cache of what it read of calendars,
// checked with the server on every use (see ListEvents), and whether the
// account's server schedules (schedule.go).
type Provider struct {
	client *http.Client
	now    func() time.Time
	retry  retry.Policy
	// allowPrivate is Config.AllowPrivateTargets.
	allowPrivate bool
	resolver     Resolver
	// cache keeps what listings read, per account and calendar (cache.go).
	cache *calendarCache
	// scheduling keeps whether each account's server schedules
	// (schedule.go).
	scheduling *schedulingCache
}

var _ unical.Provider = (*Provider)(nil)

// New returns a Provider configured by cfg. Every provider's New has this
// shape; the error is for a Config the provider cannot use, and is nil
// today because every field has a default.
func New(cfg Config) (*Provider, error) {
	c := http.Client{Timeout: 30 * time.Second}
	if cfg.HTTPClient != nil {
		c = *cfg.HTTPClient
	}
	if c.Transport == nil {
		c.Transport = httpguard.Transport(cfg.AllowPrivateTargets)
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	policy := retry.Policy{MaxRetries: cfg.MaxRetries, Backoff: retry.Backoff{Base: cfg.BaseBackoff, Max: maxRetryWait}, MaxRetryAfter: maxRetryWait}
	switch {
	case cfg.MaxRetries == 0:
		policy.MaxRetries = 2
	case cfg.MaxRetries < 0:
		policy.MaxRetries = 0
	}
	if policy.Backoff.Base <= 0 {
		policy.Backoff.Base = 250 * time.Millisecond
	}
	var resolver Resolver = net.DefaultResolver
	if cfg.Resolver != nil {
		resolver = cfg.Resolver
	}
	return &Provider{client: &c, now: now, retry: policy, allowPrivate: cfg.AllowPrivateTargets, resolver: resolver,
		cache: &calendarCache{maxBytes: cacheBytes}, scheduling: &schedulingCache{}}, nil
}

// Type returns [ProviderType].
func (p *Provider) Type() unical.ProviderType { return ProviderType }

// Info implements [unical.Describer].
func (p *Provider) Info() kit.ProviderInfo {
	return kit.ProviderInfo{DisplayName: "CalDAV", Settings: []string{"serverUrl"}}
}

// ConnectsWithPassword implements [unical.PasswordConnector]: accounts
// connect with an app-specific password.
func (p *Provider) ConnectsWithPassword() bool { return true }
