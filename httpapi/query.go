package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
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

// withBoolOption returns ctx with set(ctx, value) applied when the
// boolean parameter name is present, for the per-call options the Go API
// carries in the context (notifyAttendees, revokeGrant).
func (q *query) withBoolOption(ctx context.Context, name string, set func(context.Context, bool) context.Context) context.Context {
	if q.str(name) == "" {
		return ctx
	}
	if b := q.boolean(name); q.err == nil {
		return set(ctx, b)
	}
	return ctx
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
	f, err := unical.ParseMetadataFilters(s)
	if err != nil {
		q.err = err
	}
	return f
}
