package googletest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is one failure of the Calendar API, rendered in Google's error
// body (see "Handle API errors",
// https://developers.google.com/workspace/calendar/api/guides/errors):
//
//	{"error":{"errors":[{"domain":…,"reason":…,"message":…,
//	  "locationType":…,"location":…}],"code":N,"message":…,"status":…}}
type apiError struct {
	status       int
	domain       string
	reason       string
	message      string
	locationType string
	location     string
}

// Error makes apiError an error so handlers can return it through the usual
// error plumbing.
func (e *apiError) Error() string {
	return fmt.Sprintf("googletest: %d %s: %s", e.status, e.reason, e.message)
}

type errorEnvelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Errors  []errorItem `json:"errors"`
	Code    int         `json:"code"`
	Message string      `json:"message"`
	// No "status" member: the errors guide gives "the complete JSON
	// representation" of each Calendar error as errors[], code and message
	// only (https://developers.google.com/workspace/calendar/api/guides/errors).
}

type errorItem struct {
	Domain       string `json:"domain"`
	Reason       string `json:"reason"`
	Message      string `json:"message"`
	LocationType string `json:"locationType,omitempty"`
	Location     string `json:"location,omitempty"`
}

func writeAPIError(w http.ResponseWriter, e *apiError) {
	body := errorEnvelope{Error: errorBody{
		Errors: []errorItem{{
			Domain:       e.domain,
			Reason:       e.reason,
			Message:      e.message,
			LocationType: e.locationType,
			Location:     e.location,
		}},
		Code:    e.status,
		Message: e.message,
	}}
	if e.status == http.StatusUnauthorized {
		// RFC 6750 §3: a resource server answers a bad bearer token with a
		// WWW-Authenticate challenge. Google sends one on 401s. UNVERIFIED
		// exact realm text.
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
	}
	writeJSON(w, e.status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value written here is built by this package from plain
		// structs and maps, so a marshal failure is a bug in the fake.
		panic(fmt.Sprintf("googletest: marshal response: %v", err))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// The constructors below produce the errors catalogued in the errors guide
// (https://developers.google.com/workspace/calendar/api/guides/errors, read
// in full for this audit). These match the guide's JSON exactly (status,
// domain, reason, message, locationType, location): notFound (404),
// deleted, fullSyncRequired and updatedMinTooLongAgo (410), conditionNotMet
// (412), duplicate (409), timeRangeEmpty (400), authError (401),
// forbiddenForNonOrganizer (403), and, in
// faultError, rateLimitExceeded (403 and 429), userRateLimitExceeded and
// quotaExceeded (403) and backendError (500). The others are not in the
// guide; each says what its status, reason and message rest on.

func errNotFound() *apiError {
	return &apiError{status: http.StatusNotFound, domain: "global", reason: "notFound", message: "Not Found"}
}

func errDeleted() *apiError {
	return &apiError{status: http.StatusGone, domain: "global", reason: "deleted", message: "Resource has been deleted"}
}

func errFullSyncRequired() *apiError {
	return &apiError{
		status: http.StatusGone, domain: "calendar", reason: "fullSyncRequired",
		message:      "Sync token is no longer valid, a full sync is required.",
		locationType: "parameter", location: "syncToken",
	}
}

func errConditionNotMet() *apiError {
	return &apiError{
		status: http.StatusPreconditionFailed, domain: "global", reason: "conditionNotMet",
		message: "Precondition Failed", locationType: "header", location: "If-Match",
	}
}

func errDuplicate() *apiError {
	return &apiError{status: http.StatusConflict, domain: "global", reason: "duplicate", message: "The requested identifier already exists."}
}

// errUpdatedMinTooLongAgo is the guide's other 410: updatedMin lies before
// the oldest change the server still remembers.
func errUpdatedMinTooLongAgo() *apiError {
	return &apiError{
		status: http.StatusGone, domain: "calendar", reason: "updatedMinTooLongAgo",
		message:      "The requested minimum modification time lies too far in the past.",
		locationType: "parameter", location: "updatedMin",
	}
}

func errTimeRangeEmpty(location string) *apiError {
	return &apiError{
		status: http.StatusBadRequest, domain: "calendar", reason: "timeRangeEmpty",
		message: "The specified time range is empty.", locationType: "parameter", location: location,
	}
}

// errInvalidParam reports a query parameter the API refuses: 400 is the
// guide's status for "an invalid combination of fields" or a bad value.
// UNVERIFIED: reason "invalid" and the messages; the guide shows only
// timeRangeEmpty for 400.
func errInvalidParam(param, message string) *apiError {
	return &apiError{
		status: http.StatusBadRequest, domain: "global", reason: "invalid",
		message: message, locationType: "parameter", location: param,
	}
}

// errSyncTokenRestricted refuses a parameter given with syncToken. The
// events.list reference (syncToken) lists the parameters that "cannot be
// specified together with nextSyncToken" and forbids showDeleted=false; the
// errors guide puts an invalid combination under 400. UNVERIFIED: reason
// and message are not in Google's documentation; these are the ones a
// third-party report quotes from a real answer
// (https://qiita.com/shiraily/items/6762046f041551c269da).
func errSyncTokenRestricted(param string) *apiError {
	return &apiError{
		status: http.StatusBadRequest, domain: "calendar", reason: "syncTokenWithRequestRestrictions",
		message: "Sync token cannot be used with other request restrictions.", locationType: "parameter", location: param,
	}
}

// errInvalid reports an invalid request body value.
func errInvalid(message string) *apiError {
	return &apiError{status: http.StatusBadRequest, domain: "global", reason: "invalid", message: message}
}

// errRequired reports a missing required body field. UNVERIFIED message
// wording (Google says e.g. "Missing end time.").
func errRequired(message string) *apiError {
	return &apiError{status: http.StatusBadRequest, domain: "global", reason: "required", message: message}
}

func errBadRequest(message string) *apiError {
	return &apiError{status: http.StatusBadRequest, domain: "global", reason: "badRequest", message: message}
}

func errAuth() *apiError {
	return &apiError{
		status: http.StatusUnauthorized, domain: "global", reason: "authError",
		message: "Invalid Credentials", locationType: "header", location: "Authorization",
	}
}

// errLoginRequired answers a request without any credentials. UNVERIFIED:
// the errors guide shows only authError for 401; reason "required" and
// "Login Required." are what Google is commonly reported to send when no
// credentials come at all (no primary source found in this audit).
func errLoginRequired() *apiError {
	return &apiError{
		status: http.StatusUnauthorized, domain: "global", reason: "required",
		message: "Login Required.", locationType: "header", location: "Authorization",
	}
}

// errInsufficientScopes answers a valid token that lacks the method's scope.
// UNVERIFIED wording.
func errInsufficientScopes() *apiError {
	return &apiError{
		status: http.StatusForbidden, domain: "global", reason: "insufficientPermissions",
		message: "Request had insufficient authentication scopes.",
	}
}

// errAccessLevel answers a write to a calendar the user can only read.
// UNVERIFIED: not in the errors guide or the reference. The body (403,
// domain calendar, reason requiredAccessLevel, this message) is the one
// real answers quoted in many public issue threads show, e.g.
// https://github.com/spatie/laravel-google-calendar/issues/95 and
// https://github.com/inovex/CalendarSync/issues/251.
func errAccessLevel() *apiError {
	return &apiError{
		status: http.StatusForbidden, domain: "calendar", reason: "requiredAccessLevel",
		message: "You need to have writer access to this calendar.",
	}
}

// errForbiddenForNonOrganizer is the errors guide's 403 for a write that
// sets a shared property (guestsCanInviteOthers, guestsCanModify,
// guestsCanSeeOtherGuests) in a copy of the event that is not the
// organizer's.
func errForbiddenForNonOrganizer() *apiError {
	return &apiError{
		status: http.StatusForbidden, domain: "calendar", reason: "forbiddenForNonOrganizer",
		message: "Shared properties can only be changed by the organizer of the event.",
	}
}

// errForbidden answers an operation the caller's role never allows.
func errForbidden(message string) *apiError {
	return &apiError{status: http.StatusForbidden, domain: "global", reason: "forbidden", message: message}
}

// faultError builds the body of an injected fault, using the errors guide's
// reason, domain and message for the well-known cases.
func faultError(status int, reason string) *apiError {
	if reason == "" {
		switch status {
		case http.StatusForbidden, http.StatusTooManyRequests:
			reason = "rateLimitExceeded"
		case http.StatusUnauthorized:
			return errAuth()
		default:
			reason = "backendError"
		}
	}
	for _, doc := range []*apiError{
		errNotFound(), errDeleted(), errFullSyncRequired(), errUpdatedMinTooLongAgo(),
		errConditionNotMet(), errDuplicate(), errTimeRangeEmpty("timeMax"),
	} {
		if doc.status == status && doc.reason == reason {
			return doc
		}
	}
	e := &apiError{status: status, domain: "global", reason: reason, message: http.StatusText(status)}
	switch reason {
	case "rateLimitExceeded":
		e.domain, e.message = "usageLimits", "Rate Limit Exceeded"
	case "userRateLimitExceeded":
		e.domain, e.message = "usageLimits", "User Rate Limit Exceeded"
	case "quotaExceeded":
		e.domain, e.message = "usageLimits", "Calendar usage limits exceeded."
	case "backendError":
		e.message = "Backend Error"
	}
	return e
}

// oauthError is an RFC 6749 §5.2 error of the token endpoint, which Google
// sends as {"error":"invalid_grant","error_description":"…"}.
type oauthError struct {
	status      int
	code        string
	description string
}

// Error makes oauthError an error.
func (e *oauthError) Error() string {
	return fmt.Sprintf("googletest: oauth %s: %s", e.code, e.description)
}

func writeOAuthError(w http.ResponseWriter, e *oauthError) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.description})
}
