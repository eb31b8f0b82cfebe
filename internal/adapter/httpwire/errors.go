package httpwire

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/wirecode"
)

// UnroutedError is the error for a request mux has no route for: 405
// (setting Allow on w) when the path exists for other methods, else 404.
func UnroutedError(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) error {
	var allowed []string
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		return &unical.Error{Code: wirecode.MethodNotAllowed, Allowed: allowed,
			Message: fmt.Sprintf("%s is not allowed here; use %s.", r.Method, strings.Join(allowed, " or "))}
	}
	return unical.Errorf(unical.CodeNotFound, "No such endpoint: %s %s.", r.Method, r.URL.Path)
}

// errorBody is the one JSON error shape.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Field   string   `json:"field,omitempty"`
	Allowed []string `json:"allowed,omitempty"`
}

// WriteError writes err as the one JSON error body, with the status of
// the one table of codes, and returns its code. Internal, provider and
// store failures, and timeouts, are logged with their cause to logger;
// the body only ever carries the caller-safe message.
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) unical.Code {
	code := unical.ErrorCode(err)
	wire := wirecode.Of(code)
	detail := detailOf(err)
	var e *unical.Error
	if errors.As(err, &e) {
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+999_999_999)/1_000_000_000)))
		}
	}
	if code == unical.CodeRateLimited && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	switch code {
	case unical.CodeInternal, unical.CodeUpstream, unical.CodeUnavailable, unical.CodeStoreUnavailable, wirecode.Timeout:
		logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "code", code, "err", err)
	}
	WriteJSON(w, wire.Status, errorBody{Error: detail})
	return code
}

// ErrorJSON returns err's JSON error body, the one WriteError writes, for
// an answer that does not travel as an HTTP response (an MCP tool's
// error). Nothing is logged.
func ErrorJSON(err error) []byte {
	body, _ := AppendJSON(nil, errorBody{Error: detailOf(err)})
	return body
}

// detailOf is err's error body: its wire code, caller-safe message, field
// and allowed values.
func detailOf(err error) errorDetail {
	detail := errorDetail{Code: wirecode.Of(unical.ErrorCode(err)).Code, Message: unical.ErrorMessage(err)}
	var e *unical.Error
	if errors.As(err, &e) {
		detail.Field, detail.Allowed = e.Field, e.Allowed
	}
	return detail
}

// StatusOf is the HTTP status err is answered with, from the one table of
// codes, for pages that show a unical error over HTTP (the dashboard's).
func StatusOf(err error) int { return wirecode.Of(unical.ErrorCode(err)).Status }

// RateLimited is the 429 of one of the server's own limits; message says
// which, and the answer's Retry-After says when to come back.
func RateLimited(wait time.Duration, message string) error {
	return &unical.Error{Code: unical.CodeRateLimited, RetryAfter: wait, Message: message + " Retry after the seconds in Retry-After."}
}

// TooManyFailures is the 429 of an address a FailureCounter holds back.
func TooManyFailures(wait time.Duration) error {
	return RateLimited(wait, "Too many failed attempts from this address.")
}

// FailureCounter counts failed secret checks (admin token, dashboard
// login) per client address: Wait says how long the address must wait
// before its next attempt is looked at, Fail counts a failure. Its users
// check the attempt first and ask Wait only when it failed, so that the
// right secret always works. httpapi.FailureLimiter is one, shared by
// every front end so that a guess counts the same wherever it is made.
type FailureCounter interface {
	Wait(r *http.Request) time.Duration
	Fail(r *http.Request)
}

// OrNoLimit returns c, or when c is nil a FailureCounter that never holds
// an address back, for a front end built without one.
func OrNoLimit(c FailureCounter) FailureCounter {
	if c == nil {
		return noLimit{}
	}
	return c
}

type noLimit struct{}

func (noLimit) Wait(*http.Request) time.Duration { return 0 }
func (noLimit) Fail(*http.Request)               {}
