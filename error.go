package unical

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an [Error]. The HTTP layer pairs each code with one status
// and one wire string; Go callers switch on the code.
type Code string

// Error codes. The wire strings and HTTP statuses are listed in docs/api.md and
// paired with these constants in exactly one table, in package httpapi.
const (
	CodeInvalid         Code = "invalid"             // 400 invalid_request: bad input; Field names it.
	CodeUnauthorized    Code = "unauthorized"        // 401: missing or wrong API key, or wrong provider credentials.
	CodeNotFound        Code = "not_found"           // 404: no such resource in this application (also other applications' ids).
	CodeConflict        Code = "conflict"            // 409: the request conflicts with the current state.
	CodeAccountExpired  Code = "account_expired"     // 409: the account's credentials stopped working; reconnect it.
	CodeSlotUnavailable Code = "slot_unavailable"    // 409: a hold or booking's slot is taken; the message names the participant.
	CodeLimitReached    Code = "limit_reached"       // 409: a booking type's perDay or perWeek limit is full for the participant named.
	CodeGone            Code = "gone"                // 410 sync_token_expired: the provider dropped the sync cursor; sync from scratch.
	CodePrecondition    Code = "precondition_failed" // 412: the resource changed at the provider since it was read.
	CodeTooLarge        Code = "too_large"           // 413 payload_too_large.
	CodeKeyReused       Code = "key_reused"          // 422 idempotency_key_reused: the Idempotency-Key was first used with another request.
	CodeRateLimited     Code = "rate_limited"        // 429: slow down; Error.RetryAfter says for how long.
	CodeNotImplemented  Code = "not_implemented"     // 501: the provider cannot do this.
	CodeUpstream        Code = "upstream"            // 502 provider_error: the provider answered with an error we cannot map.
	CodeUnavailable     Code = "unavailable"         // 503 provider_unavailable: the provider is down or timed out.
	CodeInternal        Code = "internal"            // 500: a bug or a store failure; details only in logs.
	// CodeStoreUnavailable is 503 store_unavailable: the Store cannot be
	// reached (a database server that is down or unreachable); nothing was
	// written, and the same call works again once the Store is back.
	CodeStoreUnavailable Code = "store_unavailable"
)

// Error is the one error type of unical. Message is safe to show to API
// callers; Err is the underlying cause and is only ever logged.
type Error struct {
	// Code classifies the failure.
	Code Code
	// Message is a human-readable sentence for API callers. It never holds a
	// secret or an internal detail.
	Message string
	// Field names the request field at fault, when there is one, in the
	// spec's JSON spelling (for example "start.dateTime" or "x-api-key").
	Field string
	// Allowed lists the accepted values when a field holds a bad enum value.
	Allowed []string
	// RetryAfter is how long a caller should wait, for CodeRateLimited and
	// CodeUnavailable; zero when unknown.
	RetryAfter time.Duration
	// Reason says why the credentials stopped working, for
	// CodeAccountExpired: the account's statusReason. Empty is
	// StatusReasonUnknown.
	Reason StatusReason
	// Err is the wrapped cause, for logs only.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	s := "unical: " + string(e.Code)
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError returns a CodeInvalid *Error that names the offending field.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error with the given code and message that wraps
// cause for logging.
func WrapError(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: cause}
}

// ErrorCode returns the code of err, or CodeInternal when err is not an
// *Error. It returns "" for a nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorReason returns the StatusReason carried by err, or
// StatusReasonUnknown when it carries none.
func ErrorReason(err error) StatusReason {
	var e *Error
	if errors.As(err, &e) && e.Reason != "" {
		return e.Reason
	}
	return StatusReasonUnknown
}

// ErrorMessage returns the caller-safe message of err, or a generic sentence
// when err is not an *Error, so that internal details never leak.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "Internal error."
}

// invalidf is a short form of FieldError for this package.
func invalidf(field, format string, args ...any) *Error {
	return FieldError(field, format, args...)
}
