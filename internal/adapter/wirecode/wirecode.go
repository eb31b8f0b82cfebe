// Package wirecode is the one table that pairs each unical.Code with its
// HTTP status and its wire string (the "code" of an error body). The
// server (httpapi) writes errors with it and the Go client (httpclient)
// reads them back with it, without linking the server.
package wirecode

import (
	"net/http"

	"github.com/unical/unical"
)

// MethodNotAllowed and Timeout exist only on the wire: no Client call
// fails with them, so they are not among the root's codes.
const (
	MethodNotAllowed unical.Code = "method_not_allowed"
	Timeout          unical.Code = "timeout"
	// Forbidden is a scoped token used outside what it grants (package
	// scopedtoken): the scope or resource it lacks is named.
	Forbidden unical.Code = "forbidden"
)

// Wire is the HTTP status and wire string of a Code.
type Wire struct {
	Status int
	Code   string
}

var codes = map[unical.Code]Wire{
	unical.CodeInvalid:          {http.StatusBadRequest, "invalid_request"},
	unical.CodeUnauthorized:     {http.StatusUnauthorized, "unauthorized"},
	unical.CodeNotFound:         {http.StatusNotFound, "not_found"},
	unical.CodeConflict:         {http.StatusConflict, "conflict"},
	unical.CodeAccountExpired:   {http.StatusConflict, "account_expired"},
	unical.CodeSlotUnavailable:  {http.StatusConflict, "slot_unavailable"},
	unical.CodeLimitReached:     {http.StatusConflict, "limit_reached"},
	unical.CodeGone:             {http.StatusGone, "sync_token_expired"},
	unical.CodePrecondition:     {http.StatusPreconditionFailed, "precondition_failed"},
	unical.CodeTooLarge:         {http.StatusRequestEntityTooLarge, "payload_too_large"},
	unical.CodeKeyReused:        {http.StatusUnprocessableEntity, "idempotency_key_reused"},
	unical.CodeRateLimited:      {http.StatusTooManyRequests, "rate_limited"},
	unical.CodeNotImplemented:   {http.StatusNotImplemented, "not_implemented"},
	unical.CodeUpstream:         {http.StatusBadGateway, "provider_error"},
	unical.CodeUnavailable:      {http.StatusServiceUnavailable, "provider_unavailable"},
	unical.CodeInternal:         {http.StatusInternalServerError, "internal"},
	unical.CodeStoreUnavailable: {http.StatusServiceUnavailable, "store_unavailable"},
	MethodNotAllowed:            {http.StatusMethodNotAllowed, "method_not_allowed"},
	Timeout:                     {http.StatusGatewayTimeout, "timeout"},
	Forbidden:                   {http.StatusForbidden, "forbidden"},
}

// Of returns the status and wire string of code; a code the table does
// not hold is sent as internal.
func Of(code unical.Code) Wire {
	if w, ok := codes[code]; ok {
		return w
	}
	return codes[unical.CodeInternal]
}

// CodeOfWire returns the Code whose wire string is wire, so that a client
// of the API turns an error body back into the Code the server had. ok is
// false for a string the table does not hold.
func CodeOfWire(wire string) (code unical.Code, ok bool) {
	for c, w := range codes {
		if w.Code == wire {
			return c, true
		}
	}
	return "", false
}

// CodeOfStatus returns the Code of an HTTP status that came without an
// error body the API wrote (a proxy's 502 or 429, say): the code the table
// pairs with that status, the first of codes in a fixed order when several
// share it, CodeInternal for other 5xx statuses and CodeInvalid for other
// 4xx ones.
func CodeOfStatus(status int) unical.Code {
	for _, c := range statusOrder {
		if codes[c].Status == status {
			return c
		}
	}
	if status >= 500 {
		return unical.CodeInternal
	}
	return unical.CodeInvalid
}

// statusOrder picks one code for the statuses several codes share (409:
// conflict before account_expired).
var statusOrder = []unical.Code{
	unical.CodeInvalid, unical.CodeUnauthorized, unical.CodeNotFound, unical.CodeConflict, unical.CodeAccountExpired, unical.CodeSlotUnavailable, unical.CodeLimitReached,
	unical.CodeGone, unical.CodePrecondition, unical.CodeTooLarge, unical.CodeKeyReused, unical.CodeRateLimited,
	unical.CodeNotImplemented, unical.CodeUpstream, unical.CodeUnavailable, unical.CodeStoreUnavailable, unical.CodeInternal,
	MethodNotAllowed, Timeout, Forbidden,
}
