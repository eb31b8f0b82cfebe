package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/unical/unical"
)

// query reads and checks query parameters, keeping the first error.
type query struct {
	r   *http.Request
	err error
	// values is the parsed query, parsed once: URL.Query parses anew on
	// every call.
	values url.Values
}

func (q *query) str(name string) string {
	if q.values == nil {
		q.values = q.r.URL.Query()
	}
	return q.values.Get(name)
}

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
