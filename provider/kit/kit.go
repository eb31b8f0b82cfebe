// Package kit is what a calendar provider of unical is built from, for
// the providers in this module and for those outside it: a provider
// implements [unical.Provider] (and the optional interfaces of the root
// package), describes itself with [Describer], and is handed to
// unical.Config.Providers. Nothing else names it: admin, the dashboard,
// cmd/unicald and both OpenAPI documents list the providers of a Client
// through [Providers].
//
// The building blocks live in the packages below this one, each a thin
// public face of the code the bundled providers use:
//
//   - kit/httpkit: the HTTP transport of a provider call (a bearer token
//     refreshed once on 401, bounded retries of what the provider calls
//     transient, Retry-After), the retry policy, and the transport that
//     refuses loopback, private and link-local addresses (the SSRF rule
//     of CalDAV servers and feeds);
//   - kit/oauthkit: the one access-token source of an OAuth provider
//     call, which Google and Microsoft share;
//   - kit/captable: the capability table a provider declares
//     ([unical.CapabilityReporter]), grouped by support level;
//   - kit/icalkit: the iCalendar (RFC 5545) mapping of events that the
//     CalDAV provider uses, for providers that read or write iCalendar.
//
// provider/providertest is the conformance suite a provider passes, and
// provider/icsfeed a provider built on this kit alone.
package kit

import "github.com/unical/unical"

// ProviderInfo describes a provider type to people and tools.
type ProviderInfo struct {
	// Type is the name the provider declares ([unical.Provider.Type]).
	Type unical.ProviderType `json:"providerType"`
	// DisplayName is the provider's name for people ("Google Calendar").
	DisplayName string `json:"displayName"`
	// Settings are the JSON names of the [unical.ProviderSettings] fields
	// an application sets for the type, in the order forms show them;
	// the table admin.ProviderSettings describes each. None when the
	// provider takes no settings.
	Settings []string `json:"settings"`
	// Credential is what an account connects with, from the interfaces
	// the provider implements ([unical.Client.Credential]); set by
	// [Providers].
	Credential unical.Credential `json:"credential"`
	// Delegation says whether accounts may connect through an
	// application's delegation credential ([unical.DelegatedConnector]);
	// set by [Providers].
	Delegation bool `json:"delegation"`
}

// Describer is a provider that declares its DisplayName and Settings.
// A provider without it is named by its type and takes no settings.
type Describer interface {
	Info() ProviderInfo
}

// Providers describes every provider of c, in the order of
// [unical.Client.ProviderTypes].
func Providers(c *unical.Client) []ProviderInfo {
	var out []ProviderInfo
	for _, t := range c.ProviderTypes() {
		p, err := c.Provider(t)
		if err != nil {
			continue
		}
		info := Describe(p)
		info.Credential = c.Credential(t)
		out = append(out, info)
	}
	return out
}

// Describe returns what p declares, with Delegation from its
// interfaces; Credential is left to [Providers], which has the Client.
// A wrapped provider (one with an Unwrap method, as the Client's
// observers wrap them) is described by the provider it wraps.
func Describe(p unical.Provider) ProviderInfo {
	p = unwrap(p)
	info := ProviderInfo{DisplayName: string(p.Type())}
	if d, ok := p.(Describer); ok {
		info = d.Info()
	}
	info.Type, info.Settings = p.Type(), append([]string{}, info.Settings...)
	_, info.Delegation = p.(unical.DelegatedConnector)
	return info
}

// unwrap returns the provider p wraps, through every wrapper (one with an
// Unwrap method, as the Client's observers wrap providers).
func unwrap(p unical.Provider) unical.Provider {
	for {
		w, ok := p.(interface{ Unwrap() unical.Provider })
		if !ok {
			return p
		}
		p = w.Unwrap()
	}
}
