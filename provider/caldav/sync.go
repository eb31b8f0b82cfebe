package caldav

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// ListEvents lists a calendar's events unexpanded: series masters with
// their recurrence, and overridden or cancelled instances with
// RecurringEventID and OriginalStart; the Client expands them
// ([unical.ExpandEvents]).
//
// A listing without a window comes in pages of q.PageSize resources (all
// in one batch when it is zero), in resource-name order, and costs the
// page, not the calendar: the members and their ETags come from the
// calendar's listing in the Provider's cache, brought up to date with one
// RFC 6578 sync-collection REPORT from its token (a first sync-collection
// when there is none), and only the page's members that the cache does not
// hold at their present ETag are read, with one calendar-multiget (RFC
// 4791 §7.9). So a change made at the server is seen by the next request,
// and a page read again reads no calendar data. A server without
// sync-collection is listed with a Depth 1 PROPFIND of ETags at every
// request, in one batch. The NextSyncCursor of the last page is the token
// of the first page's listing, so that a change made while the pages are
// read is seen again rather than missed.
//
// A window becomes a CALDAV:calendar-query time-range (RFC 4791 §7.8,
// §9.9) asking for ETags only, the data read as for a page. Xandikos tests
// a time-range against a series' first instance only (davtest records
// it), so every series (a prop-filter on RRULE) is listed too; the Client
// drops what falls outside the window after expanding. SeriesID reads
// that one resource. A SyncCursor returns what changed since it (see the
// sync cursors below); with WantSync, the cursor of a windowed or series
// listing is taken before the listing is read.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	c := p.conn(s)
	_, calURL, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return nil, err
	}
	held := p.cache.view(s, calURL)
	if q.SyncCursor != "" {
		return c.syncEvents(ctx, calURL, q.SyncCursor, s.Email, held)
	}
	if q.SeriesID == "" && q.TimeMin.IsZero() && q.TimeMax.IsZero() {
		return c.listPage(ctx, calURL, q, s.Email, held)
	}
	batch := &unical.EventBatch{Events: []*unical.Event{}}
	if q.WantSync {
		if batch.NextSyncCursor, err = c.currentCursor(ctx, calURL); err != nil {
			return nil, err
		}
	}
	var objs []*object
	if q.SeriesID != "" {
		obj, err := c.getObject(ctx, calURL, q.SeriesID)
		if err != nil {
			return nil, err
		}
		objs = []*object{obj}
	} else {
		inRange, err := c.queryETags(ctx, calURL, timeRangeFilter(q.TimeMin, q.TimeMax))
		if err != nil {
			return nil, err
		}
		series, err := c.queryETags(ctx, calURL, `<C:comp-filter name="VEVENT"><C:prop-filter name="RRULE"/></C:comp-filter>`)
		if unical.ErrorCode(err) == unical.CodeUpstream {
			// A server that cannot filter on a property (RFC 4791 §9.7.2
			// is not optional, but support varies) lists every event.
			series, err = c.queryETags(ctx, calURL, `<C:comp-filter name="VEVENT"/>`)
		}
		if err != nil {
			return nil, err
		}
		onlySeries := map[string]bool{}
		for name, etag := range series {
			if _, ok := inRange[name]; !ok {
				onlySeries[name] = true
			}
			inRange[name] = etag
		}
		names := make([]string, 0, len(inRange))
		for name := range inRange {
			names = append(names, name)
		}
		sort.Strings(names)
		if objs, _, err = c.fetch(ctx, calURL, names, inRange, held); err != nil {
			return nil, err
		}
		// DAViCal ignores the RRULE prop-filter and answers every event,
		// so what only the series query found is kept only if it recurs.
		objs = slices.DeleteFunc(objs, func(o *object) bool { return onlySeries[o.Name] && !recurs(o.Cal) })
	}
	batch.Events = c.eventsOf(ctx, calURL, objs, s.Email)
	return batch, nil
}

// pageCursor is where the next page of a listing starts: after the
// member Last, in a listing that began at the sync token Token.
type pageCursor struct {
	Token string `json:"t"`
	Last  string `json:"a"`
}

// listPage answers a listing without a window: one page of members (see
// ListEvents).
func (c *conn) listPage(ctx context.Context, calURL *url.URL, q *unical.EventQuery, self string, held cacheView) (*unical.EventBatch, error) {
	var from pageCursor
	if q.PageCursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.PageCursor)
		if err != nil || json.Unmarshal(raw, &from) != nil || from.Token == "" {
			return nil, unical.Errorf(unical.CodeInvalid, "The page cursor is not one this listing issued.")
		}
	}
	l, snap, err := c.members(ctx, calURL, held)
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{Events: []*unical.Event{}}
	names := l.names
	if q.PageCursor != "" {
		names = l.after(from.Last)
	}
	switch {
	case l.token == "":
		// No sync-collection: no token for pages to carry, so the rest of
		// the calendar comes in one batch, with an ETag snapshot as its
		// cursor.
		if q.WantSync {
			if batch.NextSyncCursor, err = encodeSnapshot(snap); err != nil {
				return nil, err
			}
		}
	case q.PageSize > 0 && len(names) > q.PageSize:
		names = names[:q.PageSize]
		if from.Token == "" {
			from.Token = l.token
		}
		next, err := json.Marshal(pageCursor{Token: from.Token, Last: names[len(names)-1]})
		if err != nil {
			return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		batch.NextPageCursor = base64.RawURLEncoding.EncodeToString(next)
	case q.WantSync && from.Token != "":
		batch.NextSyncCursor = cursorSync + from.Token
	case q.WantSync:
		batch.NextSyncCursor = cursorSync + l.token
	}
	objs, _, err := c.fetch(ctx, calURL, names, l.etags, held)
	if err != nil {
		return nil, err
	}
	batch.Events = c.eventsOf(ctx, calURL, objs, self)
	return batch, nil
}

// eventsOf returns the events of objs, in their order. One object another
// client wrote badly (or a VTODO, which Xandikos lists too) must not make
// the whole calendar unlistable; it is left out.
func (c *conn) eventsOf(ctx context.Context, calURL *url.URL, objs []*object, self string) []*unical.Event {
	events := []*unical.Event{}
	for _, o := range objs {
		evs, err := objectEvents(o, self, c.floatingZone(ctx, calURL, o))
		if err != nil {
			continue
		}
		events = append(events, evs...)
	}
	return events
}

// members returns every member of the calendar with its ETag: the cached
// listing brought up to date with a sync-collection REPORT from its token,
// or a first sync-collection's, which the cache keeps. A server that
// refuses sync-collection is listed with a Depth 1 PROPFIND: a listing
// without token, with the snapshot of ETags as the server sent them (the
// ETag cursor's form).
func (c *conn) members(ctx context.Context, calURL *url.URL, held cacheView) (l *listing, snap map[string]string, err error) {
	if old := held.listing(); old != nil {
		changed, gone, next, err := c.syncCollection(ctx, calURL, old.token)
		switch {
		case err == nil:
			if len(changed) == 0 && len(gone) == 0 {
				if next != old.token {
					l = &listing{token: next, etags: old.etags, names: old.names}
					held.setListing(old, l)
					return l, nil, nil
				}
				return old, nil, nil
			}
			etags := maps.Clone(old.etags)
			maps.Copy(etags, changed)
			for _, name := range gone {
				delete(etags, name)
			}
			l = newListing(next, etags)
			held.setListing(old, l)
			return l, nil, nil
		case unical.ErrorCode(err) == unical.CodeGone:
			held.forget()
		default:
			return nil, nil, err
		}
	}
	changed, _, next, err := c.syncCollection(ctx, calURL, "")
	switch code := unical.ErrorCode(err); {
	case err == nil:
		l = newListing(next, changed)
		held.setListing(nil, l)
		return l, nil, nil
	case code != unical.CodeUpstream && code != unical.CodeInvalid && code != unical.CodeNotFound && code != unical.CodeGone:
		// Not a refusal of the report: the server is unreachable, or the
		// account's password no longer works.
		return nil, nil, err
	}
	if snap, err = c.snapshot(ctx, calURL); err != nil {
		return nil, nil, err
	}
	etags := make(map[string]string, len(snap))
	for name, etag := range snap {
		etags[name] = normalizeETag(etag)
	}
	return newListing("", etags), snap, nil
}

// maxMultiget bounds the members one calendar-multiget asks for.
const maxMultiget = 1000

// fetch returns the objects of the named members, in that order: from the
// cache where it holds a member at the ETag that etags gives, and the rest
// with calendar-multiget REPORTs, whose answers it keeps. A member gone
// meanwhile is returned as gone, one whose data is not iCalendar is left
// out.
func (c *conn) fetch(ctx context.Context, calURL *url.URL, names []string, etags map[string]string, held cacheView) (objs []*object, gone []string, err error) {
	found := make(map[string]*object, len(names))
	var missing []string
	for _, name := range names {
		if data, ok := held.object(name, etags[name]); ok {
			if cal, err := icalmap.Decode(strings.NewReader(data)); err == nil {
				found[name] = &object{Name: name, ETag: etags[name], Cal: cal}
				continue
			}
		}
		missing = append(missing, name)
	}
	for len(missing) > 0 {
		chunk := missing[:min(len(missing), maxMultiget)]
		missing = missing[len(chunk):]
		members, vanished, err := c.multiget(ctx, calURL, chunk)
		if err != nil {
			return nil, nil, err
		}
		held.dropObjects(vanished)
		gone = append(gone, vanished...)
		for _, m := range members {
			o, err := m.object()
			if err != nil {
				continue
			}
			held.putObject(m.name, m.etag, m.data)
			found[m.name] = o
		}
	}
	objs = make([]*object, 0, len(found))
	for _, name := range names {
		if o, ok := found[name]; ok {
			objs = append(objs, o)
		}
	}
	return objs, gone, nil
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

// queryETags sends a calendar-query REPORT (RFC 4791 §7.8) with the given
// VEVENT filter inside the VCALENDAR comp-filter, asking for ETags only,
// and returns the matching members with their ETags.
func (c *conn) queryETags(ctx context.Context, calURL *url.URL, eventFilter string) (map[string]string, error) {
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<D:prop><D:getetag/></D:prop>` +
		`<C:filter><C:comp-filter name="VCALENDAR">` + eventFilter + `</C:comp-filter></C:filter>` +
		`</C:calendar-query>`
	r, ms, err := c.report(ctx, calURL, "1", body, "list events")
	if err != nil {
		return nil, err
	}
	etags := map[string]string{}
	for i := range ms.Responses {
		resp := &ms.Responses[i]
		name, ok := memberName(r.URL, calURL, resp.Href)
		if !ok {
			continue
		}
		if f := strings.Fields(resp.Status); len(f) >= 2 && (f[1] == "404" || f[1] == "410") {
			continue
		}
		etags[name] = ""
		if e, ok := resp.prop(nsDAV, "getetag"); ok {
			etags[name] = normalizeETag(e.Text)
		}
	}
	return etags, nil
}

// multiget reads the named resources with one calendar-multiget REPORT
// (RFC 4791 §7.9). Members gone meanwhile come back as 404 responses and
// are returned as deleted names.
func (c *conn) multiget(ctx context.Context, calURL *url.URL, names []string) (found []member, gone []string, err error) {
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
	found, gone = membersOf(r, ms, calURL)
	return found, gone, nil
}

// member is a calendar member's data as a multistatus carried it.
type member struct {
	name, etag, data string
}

// object parses the member's data.
func (m *member) object() (*object, error) {
	cal, err := icalmap.Decode(strings.NewReader(m.data))
	if err != nil {
		return nil, err
	}
	return &object{Name: m.name, ETag: m.etag, Cal: cal}, nil
}

// membersOf reads the members of calURL in a multistatus: those with
// calendar data as found, those answered 404 as gone names. The
// collection itself and anything outside it are skipped.
func membersOf(r *response, ms *multistatus, calURL *url.URL) (found []member, gone []string) {
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
		m := member{name: name, data: data.Text}
		if e, ok := resp.prop(nsDAV, "getetag"); ok {
			m.etag = normalizeETag(e.Text)
		}
		found = append(found, m)
	}
	return found, gone
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
// The changed members are read with calendar-multiget unless the cache
// holds them at their new ETag; what it holds of the others is dropped.
func (c *conn) syncEvents(ctx context.Context, calURL *url.URL, cursor, self string, held cacheView) (*unical.EventBatch, error) {
	var changed map[string]string
	var gone []string
	var next string
	switch {
	case strings.HasPrefix(cursor, cursorSync):
		var err error
		changed, gone, next, err = c.syncCollection(ctx, calURL, strings.TrimPrefix(cursor, cursorSync))
		if err != nil {
			return nil, err
		}
		next = cursorSync + next
	case strings.HasPrefix(cursor, cursorETag):
		old, err := decodeSnapshot(strings.TrimPrefix(cursor, cursorETag))
		if err != nil {
			return nil, unical.WrapError(unical.CodeGone, err, "The sync token is no longer valid; list the calendar again.")
		}
		now, err := c.snapshot(ctx, calURL)
		if err != nil {
			return nil, err
		}
		changed = map[string]string{}
		for name, etag := range now {
			if old[name] != etag {
				changed[name] = normalizeETag(etag)
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
	held.dropObjects(gone)
	names := make([]string, 0, len(changed))
	for name := range changed {
		names = append(names, name)
	}
	sort.Strings(names)
	objs, vanished, err := c.fetch(ctx, calURL, names, changed, held)
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{Events: c.eventsOf(ctx, calURL, objs, self), NextSyncCursor: next}
	gone = append(gone, vanished...)
	sort.Strings(gone)
	for _, name := range gone {
		batch.Events = append(batch.Events, &unical.Event{ID: eventIDOf(name), IsCancelled: true})
	}
	return batch, nil
}

// syncCollection sends RFC 6578 sync-collection REPORTs from token on
// (from the collection's beginning when token is empty) and returns the
// changed members with their ETags ("" when the server sent none), the
// deleted ones, and the new token. A token the server refuses is
// CodeGone: RFC 6578 §3.2 says it names the DAV:valid-sync-token
// precondition, with 403 (Radicale, sabre/dav) or 412 (reference §3.5);
// Xandikos 0.2.8 answers 500 instead (davtest), so a 5xx to a request
// with a token is taken as a refusal too, at the cost of a full resync
// after a real server error.
func (c *conn) syncCollection(ctx context.Context, calURL *url.URL, token string) (changed map[string]string, gone []string, next string, err error) {
	// Each member's last state: an ETag, or deleted. A later round of a
	// truncated answer is newer.
	state := map[string]*string{}
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
		if err := xml.Unmarshal(r.Body, &ms); err != nil { //nolint:musttag // element.XMLName is untagged on purpose: it takes any element's name
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
			if f := strings.Fields(resp.Status); len(f) >= 2 && (f[1] == "404" || f[1] == "410") {
				state[name] = nil
				continue
			}
			etag := ""
			if e, ok := resp.prop(nsDAV, "getetag"); ok {
				etag = normalizeETag(e.Text)
			}
			state[name] = &etag
		}
		next = strings.TrimSpace(ms.SyncToken)
		if next == "" {
			return nil, nil, "", unical.Errorf(unical.CodeUpstream, "The CalDAV server's sync-collection answer has no sync token.")
		}
		if !truncated || next == token {
			changed = map[string]string{}
			for name, etag := range state {
				if etag == nil {
					gone = append(gone, name)
				} else {
					changed[name] = *etag
				}
			}
			sort.Strings(gone)
			return changed, gone, next, nil
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

// recurs reports whether cal holds a series: a VEVENT with an RRULE or
// RDATE, or an overridden instance of one.
func recurs(cal *ical.Calendar) bool {
	for _, ev := range cal.Events() {
		for _, name := range []string{ical.PropRecurrenceRule, ical.PropRecurrenceDates, ical.PropRecurrenceID} {
			if ev.Props.Get(name) != nil {
				return true
			}
		}
	}
	return false
}
