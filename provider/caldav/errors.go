package caldav

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/retry"
)

// refused is the error of a request to u that the address policy does not
// allow: not https, or an address that is loopback, private, link-local or
// reserved. While connecting it names serverUrl, the setting that led
// there; afterwards the server itself sent the request there.
func (c *conn) refused(u *url.URL, cause error) error {
	cause = fmt.Errorf("caldav: %s: %w", u.Redacted(), cause)
	if c.connecting {
		return &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl", Err: cause,
			Message: "The CalDAV server URL must be an https URL of a public address, not a loopback, private or link-local one."}
	}
	return unical.WrapError(unical.CodeUpstream, cause, "The CalDAV server sent the request to a URL that is not https or not a public address.")
}

// classify turns a non-2xx answer into an *unical.Error; what names the
// operation for the log. It returns nil for a 2xx answer.
func (c *conn) classify(r *response, what string) error {
	if r.StatusCode >= 200 && r.StatusCode < 300 {
		return nil
	}
	cause := fmt.Errorf("caldav: %s: %s %s: %s", what, r.URL.Redacted(), http.StatusText(r.StatusCode), snippet(r.Body))
	switch r.StatusCode {
	case http.StatusUnauthorized:
		if c.connecting {
			// Name the login sent, which is the username when one was
			// given: "the email" misleads a user who sent a username.
			return unical.WrapError(unical.CodeUnauthorized, cause, "The CalDAV server refused the login %q and its password (iCloud and Fastmail take an app-specific password, not the account's own).", c.username)
		}
		// A 401 on a stored account is the password (changed, or the
		// app-specific password revoked): nothing else authenticates.
		e := unical.WrapError(unical.CodeAccountExpired, cause, "The CalDAV server no longer accepts the account's app-specific password; reconnect the account.")
		e.Reason = unical.StatusReasonPasswordInvalid
		return e
	case http.StatusNotFound, http.StatusGone:
		return unical.WrapError(unical.CodeNotFound, cause, "Not found at the CalDAV server.")
	case http.StatusPreconditionFailed:
		return unical.WrapError(unical.CodePrecondition, cause, "The resource changed at the CalDAV server since it was read.")
	case http.StatusTooManyRequests:
		e := unical.WrapError(unical.CodeRateLimited, cause, "The CalDAV server asks to slow down.")
		e.RetryAfter, _ = retry.After(r.Header, time.Now())
		return e
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		e := unical.WrapError(unical.CodeUnavailable, cause, "The CalDAV server is unavailable.")
		e.RetryAfter, _ = retry.After(r.Header, time.Now())
		return e
	}
	return unical.WrapError(unical.CodeUpstream, cause, "The CalDAV server answered with an error.")
}

func snippet(b []byte) string {
	const n = 512
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// errNoHref marks a multistatus without the property asked for.
var errNoHref = errors.New("property has no href")
