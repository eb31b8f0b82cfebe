package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/unical/unical"
)

// APIError is a failure the Calendar API or userinfo endpoint reported. It
// is the Err of the *unical.Error this package returns, for logs.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Reason is errors[0].reason of Google's error body, e.g.
	// "rateLimitExceeded" or "fullSyncRequired"; empty when absent.
	Reason string
	// Message is Google's error message.
	Message string
}

// Error implements the error interface.
func (e *APIError) Error() string {
	s := "google: " + strconv.Itoa(e.Status)
	if e.Reason != "" {
		s += " " + e.Reason
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// errorBody is Google's JSON error envelope, and the OAuth-style body the
// userinfo endpoint answers with.
type errorBody struct {
	Error json.RawMessage `json:"error"`
}

type apiErrorDetail struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Errors  []struct {
		Domain  string `json:"domain"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"errors"`
}

// parseAPIError reads a Google error body; a body in another shape still
// yields the status.
func parseAPIError(status int, body []byte) *APIError {
	e := &APIError{Status: status}
	var env errorBody
	if json.Unmarshal(body, &env) != nil || len(env.Error) == 0 {
		return e
	}
	var d apiErrorDetail
	if json.Unmarshal(env.Error, &d) == nil {
		e.Message = d.Message
		if len(d.Errors) > 0 {
			e.Reason = d.Errors[0].Reason
			if e.Message == "" {
				e.Message = d.Errors[0].Message
			}
		}
		return e
	}
	var code string
	if json.Unmarshal(env.Error, &code) == nil {
		e.Reason = code
	}
	return e
}

// apiOutcome translates a non-2xx answer of the Calendar API (or userinfo)
// into an outcome. expiredCode is what a rejected credential means in the
// calling context: CodeAccountExpired for a stored account,
// CodeUnauthorized while connecting one.
func (p *Provider) apiOutcome(resp *http.Response, body []byte, expiredCode unical.Code) outcome {
	ae := parseAPIError(resp.StatusCode, body)
	wrap := func(code unical.Code, format string, args ...any) *unical.Error {
		return unical.WrapError(code, ae, format, args...)
	}
	switch s := resp.StatusCode; {
	case s == http.StatusBadRequest:
		msg := "Google refused the request."
		if ae.Message != "" {
			msg = fmt.Sprintf("Google refused the request: %s", ae.Message)
		}
		return outcome{err: wrap(unical.CodeInvalid, "%s", msg)}
	case s == http.StatusUnauthorized:
		return outcome{err: wrap(expiredCode, "Google no longer accepts the account's credentials; reconnect it.")}
	case s == http.StatusForbidden:
		switch ae.Reason {
		case "rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded":
			return outcome{err: wrap(unical.CodeRateLimited, "Google is throttling requests for this account; try again later."), retry: true, retryAfter: p.retryAfter(resp.Header)}
		case "dailyLimitExceeded":
			return outcome{err: wrap(unical.CodeRateLimited, "The daily Google Calendar quota is used up; try again later.")}
		case "insufficientPermissions":
			return outcome{err: wrap(expiredCode, "The Google account did not grant the access this needs; reconnect it.")}
		case "cannotDeletePrimaryCalendar":
			return outcome{err: wrap(unical.CodeConflict, "The primary calendar cannot be deleted.")}
		}
		return outcome{err: wrap(unical.CodeConflict, "Google does not allow this account to do that (the calendar may be read-only).")}
	case s == http.StatusNotFound:
		return outcome{err: wrap(unical.CodeNotFound, "Google has no such calendar or event, or the account cannot see it.")}
	case s == http.StatusConflict:
		return outcome{err: wrap(unical.CodeConflict, "The resource already exists at Google.")}
	case s == http.StatusGone:
		if ae.Reason == "deleted" {
			return outcome{err: wrap(unical.CodeNotFound, "The resource was already deleted at Google.")}
		}
		return outcome{err: wrap(unical.CodeGone, "Google no longer accepts the sync token; sync from scratch.")}
	case s == http.StatusPreconditionFailed:
		return outcome{err: wrap(unical.CodePrecondition, "The resource changed at Google since it was read.")}
	case s == http.StatusRequestEntityTooLarge:
		return outcome{err: wrap(unical.CodeTooLarge, "The request is too large for Google.")}
	case s == http.StatusTooManyRequests:
		return outcome{err: wrap(unical.CodeRateLimited, "Google is throttling requests for this account; try again later."), retry: true, retryAfter: p.retryAfter(resp.Header)}
	case s >= 500:
		return outcome{err: wrap(unical.CodeUnavailable, "Google Calendar is unavailable; try again later."), retry: true, retryAfter: p.retryAfter(resp.Header)}
	}
	return outcome{err: wrap(unical.CodeUpstream, "Google answered with an unexpected error.")}
}

// transportOutcome translates a failure to get any answer. Only
// idempotent requests are retried: a POST may have reached Google.
func transportOutcome(ctx context.Context, err error, idempotent bool) outcome {
	if ctx.Err() != nil {
		return outcome{err: unical.WrapError(unical.CodeUnavailable, err, "Google did not answer in time.")}
	}
	return outcome{err: unical.WrapError(unical.CodeUnavailable, err, "Google could not be reached."), retry: idempotent}
}

// asError returns err as an *unical.Error, wrapping foreign errors (for
// example from OnTokenRefresh) as internal ones.
func asError(err error) *unical.Error {
	if e := (*unical.Error)(nil); errors.As(err, &e) {
		return e
	}
	return unical.WrapError(unical.ErrorCode(err), err, "%s", unical.ErrorMessage(err))
}
