package caldav

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/icalmap"
)

// ListEvents lists a calendar's events unexpanded: series masters with
// their recurrence, and overridden or cancelled instances with
// RecurringEventID and OriginalStart; the Client expands them
// ([unical.ExpandEvents]). Everything comes in one batch.
//
// A window becomes a CALDAV:calendar-query time-range (RFC 4791 §7.8,
// §9.9). Xandikos tests a time-range against a series' first instance
// only (davtest records it), so every series (a prop-filter on RRULE) is
// fetched too; the Client drops what falls outside the window after
// expanding. SeriesID reads that one resource. A SyncCursor returns what
// changed since it (see the sync cursors below); with WantSync, the cursor of the
// listing is taken before the listing is read, so that a change made
// while it is read is seen again rather than missed.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	c := p.conn(s)
	calURL, err := calendarURL(s, calendarID)
	if err != nil {
		return nil, err
	}
	if q.SyncCursor != "" {
		return c.syncEvents(ctx, calURL, q.SyncCursor, s.Email)
	}
	batch := &unical.EventBatch{Events: []*unical.Event{}}
	if q.WantSync {
		if batch.NextSyncCursor, err = c.currentCursor(ctx, calURL); err != nil {
			return nil, err
		}
	}
	var objs []*object
	switch {
	case q.SeriesID != "":
		obj, err := c.getObject(ctx, calURL, q.SeriesID)
		if err != nil {
			return nil, err
		}
		objs = []*object{obj}
	case !q.TimeMin.IsZero() || !q.TimeMax.IsZero():
		inRange, err := c.query(ctx, calURL, timeRangeFilter(q.TimeMin, q.TimeMax))
		if err != nil {
			return nil, err
		}
		series, err := c.query(ctx, calURL, `<C:comp-filter name="VEVENT"><C:prop-filter name="RRULE"/></C:comp-filter>`)
		if unical.ErrorCode(err) == unical.CodeUpstream {
			// A server that cannot filter on a property (RFC 4791 §9.7.2
			// is not optional, but support varies) lists every event.
			series, err = c.query(ctx, calURL, `<C:comp-filter name="VEVENT"/>`)
		}
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, o := range append(inRange, series...) {
			if !seen[o.Name] {
				seen[o.Name] = true
				objs = append(objs, o)
			}
		}
	default:
		if objs, err = c.query(ctx, calURL, `<C:comp-filter name="VEVENT"/>`); err != nil {
			return nil, err
		}
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Name < objs[j].Name })
	for _, o := range objs {
		events, err := objectEvents(o, s.Email, c.floatingZone(ctx, calURL, o))
		if err != nil {
			// One object another client wrote badly must not make the
			// whole calendar unlistable; it is left out.
			continue
		}
		batch.Events = append(batch.Events, events...)
	}
	return batch, nil
}

// timeRangeFilter is a VEVENT comp-filter with a time-range of the given
// bounds; either may be zero (RFC 4791 §9.9 allows an open end).
func timeRangeFilter(from, to time.Time) string {
	var b strings.Builder
	b.WriteString(`<C:comp-filter name="VEVENT"><C:time-range`)
	if !from.IsZero() {
		b.WriteString(` start="` + from.UTC().Format("20060102T150405Z") + `"`)
	}
	if !to.IsZero() {
		b.WriteString(` end="` + to.UTC().Format("20060102T150405Z") + `"`)
	}
	b.WriteString(`/></C:comp-filter>`)
	return b.String()
}

// query sends a calendar-query REPORT (RFC 4791 §7.8) with the given
// VEVENT filter inside the VCALENDAR comp-filter and returns the objects
// with their data.
func (c *conn) query(ctx context.Context, calURL *url.URL, eventFilter string) ([]*object, error) {
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<D:prop><D:getetag/><C:calendar-data/></D:prop>` +
		`<C:filter><C:comp-filter name="VCALENDAR">` + eventFilter + `</C:comp-filter></C:filter>` +
		`</C:calendar-query>`
	r, ms, err := c.report(ctx, calURL, "1", body, "list events")
	if err != nil {
		return nil, err
	}
	objs, _ := objectsOf(r, ms, calURL)
	return objs, nil
}

// multiget reads the named resources with one calendar-multiget REPORT
// (RFC 4791 §7.9). Members gone meanwhile come back as 404 responses and
// are returned as deleted names.
func (c *conn) multiget(ctx context.Context, calURL *url.URL, names []string) (objs []*object, gone []string, err error) {
	if len(names) == 0 {
		return nil, nil, nil
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` +
		`<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<D:prop><D:getetag/><C:calendar-data/></D:prop>`)
	for _, n := range names {
		b.WriteString("<D:href>")
		_ = xml.EscapeText(&b, []byte(objectURL(calURL, n).EscapedPath()))
		b.WriteString("</D:href>")
	}
	b.WriteString(`</C:calendar-multiget>`)
	// RFC 4791 §7.9: the Depth header is ignored and should not be sent.
	r, ms, err := c.report(ctx, calURL, "", b.String(), "read events")
	if err != nil {
		return nil, nil, err
	}
	objs, gone = objectsOf(r, ms, calURL)
	return objs, gone, nil
}

// objectsOf reads the members of calURL in a multistatus: those with
// calendar data as objects, those answered 404 as gone names. The
// collection itself and anything outside it are skipped.
func objectsOf(r *response, ms *multistatus, calURL *url.URL) (objs []*object, gone []string) {
	for i := range ms.Responses {
		resp := &ms.Responses[i]
		name, ok := memberName(r.URL, calURL, resp.Href)
		if !ok {
			continue
		}
		if f := strings.Fields(resp.Status); len(f) >= 2 && (f[1] == "404" || f[1] == "410") {
			gone = append(gone, name)
			continue
		}
		data, ok := resp.prop(nsCalDAV, "calendar-data")
		if !ok {
			continue
		}
		cal, err := icalmap.Decode(strings.NewReader(data.Text))
		if err != nil {
			continue
		}
		o := &object{Name: name, Cal: cal}
		if e, ok := resp.prop(nsDAV, "getetag"); ok {
			o.ETag = normalizeETag(e.Text)
		}
		objs = append(objs, o)
	}
	return objs, gone
}

// memberName returns the resource name of href if it is a direct member of
// calURL.
func memberName(base, calURL *url.URL, href string) (string, bool) {
	u, err := base.Parse(href)
	if err != nil {
		return "", false
	}
	if u.Host != "" && !strings.EqualFold(u.Host, calURL.Host) {
		return "", false
	}
	dir := strings.TrimSuffix(calURL.Path, "/") + "/"
	if !strings.HasPrefix(u.Path, dir) {
		return "", false
	}
	name := u.Path[len(dir):]
	if name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// Sync cursors are opaque to the Client. Two kinds exist:
//
//	sync:<token>    an RFC 6578 sync token of the collection
//	etag:<data>     base64url(gzip(JSON {name: etag})), a snapshot of every
//	                member's ETag, for servers without sync-collection
//	                (reference §3.5 recommends the ETag diff as fallback)
//
// Either way an incremental sync costs two requests however large the
// calendar is: one to learn what changed (sync-collection REPORT, or a
// Depth 1 PROPFIND of getetag) and one calendar-multiget for the changed
// members' data, none when nothing changed.
const (
	cursorSync = "sync:"
	cursorETag = "etag:"
)

// maxSyncRounds bounds the sync-collection requests of one sync when the
// server truncates its answer (RFC 6578 §3.6, status 507 on the
// collection).
const maxSyncRounds = 20

const propfindSyncToken = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:"><D:prop><D:sync-token/></D:prop></D:propfind>`

const propfindETags = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>`

// currentCursor returns a cursor for the collection's present state: its
// DAV:sync-token (RFC 6578 §4) when it has one, else an ETag snapshot.
func (c *conn) currentCursor(ctx context.Context, calURL *url.URL) (string, error) {
	_, ms, err := c.propfind(ctx, calURL, "0", propfindSyncToken, "read sync token")
	if err != nil {
		return "", err
	}
	for i := range ms.Responses {
		if e, ok := ms.Responses[i].prop(nsDAV, "sync-token"); ok && strings.TrimSpace(e.Text) != "" {
			return cursorSync + strings.TrimSpace(e.Text), nil
		}
	}
	snap, err := c.snapshot(ctx, calURL)
	if err != nil {
		return "", err
	}
	return encodeSnapshot(snap)
}

// syncEvents returns what changed since cursor: changed members' events,
// and each deleted member as an event with only its id and isCancelled.
func (c *conn) syncEvents(ctx context.Context, calURL *url.URL, cursor, self string) (*unical.EventBatch, error) {
	var changed, gone []string
	var next string
	switch {
	case strings.HasPrefix(cursor, cursorSync):
		var err error
		changed, gone, next, err = c.syncCollection(ctx, calURL, strings.TrimPrefix(cursor, cursorSync))
		if err != nil {
			return nil, err
		}
	case strings.HasPrefix(cursor, cursorETag):
		old, err := decodeSnapshot(strings.TrimPrefix(cursor, cursorETag))
		if err != nil {
			return nil, unical.WrapError(unical.CodeGone, err, "The sync token is no longer valid; list the calendar again.")
		}
		now, err := c.snapshot(ctx, calURL)
		if err != nil {
			return nil, err
		}
		for name, etag := range now {
			if old[name] != etag {
				changed = append(changed, name)
			}
		}
		for name := range old {
			if _, ok := now[name]; !ok {
				gone = append(gone, name)
			}
		}
		if next, err = encodeSnapshot(now); err != nil {
			return nil, err
		}
	default:
		return nil, unical.Errorf(unical.CodeGone, "The sync token is no longer valid; list the calendar again.")
	}
	sort.Strings(changed)
	objs, vanished, err := c.multiget(ctx, calURL, changed)
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{Events: []*unical.Event{}, NextSyncCursor: next}
	for _, o := range objs {
		events, err := objectEvents(o, self, c.floatingZone(ctx, calURL, o))
		if err != nil {
			continue // not an event (a VTODO on Xandikos) or unreadable
		}
		batch.Events = append(batch.Events, events...)
	}
	gone = append(gone, vanished...)
	sort.Strings(gone)
	for _, name := range gone {
		batch.Events = append(batch.Events, &unical.Event{ID: eventIDOf(name), IsCancelled: true})
	}
	return batch, nil
}

// syncCollection sends RFC 6578 sync-collection REPORTs from token on and
// returns the changed and deleted member names and the new token. A token
// the server refuses is CodeGone: RFC 6578 §3.2 says it names the
// DAV:valid-sync-token precondition, with 403 (Radicale, sabre/dav) or 412
// (reference §3.5); Xandikos 0.2.8 answers 500 instead (davtest), so a
// 5xx to a request with a token is taken as a refusal too, at the cost of
// a full resync after a real server error.
func (c *conn) syncCollection(ctx context.Context, calURL *url.URL, token string) (changed, gone []string, next string, err error) {
	seen := map[string]bool{}
	for range maxSyncRounds {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:"><D:sync-token>`)
		_ = xml.EscapeText(&b, []byte(token))
		b.WriteString(`</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`)
		// RFC 6578 §3.2: the request's Depth is 0 (sync-level says how deep).
		r, err := c.do(ctx, "REPORT", calURL, http.Header{
			"Content-Type": {"application/xml; charset=utf-8"},
			"Depth":        {"0"},
		}, b.String())
		if err != nil {
			return nil, nil, "", err
		}
		if refusedToken(r, token) {
			return nil, nil, "", unical.WrapError(unical.CodeGone, c.classify(r, "sync"), "The sync token is no longer valid; list the calendar again.")
		}
		if err := c.classify(r, "sync"); err != nil {
			return nil, nil, "", err
		}
		var ms multistatus
		if r.StatusCode != http.StatusMultiStatus {
			return nil, nil, "", unical.Errorf(unical.CodeUpstream, "The CalDAV server answered sync-collection with status %d instead of 207.", r.StatusCode)
		}
		if err := xml.Unmarshal(r.Body, &ms); err != nil {
			return nil, nil, "", unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent a malformed answer.")
		}
		truncated := false
		for i := range ms.Responses {
			resp := &ms.Responses[i]
			name, ok := memberName(r.URL, calURL, resp.Href)
			if !ok {
				// RFC 6578 §3.6: a 507 on the collection itself says the
				// answer was cut short and more follows from the new token.
				if f := strings.Fields(resp.Status); len(f) >= 2 && f[1] == "507" {
					truncated = true
				}
				continue
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			if f := strings.Fields(resp.Status); len(f) >= 2 && (f[1] == "404" || f[1] == "410") {
				gone = append(gone, name)
			} else {
				changed = append(changed, name)
			}
		}
		next = strings.TrimSpace(ms.SyncToken)
		if next == "" {
			return nil, nil, "", unical.Errorf(unical.CodeUpstream, "The CalDAV server's sync-collection answer has no sync token.")
		}
		if !truncated || next == token {
			return changed, gone, cursorSync + next, nil
		}
		token = next
	}
	return nil, nil, "", unical.Errorf(unical.CodeUpstream, "The CalDAV server did not finish a sync in %d rounds.", maxSyncRounds)
}

// refusedToken reports whether r refuses the sync token it was sent.
func refusedToken(r *response, token string) bool {
	switch {
	case r.StatusCode >= 400 && r.StatusCode < 500 && bytes.Contains(r.Body, []byte("valid-sync-token")):
		return true
	case r.StatusCode == http.StatusInternalServerError && token != "":
		return true
	}
	return false
}

// snapshot returns every member's ETag (Depth 1 PROPFIND of getetag).
func (c *conn) snapshot(ctx context.Context, calURL *url.URL) (map[string]string, error) {
	r, ms, err := c.propfind(ctx, calURL, "1", propfindETags, "read ETags")
	if err != nil {
		return nil, err
	}
	snap := map[string]string{}
	for i := range ms.Responses {
		resp := &ms.Responses[i]
		name, ok := memberName(r.URL, calURL, resp.Href)
		if !ok {
			continue
		}
		if e, ok := resp.prop(nsDAV, "getetag"); ok {
			snap[name] = strings.TrimSpace(e.Text)
		}
	}
	return snap, nil
}

func encodeSnapshot(snap map[string]string) (string, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if err := json.NewEncoder(zw).Encode(snap); err != nil {
		return "", unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	if err := zw.Close(); err != nil {
		return "", unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return cursorETag + base64.RawURLEncoding.EncodeToString(b.Bytes()), nil
}

func decodeSnapshot(s string) (map[string]string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var snap map[string]string
	if err := json.NewDecoder(io.LimitReader(zr, 64<<20)).Decode(&snap); err != nil {
		return nil, err
	}
	return snap, nil
}
