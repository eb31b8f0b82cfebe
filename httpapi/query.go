package httpapi

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/unical/unical"
)

// query reads and checks query parameters, keeping the first error.
type query struct {
	r   *http.Request
	err error

	values url.Values // decoded on the first read
	parsed bool
}

func (q *query) str(name string) string {
	if !q.parsed {
		q.parsed = true
		var err error
		if q.values, err = parseQuery(q.r.URL.RawQuery); err != nil && q.err == nil {
			q.err = err
		}
	}
	return q.values.Get(name)
}

// queryParams lists the query parameters each route takes, by its
// pattern; a route not listed takes none. Any other parameter is a 400
// naming it: a misspelt filter (?serch=, ?expandrecurrences=) would
// otherwise be no filter. TestOpenAPIQueryParameters holds the OpenAPI
// document to this table.
var queryParams = map[string][]string{
	"GET /v1/endUserAccounts":                                               {"search", "statusFilter", "pageToken", "limit"},
	"GET /v1/calendars/{accountID}":                                         {"syncToken", "pageToken", "limit"},
	"GET /v1/events/{accountID}/{calendarID}":                               {"syncToken", "startDateTime", "endDateTime", "timeZone", "metadataFilters", "expandRecurrences", "search", "orderBy", "pageToken", "limit"},
	"GET /v1/events/{accountID}/{calendarID}/{eventID}/occurrences":         {"syncToken", "startDateTime", "endDateTime", "timeZone", "metadataFilters", "search", "orderBy", "pageToken", "limit"},
	"DELETE /v1/endUserAccounts/{id}":                                       {"revokeGrant"},
	"POST /v1/events/{accountID}/{calendarID}":                              {unical.NotifyAttendeesParameter},
	"PUT /v1/events/{accountID}/{calendarID}/{eventID}":                     {"scope", unical.NotifyAttendeesParameter},
	"DELETE /v1/events/{accountID}/{calendarID}/{eventID}":                  {"scope", unical.NotifyAttendeesParameter},
	"GET /v1/events/{accountID}/{calendarID}/ics":                           {"startDateTime", "endDateTime"},
	"GET /v1/calendarSubscriptions/{accountID}":                             {"pageToken", "limit"},
	"GET /v1/calendarSubscriptions/{accountID}/{subscriptionID}/deliveries": {"pageToken", "limit"},
	"GET /v1/applicationWebhook/deliveries":                                 {"pageToken", "limit"},
	"GET /v1/rooms":                                                         {"pageToken", "limit"},
	"GET /v1/bookingTypes":                                                  {"pageToken", "limit"},
	"GET /v1/bookingTypes/{id}/slots":                                       {"startDateTime", "endDateTime", "timeZone"},
	"GET /v1/schedules":                                                     {"pageToken", "limit"},
	"GET /v1/bookings":                                                      {"bookingTypeId", "startDateTime", "endDateTime", "pageToken", "limit"},
	"POST /v1/bookings":                                                     {unical.NotifyAttendeesParameter},
	"DELETE /v1/bookings/{id}":                                              {unical.NotifyAttendeesParameter},
	"POST /v1/bookings/{id}/reschedule":                                     {unical.NotifyAttendeesParameter},
	"GET /v1/oauth/authorize/{appID}/{provider}":                            {"redirectUrl", "prompt", "loginHint", "state"},
}

// checkQuery refuses a query parameter r's route does not take (see
// queryParams). The OAuth callback and the provider notification routes
// are not checked: providers add parameters of their own there.
func checkQuery(r *http.Request) error { return CheckQuery(r, queryParams[r.Pattern]) }

// CheckQuery refuses a query parameter of r that is not in allowed, and
// one given twice (only the first would be read), with a 400 naming it, as
// the /v1 API does; for other handlers of the same server (the admin API).
func CheckQuery(r *http.Request, allowed []string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	values, err := parseQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(allowed, name) {
			return unical.FieldError(name, "%s is not a query parameter of this request.", name)
		}
		if len(values[name]) > 1 {
			return unical.FieldError(name, "%s is given more than once.", name)
		}
	}
	return nil
}

// parseQuery decodes a query string. r.URL.Query drops the pairs it
// cannot decode, which turns a bad filter into no filter; here bad
// percent-encoding, a semicolon separator and bytes that are not UTF-8
// once decoded are a 400 naming the parameter ("query" when the name
// itself cannot be read).
func parseQuery(raw string) (url.Values, error) {
	values, err := url.ParseQuery(raw)
	if err == nil {
		err = checkQueryUTF8(values)
	}
	if err == nil {
		return values, nil
	}
	// Find the pair that failed, to name it.
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		v, err := url.ParseQuery(pair)
		if err == nil {
			err = checkQueryUTF8(v)
		}
		if err == nil {
			continue
		}
		rawName, _, _ := strings.Cut(pair, "=")
		if n, err := url.QueryUnescape(rawName); err == nil && n != "" && utf8.ValidString(n) && !strings.Contains(n, ";") {
			return nil, unical.FieldError(n, "The query parameter %s cannot be decoded: send percent-encoded UTF-8 and separate parameters with &.", n)
		}
		break
	}
	return nil, unical.FieldError("query", "The query string cannot be decoded: send percent-encoded UTF-8 and separate parameters with &.")
}

// checkQueryUTF8 reports an error if a decoded name or value is not UTF-8.
func checkQueryUTF8(values url.Values) error {
	for k, vs := range values {
		if !utf8.ValidString(k) {
			return errQueryNotUTF8
		}
		for _, v := range vs {
			if !utf8.ValidString(v) {
				return errQueryNotUTF8
			}
		}
	}
	return nil
}

var errQueryNotUTF8 = errors.New("query is not UTF-8")

func (q *query) dateTime(name string) time.Time {
	s := q.str(name)
	if s == "" || q.err != nil {
		return time.Time{}
	}
	t, err := unical.ParseDateTime(name, s, nil)
	if err != nil {
		q.err = err
	}
	return t
}

func (q *query) boolean(name string) bool {
	s := q.str(name)
	if s == "" || q.err != nil {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		q.err = &unical.Error{Code: unical.CodeInvalid, Field: name, Allowed: []string{"true", "false"}, Message: name + " must be true or false."}
	}
	return b
}

// writeOptions decodes the per-call options of a write request that the
// route takes (by unical's Option names): notifyAttendees and revokeGrant
// from the query, If-Match from the header. The Idempotency-Key header
// is the idempotent middleware's.
func (q *query) writeOptions(takes ...string) (unical.WriteOptions, error) {
	var o unical.WriteOptions
	for _, name := range takes {
		switch name {
		case unical.OptionNotifyAttendees:
			if q.str(name) != "" {
				notify := q.boolean(name)
				o.NotifyAttendees = &notify
			}
		case unical.OptionRevokeGrant:
			if q.str(name) != "" {
				o.KeepGrant = !q.boolean(name)
			}
		case unical.OptionIfMatch:
			if q.err != nil {
				break
			}
			etag, err := ifMatch(q.r)
			if err != nil {
				return o, err
			}
			o.IfMatch = etag
		}
	}
	return o, q.err
}

func (q *query) integer(name string) int {
	s := q.str(name)
	if s == "" || q.err != nil {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.err = unical.FieldError(name, "%s must be a whole number.", name)
	}
	if n == 0 && err == nil {
		q.err = unical.FieldError(name, "%s must be at least 1.", name)
	}
	return n
}

func (q *query) metadata(name string) *unical.MetadataFilters {
	s := q.str(name)
	if s == "" || q.err != nil {
		return nil
	}
	f, err := parseMetadataFilters(s)
	if err != nil {
		q.err = err
	}
	return f
}

// parseMetadataFilters parses the metadataFilters query parameter.
func parseMetadataFilters(s string) (*unical.MetadataFilters, error) {
	var f unical.MetadataFilters
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, unical.FieldError("metadataFilters", `metadataFilters must be a JSON object such as {"private":{"key":"value"},"public":{"key":"value"}}.`)
	}
	if dec.More() {
		return nil, unical.FieldError("metadataFilters", "metadataFilters must be one JSON object.")
	}
	return &f, nil
}
