package caldav

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

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
	// Username is the login when it is not the email; empty for accounts
	// that log in with their email (and those connected before it
	// existed).
	Username string `json:"username,omitempty"`
}

const propfindPrincipal = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-principal/></D:prop></D:propfind>`

const propfindHomeSet = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
	`<D:prop><C:calendar-home-set/></D:prop></D:propfind>`

// discoveryTimeout bounds each server found by discovery rather than
// named, and discoveryBudget all of them together: a domain without a
// CalDAV server must not hold the connect for the HTTP client's whole
// timeout per candidate before the default is tried.
const (
	discoveryTimeout = 10 * time.Second
	discoveryBudget  = 20 * time.Second
)

// Connect checks the login and app-specific password by discovering the
// account's calendar home at its server: PROPFIND current-user-principal
// on /.well-known/caldav (falling back to the server URL as given), then
// calendar-home-set on the principal. Nothing is written.
//
// The server is params.ServerURL, else settings.ServerURL, else the first
// that discovery from the email's domain finds (RFC 6764: SRV records,
// then https://DOMAIN/.well-known/caldav), else [DefaultServerURL]. The
// login is params.Username, else the email.
//
// A wrong password is CodeUnauthorized, an unreachable server
// CodeUnavailable, a URL the address policy refuses or a server that is
// not CalDAV or names no calendar home CodeInvalid naming serverUrl.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	if params.Email == "" || params.Password == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "An email and an app-specific password are required.")
	}
	username := params.Username
	if username == "" {
		username = params.Email
	}
	c := &conn{client: p.client, username: username, password: params.Password, connecting: true, retry: p.retry, allowPrivate: p.allowPrivate}
	named := params.ServerURL
	if named == "" {
		named = settings.ServerURL
	}
	if named != "" {
		return p.connectAt(ctx, c, named, params, username)
	}
	// Discovered servers are guesses: any failure moves on to the next,
	// and the answer is the first success, else the default's outcome.
	// A refused password anywhere is what the user most needs to hear.
	var refused error
	budget, cancelBudget := context.WithTimeout(ctx, discoveryBudget)
	defer cancelBudget()
	for _, server := range p.discover(budget, params.Email) {
		dctx, cancel := context.WithTimeout(budget, discoveryTimeout)
		conn, err := p.connectAt(dctx, c, server, params, username)
		cancel()
		if err == nil {
			return conn, nil
		}
		if unical.ErrorCode(err) == unical.CodeUnauthorized && refused == nil {
			refused = err
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if budget.Err() != nil {
			break
		}
	}
	conn, err := p.connectAt(ctx, c, DefaultServerURL, params, username)
	if err != nil && refused != nil && unical.ErrorCode(err) != unical.CodeUnauthorized {
		return nil, refused
	}
	return conn, err
}

// connectAt is Connect at one server URL.
func (p *Provider) connectAt(ctx context.Context, c *conn, server string, params unical.ConnectParams, username string) (*unical.Connection, error) {
	base, err := url.Parse(server)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.User != nil {
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl", Err: err,
			Message: fmt.Sprintf("The CalDAV server URL %q is not an http or https URL (without credentials).", server)}
	}
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
	st := state{PrincipalURL: principal.String(), HomeURL: home.String()}
	if username != params.Email {
		st.Username = username
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return &unical.Connection{Email: params.Email, State: raw, ServerURL: base.String()}, nil
}

// notCalDAV is the error of a server URL that leads to no calendar home:
// a mistake in the URL the user can fix, so CodeInvalid naming serverUrl,
// with what was found there.
func notCalDAV(cause error, format string, args ...any) error {
	return &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl", Err: cause, Message: fmt.Sprintf(format, args...)}
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
	var (
		found []string // what each candidate answered, for the error
		last  error
	)
	for _, u := range candidates {
		r, ms, err := c.propfind(ctx, u, "0", propfindPrincipal, "current-user-principal")
		switch code := unical.ErrorCode(err); {
		case err == nil:
		case code == unical.CodeUnauthorized || code == unical.CodeUnavailable || code == unical.CodeRateLimited ||
			code == unical.CodeInvalid: // the address policy refused where the server sent us
			return nil, err
		default:
			last = err
			if r != nil {
				found = append(found, fmt.Sprintf("%s answered %d", r.URL.Redacted(), r.StatusCode))
			} else {
				found = append(found, fmt.Sprintf("%s: %s", u.Redacted(), strings.TrimSuffix(unical.ErrorMessage(err), ".")))
			}
			continue
		}
		href := hrefProp(ms, nsDAV, "current-user-principal")
		if href == "" {
			last = errNoHref
			found = append(found, fmt.Sprintf("%s answered without a current-user-principal", r.URL.Redacted()))
			continue
		}
		principal, err := r.URL.Parse(href)
		if err != nil {
			last = err
			found = append(found, fmt.Sprintf("%s named a malformed principal", r.URL.Redacted()))
			continue
		}
		return principal, nil
	}
	return nil, notCalDAV(last, "No CalDAV server at %s: %s. Give the URL of the CalDAV service.", base.Redacted(), strings.Join(found, "; "))
}

// findHomeSet asks the principal for CALDAV:calendar-home-set and returns
// its absolute URL, resolved against the answer's URL so that a home on
// another host (iCloud) is kept.
func (c *conn) findHomeSet(ctx context.Context, principal *url.URL) (*url.URL, error) {
	r, ms, err := c.propfind(ctx, principal, "0", propfindHomeSet, "calendar-home-set")
	switch code := unical.ErrorCode(err); {
	case err == nil:
	case code == unical.CodeUpstream || code == unical.CodeNotFound:
		what := strings.TrimSuffix(unical.ErrorMessage(err), ".")
		if r != nil {
			what = fmt.Sprintf("it answered %d", r.StatusCode)
		}
		return nil, notCalDAV(err, "The CalDAV principal %s has no calendar home: %s.", principal.Redacted(), what)
	default:
		return nil, err
	}
	href := hrefProp(ms, nsCalDAV, "calendar-home-set")
	if href == "" {
		return nil, notCalDAV(errNoHref, "The CalDAV principal %s names no calendar home (calendar-home-set) for this account.", principal.Redacted())
	}
	home, err := r.URL.Parse(href)
	if err != nil {
		return nil, notCalDAV(err, "The CalDAV principal %s named a malformed calendar home.", principal.Redacted())
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

// readState reads what Connect stored.
func readState(s *unical.Session) (state, error) {
	var st state
	err := json.Unmarshal(s.State, &st)
	return st, err
}

// homeURL reads the calendar home URL that Connect stored.
func homeURL(s *unical.Session) (*url.URL, error) {
	st, err := readState(s)
	if err != nil || st.HomeURL == "" {
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
