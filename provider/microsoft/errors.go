package microsoft

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/unical/unical"
)

// graphFailure translates a Graph error answer (concepts/errors.md) by
// status and error code.
func graphFailure(status int, h http.Header, body []byte) error {
	var ge graphError
	_ = json.Unmarshal(body, &ge)
	code, msg := ge.Error.Code, ge.Error.Message
	cause := fmt.Errorf("microsoft: graph %d %s: %s", status, code, msg)
	wrap := func(c unical.Code, format string, args ...any) error {
		e := unical.WrapError(c, cause, format, args...)
		if ra, ok := retryAfter(h); ok {
			e.RetryAfter = ra
		}
		return e
	}
	switch code {
	case "syncStateNotFound", "syncStateInvalid", "resyncRequired":
		return wrap(unical.CodeGone, "Microsoft Graph no longer accepts the sync token; sync from scratch.")
	case "ErrorInvalidIdMalformed", "ErrorItemNotFound", "itemNotFound":
		return wrap(unical.CodeNotFound, "Not found.")
	}
	switch {
	case status == http.StatusNotFound:
		return wrap(unical.CodeNotFound, "Not found.")
	case status == http.StatusUnauthorized:
		return wrap(unical.CodeAccountExpired, "Microsoft Graph refused the account's access token; connect the account again.")
	case status == http.StatusForbidden:
		return wrap(unical.CodeInvalid, "The account may not do this in Microsoft Graph: %s", msg)
	case status == http.StatusConflict:
		return wrap(unical.CodeConflict, "Microsoft Graph reports a conflict: %s", msg)
	case status == http.StatusGone:
		return wrap(unical.CodeGone, "Microsoft Graph no longer accepts the sync token; sync from scratch.")
	case status == http.StatusPreconditionFailed:
		return wrap(unical.CodePrecondition, "The event changed in Microsoft Graph since it was read.")
	case status == http.StatusRequestEntityTooLarge:
		return wrap(unical.CodeTooLarge, "The request is too large for Microsoft Graph.")
	case status == http.StatusTooManyRequests:
		return wrap(unical.CodeRateLimited, "Microsoft Graph is throttling this account; retry later.")
	case status == http.StatusNotImplemented:
		return wrap(unical.CodeNotImplemented, "Microsoft Graph does not support this.")
	case status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
		return wrap(unical.CodeUnavailable, "Microsoft Graph is unavailable; retry later.")
	case status == http.StatusBadRequest:
		return wrap(unical.CodeInvalid, "Microsoft Graph refused the request: %s", msg)
	}
	return wrap(unical.CodeUpstream, "Microsoft Graph answered with an error.")
}

// graphError is Graph's error body,
// {"error": {"code": "...", "message": "...", "innerError": {...}}}.
type graphError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}
