package caldav

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/internal/retry"
)

const (
	// maxRedirects bounds the redirects followed for one request.
	maxRedirects = 5
	// maxBody caps how much of a response is read: a calendar-query of a
	// calendar with tens of thousands of events fits.
	maxBody = 64 << 20
)

// conn is one account's view of the server: the credentials and whether
// a 401 means a wrong password (while connecting) or an expired account.
type conn struct {
	client     *http.Client
	username   string
	password   string
	connecting bool
	// retry is the Provider's policy for requests the server turned
	// away with 429 or 503: it did not process them (RFC 9110 §15.6.4,
	// RFC 6585 §4), so sending them again is safe even for a conditional
	// PUT.
	retry retry.Policy
	// allowPrivate is Config.AllowPrivateTargets: http URLs allowed.
	allowPrivate bool
	// floating caches the calendar's zone for floating times; a conn
	// serves one call on one calendar.
	floating *time.Location
}

// origin is u's scheme and host, which an error may show.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// maxRetryWait is the longest Retry-After waited for; a longer one is
// handed to the caller as the error's RetryAfter instead.
const maxRetryWait = 10 * time.Second

func (p *Provider) conn(s *unical.Session) *conn {
	username := s.Email
	if st, err := readState(s); err == nil && st.Username != "" {
		username = st.Username
	}
	return &conn{client: p.client, username: username, password: s.Password, retry: p.retry, allowPrivate: p.allowPrivate}
}

// response is a server answer read in full, with the URL that gave it
// (after redirects), against which its hrefs resolve.
type response struct {
	URL        *url.URL
	StatusCode int
	Header     http.Header
	Body       []byte
}

// do sends one request, following redirects with the same method and body,
// and reads the answer, retrying a 429 or 503 a few times after the wait
// the server asks for (or an exponential backoff). Any status is returned;
// only transport failures are errors.
func (c *conn) do(ctx context.Context, method string, target *url.URL, header http.Header, body string) (*response, error) {
	var last *response
	res := c.retry.Do(ctx, func(int) retry.Outcome {
		r, err := c.doOnce(ctx, method, target, header, body)
		last = r
		if err != nil {
			return retry.Outcome{Err: err}
		}
		if r.StatusCode != http.StatusTooManyRequests && r.StatusCode != http.StatusServiceUnavailable {
			return retry.Outcome{}
		}
		// A Retry-After of 0 or a past date leaves the backoff: retrying
		// at once would only meet the same overload.
		ra, _ := retry.After(r.Header, time.Now())
		return retry.Outcome{Err: errTurnedAway, Retry: true, RetryAfter: max(ra, 0)}
	})
	if res.Err != nil && !errors.Is(res.Err, errTurnedAway) && !res.Interrupted {
		return nil, res.Err
	}
	// Turned away for good (or while waiting): the caller reads the
	// server's 429 or 503 answer itself.
	return last, nil
}

// errTurnedAway marks an answer of 429 or 503 for the retry policy; it
// never leaves do.
var errTurnedAway = errors.New("caldav: turned away")

// doOnce is one attempt of do.
func (c *conn) doOnce(ctx context.Context, method string, target *url.URL, header http.Header, body string) (*response, error) {
	u := target
	for range maxRedirects + 1 {
		req, err := http.NewRequestWithContext(ctx, method, u.String(), strings.NewReader(body))
		if err != nil {
			return nil, unical.WrapError(unical.CodeInvalid, err, "The CalDAV server URL is not valid.")
		}
		for k, vs := range header {
			req.Header[k] = vs
		}
		if !c.allowPrivate && u.Scheme != "https" {
			return nil, c.refused(u, errors.New("not https"))
		}
		// Only the origin the request was meant for gets the password: a
		// redirect may move the request, not the credentials.
		// A conn without a username (the settings check) asks anonymously.
		if sameOrigin(u, target) && c.username != "" {
			req.SetBasicAuth(c.username, c.password)
		}
		resp, err := c.client.Do(req)
		if errors.Is(err, addrpolicy.ErrForbidden) {
			return nil, c.refused(u, err)
		}
		if err != nil {
			// Name the server (its origin: no path, no credentials), so
			// that a mistyped serverUrl is seen in the answer.
			if ctx.Err() != nil {
				return nil, unical.WrapError(unical.CodeUnavailable, err, "The CalDAV server at %s did not answer in time.", origin(u))
			}
			return nil, unical.WrapError(unical.CodeUnavailable, err, "The CalDAV server at %s cannot be reached.", origin(u))
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		resp.Body.Close()
		if err != nil {
			return nil, unical.WrapError(unical.CodeUnavailable, err, "The CalDAV server's answer was cut short.")
		}
		if len(b) > maxBody {
			return nil, unical.Errorf(unical.CodeUpstream, "The CalDAV server's answer is larger than %d MiB.", maxBody>>20)
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			loc, err := u.Parse(resp.Header.Get("Location"))
			if err != nil || resp.Header.Get("Location") == "" {
				return nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent a redirect without a valid location.")
			}
			u = loc
			continue
		}
		return &response{URL: u, StatusCode: resp.StatusCode, Header: resp.Header, Body: b}, nil
	}
	return nil, unical.Errorf(unical.CodeUpstream, "The CalDAV server redirected too many times.")
}

// sameOrigin reports whether a and b have the same origin (RFC 6454):
// scheme, host and port, with a missing port read as the scheme's default.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// propfind sends a PROPFIND with the given depth and body and parses the
// 207 answer.
func (c *conn) propfind(ctx context.Context, target *url.URL, depth, body, what string) (*response, *multistatus, error) {
	r, err := c.do(ctx, "PROPFIND", target, http.Header{
		"Depth":        {depth},
		"Content-Type": {"application/xml; charset=utf-8"},
	}, body)
	if err != nil {
		return nil, nil, err
	}
	if err := c.classify(r, what); err != nil {
		return r, nil, err
	}
	if r.StatusCode != http.StatusMultiStatus {
		return r, nil, unical.Errorf(unical.CodeUpstream, "The CalDAV server answered %s with status %d instead of 207.", what, r.StatusCode)
	}
	var ms multistatus
	if err := xml.Unmarshal(r.Body, &ms); err != nil { //nolint:musttag // element.XMLName is untagged on purpose: it takes any element's name
		return r, nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent a malformed answer.")
	}
	return r, &ms, nil
}

// report sends a REPORT and parses its 207 answer. depth "" sends no Depth
// header.
func (c *conn) report(ctx context.Context, target *url.URL, depth, body, what string) (*response, *multistatus, error) {
	h := http.Header{"Content-Type": {"application/xml; charset=utf-8"}}
	if depth != "" {
		h.Set("Depth", depth)
	}
	r, err := c.do(ctx, "REPORT", target, h, body)
	if err != nil {
		return nil, nil, err
	}
	if err := c.classify(r, what); err != nil {
		return r, nil, err
	}
	if r.StatusCode != http.StatusMultiStatus {
		return r, nil, unical.Errorf(unical.CodeUpstream, "The CalDAV server answered %s with status %d instead of 207.", what, r.StatusCode)
	}
	var ms multistatus
	if err := xml.NewDecoder(bytes.NewReader(r.Body)).Decode(&ms); err != nil { //nolint:musttag // element.XMLName is untagged on purpose: it takes any element's name
		return r, nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent a malformed answer.")
	}
	return r, &ms, nil
}

// proppatch sends a PROPPATCH with the given set/remove instructions and
// checks every propstat of the 207 answer, which can hide a failure
// (reference §3.3).
func (c *conn) proppatch(ctx context.Context, u *url.URL, instructions string) error {
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">` +
		instructions + `</D:propertyupdate>`
	r, err := c.do(ctx, "PROPPATCH", u, http.Header{"Content-Type": {"application/xml; charset=utf-8"}}, body)
	if err != nil {
		return err
	}
	if err := c.classify(r, "update calendar"); err != nil {
		return err
	}
	if r.StatusCode != http.StatusMultiStatus {
		return nil
	}
	var ms multistatus
	if err := xml.Unmarshal(r.Body, &ms); err != nil { //nolint:musttag // element.XMLName is untagged on purpose: it takes any element's name
		return unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent a malformed answer.")
	}
	// The hrefs are not compared: Xandikos answers with the request's
	// absolute URL percent-encoded (davtest). There is one resource.
	for _, resp := range ms.Responses {
		for _, ps := range resp.Propstats {
			if statusOK(ps.Status) {
				continue
			}
			if f := strings.Fields(ps.Status); len(f) >= 2 && f[1] == "424" {
				continue // failed only because another property failed
			}
			var names []string
			for _, e := range ps.Prop.Children {
				names = append(names, e.XMLName.Local)
			}
			// A server that refuses a property (Xandikos: 409 for
			// calendar-timezone) lacks the feature.
			return unical.Errorf(unical.CodeNotImplemented, "The CalDAV server does not let %s be changed (%s).", strings.Join(names, ", "), strings.TrimSpace(ps.Status))
		}
	}
	return nil
}
