package microsoft

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
)

// Cursor prefixes: unical hands cursors back opaquely, so each says which
// kind of Graph link it holds.
const (
	cursorList  = "l:" // @odata.nextLink of a list, calendarView or instances
	cursorDelta = "d:" // @odata.nextLink or @odata.deltaLink of a delta round
)

// syncWindow is the calendar view a sync cursor tracks when the listing
// has no window: Graph's delta works on a calendar view only.
func (p *Provider) syncWindow(q *unical.EventQuery) (time.Time, time.Time) {
	from, to := q.TimeMin, q.TimeMax
	now := p.now().UTC()
	if from.IsZero() {
		from = now.AddDate(-1, 0, 0)
	}
	if to.IsZero() {
		to = now.AddDate(2, 0, 0)
	}
	return from, to
}

// graphTime formats a window bound for Graph's startDateTime/endDateTime.
func graphTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// ListEvents returns one page of events.
//
//   - With a sync cursor (or a delta page cursor) it follows Graph's
//     calendarView delta for the calendar: created and changed instances
//     re-read with their extended property, removals as isCancelled.
//   - With SeriesID it lists the series' instances in the window.
//   - With SingleEvents and a window it reads the calendar view (expanded).
//   - Otherwise it lists singles and series masters (/events) and keeps
//     the singles that overlap the window.
//
// On the last page of a listing it starts a delta round over the same
// window (or SyncWindow when there is none) and returns its deltaLink as
// the sync cursor. Delta returns instances, so later sync rounds come back
// expanded.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	c := p.client(s)
	opts := readOptions{SelfEmail: s.Email, TimeZone: q.TimeZone}
	if strings.HasPrefix(q.PageCursor, cursorDelta) {
		return p.deltaPage(ctx, c, calendarID, q, strings.TrimPrefix(q.PageCursor, cursorDelta), opts)
	}
	if q.SyncCursor != "" && q.PageCursor == "" {
		switch {
		case strings.HasPrefix(q.SyncCursor, cursorDelta):
			return p.deltaPage(ctx, c, calendarID, q, strings.TrimPrefix(q.SyncCursor, cursorDelta), opts)
		case strings.HasPrefix(q.SyncCursor, cursorSnapshot):
			return p.snapshotPage(ctx, c, calendarID, q, opts)
		}
		return nil, unical.Errorf(unical.CodeGone, "The sync token is not one Microsoft Graph issued; sync from scratch.")
	}

	req := request{method: "GET", query: expandQuery()}
	header := map[string]string{}
	if q.PageSize > 0 {
		header["Prefer"] = "odata.maxpagesize=" + strconv.Itoa(min(q.PageSize, 1000))
	}
	req.header = header
	expanded := false
	window := func() {
		req.query.Set("startDateTime", graphTime(q.TimeMin))
		req.query.Set("endDateTime", graphTime(q.TimeMax))
	}
	hasWindow := !q.TimeMin.IsZero() && !q.TimeMax.IsZero()
	switch {
	case q.PageCursor != "":
		if !strings.HasPrefix(q.PageCursor, cursorList) {
			return nil, unical.Errorf(unical.CodeInvalid, "The page token is not one Microsoft Graph issued.")
		}
		req.target, req.query = strings.TrimPrefix(q.PageCursor, cursorList), nil
		expanded = q.SeriesID != "" || (q.SingleEvents && hasWindow)
	case q.SeriesID != "":
		if !hasWindow {
			return nil, unical.Errorf(unical.CodeInvalid, "Listing the occurrences of a series needs a start and an end.")
		}
		req.target = eventPath(calendarID, q.SeriesID) + "/instances"
		window()
		expanded = true
	case q.SingleEvents && hasWindow:
		req.target = calendarPath(calendarID) + "/calendarView"
		window()
		expanded = true
	default:
		req.target = calendarPath(calendarID) + "/events"
	}
	if expanded && req.query != nil {
		// A next page's link carries the ordering already (and no query).
		req.query.Set("$orderby", "start/dateTime")
	}
	filtered := false
	if f := metadataFilter(q.Metadata); f != "" && q.PageCursor == "" && q.SeriesID == "" {
		req.query.Set("$filter", f)
		filtered = true
	}
	var page collection[event]
	err := c.do(ctx, req, &page)
	if filtered && unical.ErrorCode(err) == unical.CodeInvalid {
		// Graph documents this $filter for event collections, but should
		// a mailbox refuse it, list without it: the Client filters anyway.
		req.query.Del("$filter")
		page, err = collection[event]{}, c.do(ctx, req, &page)
	}
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{Expanded: expanded, Ordered: expanded && q.OrderBy == unical.OrderByStartTime}
	for i := range page.Value {
		g := &page.Value[i]
		if !expanded && g.Type != typeSeriesMaster && !overlaps(g, q.TimeMin, q.TimeMax) {
			continue
		}
		e, err := eventFromGraph(g, opts)
		if err != nil {
			return nil, err
		}
		batch.Events = append(batch.Events, e)
	}
	if page.NextLink != "" {
		batch.NextPageCursor = cursorList + page.NextLink
		return batch, nil
	}
	if q.WantSync {
		cursor, err := p.startDelta(ctx, c, calendarID, q)
		if err != nil {
			return nil, err
		}
		batch.NextSyncCursor = cursor
	}
	return batch, nil
}

// overlaps reports whether a single event overlaps [from, to); a zero
// bound is open.
func overlaps(g *event, from, to time.Time) bool {
	if g.Start == nil || g.End == nil {
		return true
	}
	start, err1 := parseGraphDateTime(g.Start)
	end, err2 := parseGraphDateTime(g.End)
	if err1 != nil || err2 != nil {
		return true
	}
	if end.Equal(start) {
		end = end.Add(time.Nanosecond) // a zero-length event still sits at its start
	}
	return (from.IsZero() || end.After(from)) && (to.IsZero() || start.Before(to))
}

// startDelta pages through a fresh delta round of the calendar's view and
// returns its deltaLink as a cursor, so later rounds report what changed
// after this listing. When Graph refuses delta for the calendar it
// returns a snapshot cursor instead (see snapshot.go).
func (p *Provider) startDelta(ctx context.Context, c *client, calendarID string, q *unical.EventQuery) (string, error) {
	from, to := p.syncWindow(q)
	req := request{
		method: "GET", target: calendarPath(calendarID) + "/calendarView/delta",
		query:  url.Values{"startDateTime": {graphTime(from)}, "endDateTime": {graphTime(to)}},
		header: map[string]string{"Prefer": "odata.maxpagesize=1000"},
	}
	for first := true; ; first = false {
		var page collection[event]
		if err := c.do(ctx, req, &page); err != nil {
			if first && noDelta(err) {
				return p.startSnapshot(ctx, c, calendarID, q)
			}
			return "", err
		}
		switch {
		case page.DeltaLink != "":
			return cursorDelta + page.DeltaLink, nil
		case page.NextLink != "":
			req = request{method: "GET", target: page.NextLink, header: req.header}
		default:
			return "", unical.Errorf(unical.CodeUpstream, "Microsoft Graph ended a delta round without a delta link.")
		}
	}
}

// deltaPage reads one page of a delta round from link. Changed instances
// are read again with their extended property (delta cannot expand it);
// one that vanished meanwhile becomes a removal. With SeriesID only that
// series' instances are kept.
func (p *Provider) deltaPage(ctx context.Context, c *client, calendarID string, q *unical.EventQuery, link string, opts readOptions) (*unical.EventBatch, error) {
	req := request{method: "GET", target: link}
	if q.PageSize > 0 {
		req.header = map[string]string{"Prefer": "odata.maxpagesize=" + strconv.Itoa(min(q.PageSize, 1000))}
	}
	var page collection[event]
	if err := c.do(ctx, req, &page); err != nil {
		return nil, staleDeltaLink(err)
	}
	batch := &unical.EventBatch{Expanded: true}
	for i := range page.Value {
		g := &page.Value[i]
		if g.Removed == nil {
			full, err := c.getEvent(ctx, calendarID, g.ID)
			switch {
			case unical.ErrorCode(err) == unical.CodeNotFound:
				g = &event{ID: g.ID, Removed: &removed{Reason: "deleted"}}
			case err != nil:
				return nil, err
			default:
				g = full
			}
		}
		if q.SeriesID != "" && g.Removed == nil && g.SeriesMasterID != q.SeriesID && g.ID != q.SeriesID {
			continue
		}
		e, err := eventFromGraph(g, opts)
		if err != nil {
			return nil, err
		}
		batch.Events = append(batch.Events, e)
	}
	switch {
	case page.NextLink != "":
		batch.NextPageCursor = cursorDelta + page.NextLink
	case page.DeltaLink != "":
		batch.NextSyncCursor = cursorDelta + page.DeltaLink
	default:
		return nil, unical.Errorf(unical.CodeUpstream, "Microsoft Graph ended a delta round without a delta link.")
	}
	return batch, nil
}

// staleDeltaLink makes a refusal of a stored delta or skip link CodeGone.
// Graph documents an expired token only as "a 40X-series error with error
// codes such as syncStateNotFound" (concepts/delta-query-overview.md,
// "Token duration"): graphFailure already maps the named codes and 410,
// and a 400 or 404 with another code can only mean the link itself is no
// longer good, since the request is Graph's own URL. Syncing from scratch
// recovers; a calendar that is really gone then fails the full listing.
func staleDeltaLink(err error) error {
	switch unical.ErrorCode(err) {
	case unical.CodeInvalid, unical.CodeNotFound:
		return unical.WrapError(unical.CodeGone, err, "Microsoft Graph no longer accepts the sync token; sync from scratch.")
	}
	return err
}
