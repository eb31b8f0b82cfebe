package caldav

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy"
)

// state is what Connect keeps with the account ([unical.Connection.State]).
type state struct {
	// PrincipalURL is the absolute URL of the user's principal.
	PrincipalURL string `json:"principalUrl"`
	// HomeURL is the absolute URL of the calendar home set, on the host
	// that serves it (iCloud: a pNN-caldav.icloud.com partition host).
	HomeURL string `json:"homeUrl"`
}

const propfindPrincipal = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-principal/></D:prop></D:propfind>`

const propfindHomeSet = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
	`<D:prop><C:calendar-home-set/></D:prop></D:propfind>`

// Connect checks the email and app-specific password against the server of
// settings (default [DefaultServerURL]) by discovering the account's
// calendar home: PROPFIND current-user-principal on /.well-known/caldav
// (falling back to the server URL as given), then calendar-home-set on the
// principal. Nothing is written. A wrong password is CodeUnauthorized, an
// unreachable server CodeUnavailable, a server that is not CalDAV
// CodeUpstream.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	if params.Email == "" || params.Password == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "An email and an app-specific password are required.")
	}
	server := settings.ServerURL
	if server == "" {
		server = DefaultServerURL
	}
	base, err := url.Parse(server)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl", Err: err,
			Message: fmt.Sprintf("The CalDAV server URL %q is not an http or https URL.", server)}
	}
	c := &conn{client: p.client, username: params.Email, password: params.Password, connecting: true, retry: p.retry, allowPrivate: p.allowPrivate}
	// A loopback or private IP literal is refused here as well as when
	// dialled, so that a client with its own transport refuses it too.
	if !p.allowPrivate && addrpolicy.ForbiddenHost(base.Hostname()) {
		return nil, c.refused(base, addrpolicy.ErrForbidden)
	}
	principal, err := c.findPrincipal(ctx, base)
	if err != nil {
		return nil, err
	}
	home, err := c.findHomeSet(ctx, principal)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(state{PrincipalURL: principal.String(), HomeURL: home.String()})
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return &unical.Connection{Email: params.Email, State: raw}, nil
}

// findPrincipal asks for DAV:current-user-principal at the RFC 6764 context
// path first and at the server URL as given second, and returns the
// principal's absolute URL.
func (c *conn) findPrincipal(ctx context.Context, base *url.URL) (*url.URL, error) {
	candidates := []*url.URL{base.ResolveReference(&url.URL{Path: "/.well-known/caldav"})}
	if base.Path != "" && base.Path != "/" {
		candidates = append([]*url.URL{base}, candidates...)
	} else {
		candidates = append(candidates, base.ResolveReference(&url.URL{Path: "/"}))
	}
	var last error
	for _, u := range candidates {
		r, ms, err := c.propfind(ctx, u, "0", propfindPrincipal, "current-user-principal")
		switch code := unical.ErrorCode(err); {
		case err == nil:
		case code == unical.CodeUnauthorized || code == unical.CodeUnavailable || code == unical.CodeRateLimited:
			return nil, err
		default:
			last = err
			continue
		}
		href := hrefProp(ms, nsDAV, "current-user-principal")
		if href == "" {
			last = unical.WrapError(unical.CodeUpstream, errNoHref, "The server at %s does not name a CalDAV principal.", u.Redacted())
			continue
		}
		principal, err := r.URL.Parse(href)
		if err != nil {
			last = unical.WrapError(unical.CodeUpstream, err, "The CalDAV server named a malformed principal.")
			continue
		}
		return principal, nil
	}
	if unical.ErrorCode(last) == unical.CodeNotFound {
		return nil, unical.WrapError(unical.CodeUpstream, last, "The server at %s does not offer CalDAV.", base.Redacted())
	}
	return nil, last
}

// findHomeSet asks the principal for CALDAV:calendar-home-set and returns
// its absolute URL, resolved against the answer's URL so that a home on
// another host (iCloud) is kept.
func (c *conn) findHomeSet(ctx context.Context, principal *url.URL) (*url.URL, error) {
	r, ms, err := c.propfind(ctx, principal, "0", propfindHomeSet, "calendar-home-set")
	if err != nil {
		return nil, err
	}
	href := hrefProp(ms, nsCalDAV, "calendar-home-set")
	if href == "" {
		return nil, unical.WrapError(unical.CodeUpstream, errNoHref, "The CalDAV server does not name a calendar home for this account.")
	}
	home, err := r.URL.Parse(href)
	if err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server named a malformed calendar home.")
	}
	if !strings.HasSuffix(home.Path, "/") {
		home.Path += "/"
	}
	return home, nil
}

// hrefProp returns the DAV:href inside the first 200 property space:local
// of any response.
func hrefProp(ms *multistatus, space, local string) string {
	for i := range ms.Responses {
		if e, ok := ms.Responses[i].prop(space, local); ok {
			if h := e.href(); h != "" {
				return h
			}
		}
	}
	return ""
}

// homeURL reads the calendar home URL that Connect stored.
func homeURL(s *unical.Session) (*url.URL, error) {
	var st state
	if err := json.Unmarshal(s.State, &st); err != nil || st.HomeURL == "" {
		if err == nil {
			err = errors.New("no homeUrl in state")
		}
		return nil, unical.WrapError(unical.CodeAccountExpired, err, "The CalDAV account must be reconnected.")
	}
	u, err := url.Parse(st.HomeURL)
	if err != nil {
		return nil, unical.WrapError(unical.CodeAccountExpired, err, "The CalDAV account must be reconnected.")
	}
	return u, nil
}
