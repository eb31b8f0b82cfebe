package caldav

import (
	"bytes"
	"context"
	"encoding/xml"
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
// changed since it (see sync.go); with WantSync, the cursor of the
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

// report sends a REPORT and parses its 207 answer. depth "" sends no Depth
// header.
func (c *conn) report(ctx context.Context, target *url.URL, depth, body, what string) (*response, *multistatus, error) {
	h := http.Header{"Content-Type": {"application/xml; charset=utf-8"}}
	if depth != "" {
		h.Set("Depth", depth)
	}
	r, err := c.do(ctx, "REPORT", target, h, body)
	if err != nil {
		return nil, nil, err
	}
	if err := c.classify(r, what); err != nil {
		return r, nil, err
	}
	if r.StatusCode != http.StatusMultiStatus {
		return r, nil, unical.Errorf(unical.CodeUpstream, "The CalDAV server answered %s with status %d instead of 207.", what, r.StatusCode)
	}
	var ms multistatus
	if err := xml.NewDecoder(bytes.NewReader(r.Body)).Decode(&ms); err != nil {
		return r, nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server sent a malformed answer.")
	}
	return r, &ms, nil
}
