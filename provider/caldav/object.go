package caldav

import (
	"bytes"
	"context"
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// icsSuffix ends the name of every calendar object resource this package
// creates; event ids are resource names without it.
const icsSuffix = ".ics"

// object is one calendar object resource as read from the server.
type object struct {
	// Name is the resource's last path segment, unescaped.
	Name string
	// ETag is the entity tag as sent on the wire, quotes included, so that
	// it goes back into If-Match exactly (Radicale compares the raw
	// header, reference §3.4); an unquoted one is quoted by [normalizeETag].
	ETag string
	Cal  *ical.Calendar
}

// eventIDOf returns the event id of a resource name: the name without
// ".ics". A resource another client named without the suffix keeps its
// whole name; [Provider.getObject] finds it by falling back to the name
// as given.
func eventIDOf(name string) string { return strings.TrimSuffix(name, icsSuffix) }

// checkSegment returns a CodeInvalid error naming field unless id can be
// exactly one path segment under its collection: not empty, "." or "..",
// without a slash, backslash or control character, and none of these once
// percent-decoded, however many times, so that a server (or proxy) that
// decodes the path again cannot be led outside the calendar home either.
func checkSegment(field, id string) error {
	s := id
	for range 4 {
		if s == "" || s == "." || s == ".." || strings.ContainsFunc(s, func(r rune) bool {
			return r == '/' || r == '\\' || r < 0x20 || r == 0x7f
		}) {
			return unical.FieldError(field, "%s %q is not valid: it must be one path segment.", field, id)
		}
		d, err := url.PathUnescape(s)
		if err != nil || d == s {
			return nil
		}
		s = d
	}
	return unical.FieldError(field, "%s %q is not valid: it is percent-encoded too many times.", field, id)
}

// objectURL returns the URL of the resource called name in a calendar
// collection. The name is escaped here: url.URL.JoinPath takes escaped
// segments.
func objectURL(cal *url.URL, name string) *url.URL {
	return cal.JoinPath(url.PathEscape(name))
}

// getObject reads the resource of event id from a calendar: id+".ics",
// and then id itself for resources named without the suffix.
func (c *conn) getObject(ctx context.Context, cal *url.URL, id string) (*object, error) {
	if err := checkSegment("eventId", id); err != nil {
		return nil, err
	}
	o, err := c.getResource(ctx, cal, id+icsSuffix)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		if o2, err2 := c.getResource(ctx, cal, id); err2 == nil {
			return o2, nil
		}
	}
	return o, err
}

func (c *conn) getResource(ctx context.Context, cal *url.URL, name string) (*object, error) {
	// No Accept header: Xandikos answers 406 to "Accept: text/calendar"
	// for a resource whose name lacks .ics, whatever it holds.
	r, err := c.do(ctx, http.MethodGet, objectURL(cal, name), nil, "")
	if err != nil {
		return nil, err
	}
	if r.StatusCode == http.StatusNotFound || r.StatusCode == http.StatusGone {
		return nil, unical.Errorf(unical.CodeNotFound, "Event %q not found.", eventIDOf(name))
	}
	if err := c.classify(r, "get event"); err != nil {
		return nil, err
	}
	parsed, err := icalmap.Decode(bytes.NewReader(r.Body))
	if err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent an event that is not valid iCalendar.")
	}
	if !hasEvents(parsed) {
		// A collection may also hold to-dos and journal entries (RFC 4791
		// §5.2.3; Radicale, Xandikos and Cyrus store them): such a resource
		// is no event, and no write of ours may touch it.
		return nil, unical.Errorf(unical.CodeNotFound, "Event %q not found.", eventIDOf(name))
	}
	return &object{Name: name, ETag: normalizeETag(r.Header.Get("ETag")), Cal: parsed}, nil
}

// putObject writes cal as the resource name. With etag "" it creates
// (If-None-Match: *, RFC 4791 §5.3.2 and RFC 7232 §3.2), otherwise it
// replaces only the version etag names (If-Match), so a change made
// meanwhile by someone else is never overwritten: the server answers 412,
// which is CodePrecondition. A weak etag cannot go into If-Match (see
// [conn.ifMatch]). It returns the new ETag, "" when the server sends none
// (RFC 4791 §5.3.4 lets a server that rewrites the data omit it).
func (c *conn) putObject(ctx context.Context, cal *url.URL, name string, data []byte, etag string) (string, error) {
	h := http.Header{"Content-Type": {ical.MIMEType + "; charset=utf-8"}}
	if etag == "" {
		h.Set("If-None-Match", "*")
	} else {
		cond, err := c.ifMatch(ctx, cal, name, etag)
		if err != nil {
			return "", err
		}
		if cond != "" {
			h.Set("If-Match", cond)
		}
	}
	r, err := c.do(ctx, http.MethodPut, objectURL(cal, name), h, string(data))
	if err != nil {
		return "", err
	}
	switch {
	case etag == "" && r.StatusCode == http.StatusPreconditionFailed:
		return "", unical.Errorf(unical.CodeConflict, "An event with this id already exists.")
	case r.StatusCode == http.StatusConflict && bytes.Contains(r.Body, []byte("no-uid-conflict")):
		return "", unical.Errorf(unical.CodeConflict, "The calendar already holds an event with this iCalendar UID.")
	case r.StatusCode == http.StatusForbidden || r.StatusCode == http.StatusConflict || r.StatusCode == http.StatusUnsupportedMediaType:
		// RFC 4791 §5.3.2.1 preconditions (valid-calendar-data,
		// max-resource-size, ...): the server refused the content.
		return "", unical.WrapError(unical.CodeInvalid, c.classify(r, "put event"), "The CalDAV server refused the event: %s", preconditionName(r.Body))
	}
	if err := c.classify(r, "put event"); err != nil {
		return "", err
	}
	return normalizeETag(r.Header.Get("ETag")), nil
}

// deleteObject deletes a resource; etag "" deletes unconditionally.
func (c *conn) deleteObject(ctx context.Context, cal *url.URL, name, etag string) error {
	h := http.Header{}
	if etag != "" {
		cond, err := c.ifMatch(ctx, cal, name, etag)
		if err != nil {
			return err
		}
		if cond != "" {
			h.Set("If-Match", cond)
		}
	}
	r, err := c.do(ctx, http.MethodDelete, objectURL(cal, name), h, "")
	if err != nil {
		return err
	}
	if r.StatusCode == http.StatusNotFound || r.StatusCode == http.StatusGone {
		return unical.Errorf(unical.CodeNotFound, "Event %q not found.", eventIDOf(name))
	}
	// Radicale answers 200 with a multistatus body; any 2xx is success.
	return c.classify(r, "delete event")
}

// ifMatch returns the If-Match value for a write conditional on etag, ""
// for none.
//
// A strong etag is sent as it is. A weak one (W/"...") can never match:
// RFC 7232 §3.1 has the server compare If-Match strongly, and §2.3.2 says
// a weak tag fails the strong comparison, so every write would be a 412.
// For a weak etag the condition is checked here instead: the resource is
// read again and its ETag compared with the weak comparison (§2.3.2); a
// mismatch, or a resource gone, is CodePrecondition, as the 412 would have
// been. The write then goes without If-Match: "If-Match: *" (§3.1) would
// keep a resource deleted meanwhile from coming back, but Radicale 3.1.8
// compares the header's raw text with its ETag and refuses "*" (davtest).
//
// That leaves a race a strong ETag does not have: a change or deletion
// another client makes between this read and the write is overwritten.
// HTTP offers no narrower condition for a server that only issues weak
// ETags (If-Unmodified-Since has one-second granularity and servers
// rarely send Last-Modified for calendar objects), and refusing every
// write there would make the calendar read-only; the window is one round
// trip.
func (c *conn) ifMatch(ctx context.Context, cal *url.URL, name, etag string) (string, error) {
	if !isWeak(etag) {
		return etag, nil
	}
	r, err := c.do(ctx, http.MethodGet, objectURL(cal, name), nil, "")
	if err != nil {
		return "", err
	}
	changed := unical.Errorf(unical.CodePrecondition, "The resource changed at the CalDAV server since it was read.")
	if r.StatusCode == http.StatusNotFound || r.StatusCode == http.StatusGone {
		return "", changed
	}
	if err := c.classify(r, "check event version"); err != nil {
		return "", err
	}
	if !weakMatch(etag, normalizeETag(r.Header.Get("ETag"))) {
		return "", changed
	}
	return "", nil
}

// normalizeETag returns an entity tag in the form of RFC 7232 §2.3,
// [W/]"opaque". Some servers send the opaque part without its quotes; as
// If-Match takes only quoted tags (§3.1), such a tag is quoted here, once,
// where it is read, so that the same version has the same ETag whether it
// came from a GET, a PUT or a multistatus getetag. "" stays "".
func normalizeETag(tag string) string {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		return ""
	}
	weak := ""
	if strings.HasPrefix(tag, "W/") {
		weak, tag = "W/", tag[2:]
	}
	if len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' {
		return weak + tag
	}
	return weak + `"` + strings.Trim(tag, `"`) + `"`
}

// isWeak reports whether a normalised entity tag is weak (RFC 7232 §2.1).
func isWeak(tag string) bool { return strings.HasPrefix(tag, "W/") }

// weakMatch is the weak comparison of RFC 7232 §2.3.2: two normalised
// entity tags match when their opaque parts are equal, whether or not
// either is marked weak.
func weakMatch(a, b string) bool {
	a, b = strings.TrimPrefix(a, "W/"), strings.TrimPrefix(b, "W/")
	return a != "" && a == b
}

// preconditionName returns the name of the first element inside a DAV
// error body (RFC 4918 §16), such as "valid-calendar-data", or "".
func preconditionName(body []byte) string {
	var e element
	if err := xml.Unmarshal(body, &e); err != nil || e.XMLName.Local != "error" || len(e.Children) == 0 { //nolint:musttag // element.XMLName is untagged on purpose: it takes any element's name
		return "no reason given"
	}
	return e.Children[0].XMLName.Local
}

// encode writes cal as iCalendar text.
func encode(cal *ical.Calendar) ([]byte, error) {
	var b bytes.Buffer
	if err := ical.NewEncoder(&b).Encode(cal); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
