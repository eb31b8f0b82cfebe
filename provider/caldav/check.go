package caldav

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/provider/kit"
)

var _ kit.SettingsChecker = (*Provider)(nil)

// CheckSettings implements [kit.SettingsChecker]: without an account
// it can only ask the server what it is, so it sends OPTIONS to the
// server URL (default [DefaultServerURL]), then to its RFC 6764
// /.well-known/caldav, following redirects, and passes when an answer's
// DAV header lists calendar-access. A server that wants credentials
// even for that passes with a sentence saying so: the account's own
// discovery runs when it connects.
func (p *Provider) CheckSettings(ctx context.Context, settings unical.ProviderSettings, _ string) ([]string, []kit.SettingsProblem) {
	server := settings.ServerURL
	if server == "" {
		server = DefaultServerURL
	}
	fail := func(format string, args ...any) ([]string, []kit.SettingsProblem) {
		return nil, []kit.SettingsProblem{{Field: "serverUrl", Message: fmt.Sprintf(format, args...)}}
	}
	base, err := url.Parse(server)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return fail("The CalDAV server URL %q is not an http or https URL.", server)
	}
	c := &conn{client: p.client, connecting: true, retry: p.retry, allowPrivate: p.allowPrivate}
	if !p.allowPrivate && (base.Scheme != "https" || addrpolicy.ForbiddenHost(base.Hostname())) {
		return fail("The CalDAV server URL %s must be https and name a public address; this server refuses others (unicald serve --allow-private-targets allows them, for development).", server)
	}
	wellKnown := base.ResolveReference(&url.URL{Path: "/.well-known/caldav"})
	var statuses []string
	for _, target := range []*url.URL{base, wellKnown} {
		r, err := c.do(ctx, "OPTIONS", target, nil, "")
		if err != nil {
			return fail("%s (%s).", strings.TrimSuffix(unical.ErrorMessage(err), "."), target.Redacted())
		}
		if davClasses(r.Header)["calendar-access"] {
			return []string{fmt.Sprintf("The CalDAV server at %s answers and supports CalDAV (calendar-access).", r.URL.Redacted())}, nil
		}
		if r.StatusCode == http.StatusUnauthorized {
			return []string{fmt.Sprintf("The server at %s answers and asks for credentials before it says more; each account's calendars are discovered when it connects with its own.", r.URL.Redacted())}, nil
		}
		statuses = append(statuses, fmt.Sprintf("%s answered %d", r.URL.Redacted(), r.StatusCode))
	}
	return fail("No CalDAV server found: %s, and neither said it supports CalDAV (calendar-access in its DAV header). Give the URL of the CalDAV service.", strings.Join(statuses, "; "))
}

// davClasses returns the compliance classes of the DAV headers.
func davClasses(h http.Header) map[string]bool {
	out := map[string]bool{}
	for _, v := range h.Values("DAV") {
		for _, class := range strings.Split(v, ",") {
			out[strings.ToLower(strings.TrimSpace(class))] = true
		}
	}
	return out
}
