package httpwire

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/unical/unical"
)

// CheckQuery refuses a query parameter of r that is not in allowed, and
// one given twice (only the first would be read), with a 400 naming it.
func CheckQuery(r *http.Request, allowed []string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	values, err := ParseQuery(r.URL.RawQuery)
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

// ParseQuery decodes a query string. r.URL.Query drops the pairs it
// cannot decode, which turns a bad filter into no filter; here bad
// percent-encoding, a semicolon separator and bytes that are not UTF-8
// once decoded are a 400 naming the parameter ("query" when the name
// itself cannot be read).
func ParseQuery(raw string) (url.Values, error) {
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
