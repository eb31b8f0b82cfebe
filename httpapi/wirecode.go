package httpapi

import "github.com/unical/unical"

// CodeOfWire returns the Code whose wire string (the "code" of an error
// body) is wire, read from the one table that pairs them, so that a client
// of the API turns an error body back into the Code the server had. ok is
// false for a string the table does not hold.
func CodeOfWire(wire string) (code unical.Code, ok bool) {
	for c, w := range codes {
		if w.code == wire {
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
		if codes[c].status == status {
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
	unical.CodeInvalid, unical.CodeUnauthorized, unical.CodeNotFound, unical.CodeConflict, unical.CodeAccountExpired,
	unical.CodeGone, unical.CodePrecondition, unical.CodeTooLarge, unical.CodeKeyReused, unical.CodeRateLimited,
	unical.CodeNotImplemented, unical.CodeUpstream, unical.CodeUnavailable, unical.CodeStoreUnavailable, unical.CodeInternal,
	codeMethodNotAllowed, codeTimeout,
}
