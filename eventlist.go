package unical

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/unical/unical/internal/pagetoken"
)

// savedQuery is the part of an event listing that a page or sync token
// carries, so that later pages and incremental syncs ask the same question.
type savedQuery struct {
	Start    time.Time        `json:"s,omitzero"`
	End      time.Time        `json:"e,omitzero"`
	Expand   bool             `json:"x,omitempty"`
	Search   string           `json:"q,omitempty"`
	Metadata *MetadataFilters `json:"m,omitempty"`
	OrderBy  string           `json:"o,omitempty"`
	SeriesID string           `json:"r,omitempty"`
}

// listRequest is a validated event or occurrence listing.
type listRequest struct {
	kind      string // "events" or "occurrences"
	scope     string
	query     savedQuery
	syncToken string
	pageToken string
	limit     int
	loc       *time.Location
	// filtered reports whether the request set any filter of savedQuery.
	filtered bool
	// origin is the hash of the sync token an incremental listing started
	// from ("" for a full listing); its page tokens carry it, so a request
	// that repeats the sync token with a page token can be checked.
	origin string
}

// ListEvents lists the events of a calendar. Without expandRecurrences a
// recurring series is one event with its recurrence; with it, series are
// expanded into instances inside the window, which then can be ordered.
// Every listing ends with a nextSyncToken; presenting it later returns only
// what changed since, with deleted events as isCancelled true.
//
// HTTP: GET /v1/events/{endUserAccountId}/{calendarId}
//
// Returns CodeInvalid naming the parameter for bad values or combinations,
// CodeGone when the provider no longer accepts the sync token,
// CodeNotFound for an unknown account or calendar.
func (a *App) ListEvents(ctx context.Context, accountID, calendarID string, params *EventListParams) (*SyncPage[*Event], error) {
	if params == nil {
		params = &EventListParams{}
	}
	req := &listRequest{
		kind:  "events",
		scope: accountID + "\x00" + calendarID,
		query: savedQuery{Start: params.Start, End: params.End, Expand: params.ExpandRecurrences,
			Search: params.Search, Metadata: params.MetadataFilters, OrderBy: params.OrderBy},
		syncToken: params.SyncToken,
		pageToken: params.PageToken,
	}
	if err := req.validate(params.Limit, params.TimeZone); err != nil {
		return nil, err
	}
	return a.listEvents(ctx, accountID, calendarID, req)
}

// ListOccurrences lists the instances of one recurring event inside a
// window, like ListEvents with expandRecurrences. Each occurrence has
// isRecurring false, isException true, originalStart and recurringEventId.
//
// HTTP: GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/occurrences
//
// Returns CodeInvalid without startDateTime or endDateTime, CodeNotFound for
// an unknown event.
func (a *App) ListOccurrences(ctx context.Context, accountID, calendarID, eventID string, params *OccurrenceListParams) (*SyncPage[*Event], error) {
	if params == nil {
		params = &OccurrenceListParams{}
	}
	req := &listRequest{
		kind:  "occurrences",
		scope: accountID + "\x00" + calendarID + "\x00" + eventID,
		query: savedQuery{Start: params.Start, End: params.End, Expand: true, Search: params.Search,
			Metadata: params.MetadataFilters, OrderBy: params.OrderBy, SeriesID: eventID},
		syncToken: params.SyncToken,
		pageToken: params.PageToken,
	}
	if params.SyncToken == "" && params.PageToken == "" {
		if params.Start.IsZero() {
			return nil, invalidf("startDateTime", "startDateTime is required.")
		}
		if params.End.IsZero() {
			return nil, invalidf("endDateTime", "endDateTime is required.")
		}
	}
	if err := req.validate(params.Limit, params.TimeZone); err != nil {
		return nil, err
	}
	return a.listEvents(ctx, accountID, calendarID, req)
}

func (r *listRequest) validate(limit int, tz string) error {
	var err error
	if r.limit, err = pageLimit(limit); err != nil {
		return err
	}
	if tz != "" {
		if r.loc, err = LoadLocation(tz); err != nil {
			return invalidf("timeZone", "timeZone %q is not an IANA time zone name.", tz)
		}
	}
	q := r.query
	r.filtered = !q.Start.IsZero() || !q.End.IsZero() || q.Search != "" || q.Metadata != nil ||
		q.OrderBy != "" || (q.Expand && r.kind == "events")
	if r.syncToken != "" || r.pageToken != "" {
		// The token carries the query it belongs to. Most clients page by
		// sending the same query again with the token, so the filters may
		// be repeated unchanged or left out; listEvents refuses other ones
		// (see tokenQuery).
		return nil
	}
	if q.Expand && r.kind == "events" && (q.Start.IsZero() || q.End.IsZero()) {
		if q.Start.IsZero() {
			return invalidf("startDateTime", "expandRecurrences needs startDateTime and endDateTime.")
		}
		return invalidf("endDateTime", "expandRecurrences needs startDateTime and endDateTime.")
	}
	if !q.Start.IsZero() && !q.End.IsZero() && !q.End.After(q.Start) {
		return invalidf("endDateTime", "endDateTime must be after startDateTime.")
	}
	if q.Expand && q.End.Sub(q.Start) > MaxExpandWindow {
		what := "With expandRecurrences the window"
		if r.kind == "occurrences" {
			what = "The occurrences window"
		}
		return invalidf("endDateTime", "%s may span at most 366 days.", what)
	}
	if q.OrderBy != "" {
		if err := checkEnum("orderBy", q.OrderBy, OrderByValues); err != nil {
			return err
		}
		if !q.Expand {
			return invalidf("orderBy", "orderBy is only available with expandRecurrences=true.")
		}
	}
	return nil
}

func (a *App) listEvents(ctx context.Context, accountID, calendarID string, r *listRequest) (*SyncPage[*Event], error) {
	q := r.query
	sync := false
	syncCursor, pageCursor, offset := "", "", 0
	var pos *pagetoken.Position
	switch {
	case r.pageToken != "":
		p, err := a.openToken("pageToken", r.kind+"-page", r.scope, r.pageToken)
		if err != nil {
			return nil, err
		}
		if q, err = r.tokenQuery("pageToken", p); err != nil {
			return nil, err
		}
		if r.syncToken != "" && (p.Query == "" || p.Query != pagetoken.QueryHash(r.syncToken)) {
			return nil, invalidf("pageToken", "pageToken belongs to a listing with another syncToken; send the syncToken that listing had, or only pageToken.")
		}
		r.origin = p.Query
		sync, pageCursor, offset, pos = p.Sync, p.After, p.Offset, p.Pos
		if syncCursor, err = a.loadCursor(ctx, p); err != nil {
			return nil, err
		}
	case r.syncToken != "":
		p, err := a.openToken("syncToken", r.kind, r.scope, r.syncToken)
		if err != nil {
			return nil, err
		}
		if q, err = r.tokenQuery("syncToken", p); err != nil {
			return nil, err
		}
		r.origin = pagetoken.QueryHash(r.syncToken)
		sync = true
		if syncCursor, err = a.loadCursor(ctx, p); err != nil {
			return nil, err
		}
	}
	_, prov, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	tzName := ""
	if r.loc != nil {
		tzName = r.loc.String()
	}
	pq := &EventQuery{
		TimeMin: q.Start, TimeMax: q.End, SingleEvents: q.Expand, SeriesID: q.SeriesID,
		OrderBy: q.OrderBy, Search: q.Search, Metadata: q.Metadata, TimeZone: tzName,
		WantSync: true, PageCursor: pageCursor, PageSize: r.limit,
	}
	if sync {
		pq.SyncCursor = syncCursor
	}
	batch, err := prov.ListEvents(ctx, s, calendarID, pq)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	if q.Expand && !batch.Expanded {
		return a.listExpanded(ctx, accountID, calendarID, prov, s, r, q, pq, batch, sync, syncCursor, pos)
	}
	if pos != nil {
		// The provider expands now although it did not when the token was
		// issued; the position means nothing to its cursor.
		return nil, invalidf("pageToken", "pageToken is not a token this listing issued.")
	}
	events := filterEvents(batch.Events, &q, sync)
	if q.SeriesID != "" {
		for _, e := range events {
			markOccurrence(e, q.SeriesID)
		}
	}
	if r.loc != nil {
		for _, e := range events {
			showInZone(e, r.loc)
		}
	}
	if q.OrderBy != "" && !batch.Ordered {
		sortEvents(events, q.OrderBy)
	}

	page := &SyncPage[*Event]{Data: []*Event{}}
	if offset > len(events) {
		offset = len(events)
	}
	end := min(offset+r.limit, len(events))
	page.Data = append(page.Data, events[offset:end]...)
	saved, _ := json.Marshal(q)
	var next *pagetoken.Payload
	if end < len(events) || batch.NextPageCursor != "" {
		next = &pagetoken.Payload{Kind: r.kind + "-page", Scope: r.scope, Saved: saved, Sync: sync, Query: r.origin}
		if end < len(events) {
			next.After, next.Offset = pageCursor, end
		} else {
			next.After = batch.NextPageCursor
		}
	}
	if err := a.issueTokens(ctx, page, r, saved, next, syncCursor, batch.NextSyncCursor); err != nil {
		return nil, err
	}
	return page, nil
}

// issueTokens gives page its next page token when next is set (with the
// provider's sync cursor syncCursor kept for the later pages), else its
// next sync token when the provider returned one (nextSync).
func (a *App) issueTokens(ctx context.Context, page *SyncPage[*Event], r *listRequest, saved []byte, next *pagetoken.Payload, syncCursor, nextSync string) error {
	switch {
	case next != nil:
		if err := a.c.pages.StoreCursor(ctx, a.id, next, syncCursor); err != nil {
			return err
		}
		page.NextPageToken = a.c.pages.Seal(a.id, *next)
	case nextSync != "":
		tok := pagetoken.Payload{Kind: r.kind, Scope: r.scope, Saved: saved}
		if err := a.c.pages.StoreCursor(ctx, a.id, &tok, nextSync); err != nil {
			return err
		}
		page.NextSyncToken = a.c.pages.Seal(a.id, tok)
	}
	return nil
}

// tokenQuery returns the query a page or sync token carries. The request
// may leave the filters out or repeat the ones of the listing that issued
// the token; other filters are a 400 naming the token, because the token
// would silently answer another question than the one asked.
func (r *listRequest) tokenQuery(field string, p *pagetoken.Payload) (savedQuery, error) {
	var q savedQuery
	if err := json.Unmarshal(p.Saved, &q); err != nil {
		return q, invalidf(field, "%s is not a token this listing issued.", field)
	}
	if r.filtered && !q.same(&r.query) {
		return q, invalidf(field, "%s belongs to a listing with other query parameters; send the parameters that listing had, or only %s.", field, field)
	}
	return q, nil
}

// same reports whether q and o ask the same question. Instants compare
// as instants: the offset a client spells them in does not matter.
func (q *savedQuery) same(o *savedQuery) bool {
	if !q.Start.Equal(o.Start) || !q.End.Equal(o.End) || q.Expand != o.Expand || q.Search != o.Search ||
		q.OrderBy != o.OrderBy || q.SeriesID != o.SeriesID {
		return false
	}
	qm, _ := json.Marshal(q.Metadata)
	om, _ := json.Marshal(o.Metadata)
	return string(qm) == string(om)
}

// listExpanded answers a listing with expandRecurrences from a provider
// that returns series unexpanded (CalDAV): it reads every provider page
// (each series is needed to merge instances in order), then expands one
// page of instances from the position the page token carries. The
// window's size does not matter: a page builds the instances it shows.
func (a *App) listExpanded(ctx context.Context, accountID, calendarID string, prov Provider, s *Session, r *listRequest, q savedQuery, pq *EventQuery, batch *EventBatch, sync bool, syncCursor string, pos *pagetoken.Position) (*SyncPage[*Event], error) {
	events := batch.Events
	for pages := 1; batch.NextPageCursor != ""; pages++ {
		if pages == maxExpandProviderPages {
			return nil, Errorf(CodeUnavailable, "The calendar has too many events to expand in one listing.")
		}
		next := *pq
		next.PageCursor, next.PageSize = batch.NextPageCursor, MaxPageSize
		var err error
		if batch, err = prov.ListEvents(ctx, s, calendarID, &next); err != nil {
			return nil, a.ProviderFailed(ctx, accountID, err)
		}
		events = append(events, batch.Events...)
	}
	found, err := expandPage(events, &q, sync, pos, r.limit)
	if err != nil {
		return nil, err
	}
	page := &SyncPage[*Event]{Data: make([]*Event, 0, min(len(found), r.limit))}
	for _, ke := range found[:min(len(found), r.limit)] {
		page.Data = append(page.Data, ke.V)
	}
	saved, _ := json.Marshal(q)
	var next *pagetoken.Payload
	if len(found) > r.limit {
		last := found[r.limit-1]
		next = &pagetoken.Payload{Kind: r.kind + "-page", Scope: r.scope, Saved: saved, Sync: sync, Query: r.origin,
			Pos: &pagetoken.Position{Key: last.Key, ID: last.ID}}
	}
	if err := a.issueTokens(ctx, page, r, saved, next, syncCursor, batch.NextSyncCursor); err != nil {
		return nil, err
	}
	for _, e := range page.Data {
		if q.SeriesID != "" {
			markOccurrence(e, q.SeriesID)
		}
		if r.loc != nil {
			showInZone(e, r.loc)
		}
	}
	return page, nil
}

// filterEvents applies the window, title search and metadata filters (see
// keeps).
func filterEvents(events []*Event, q *savedQuery, sync bool) []*Event {
	out := events[:0:0]
	for _, e := range events {
		if q.keeps(e, sync) {
			out = append(out, e)
		}
	}
	return out
}

// keeps reports whether e passes the window, title search and metadata
// filters. In an incremental sync deleted events always pass, so that
// clients learn of them.
func (q *savedQuery) keeps(e *Event, sync bool) bool {
	if sync && e.IsCancelled {
		return true
	}
	return q.matchesContent(e) && overlaps(e, q.Start, q.End)
}

// matchesContent applies the title search and metadata filters. Instances
// share their series' title and metadata unless overridden.
func (q *savedQuery) matchesContent(e *Event) bool {
	if q.Search != "" && !strings.Contains(strings.ToLower(e.Title), strings.ToLower(q.Search)) {
		return false
	}
	return q.Metadata.Match(e)
}

// overlaps reports whether e overlaps [from, to); open ends always match.
// A series overlaps when one of its instances does.
func overlaps(e *Event, from, to time.Time) bool {
	if e.Start == nil || (from.IsZero() && to.IsZero()) {
		return true
	}
	if e.IsRecurring { // one that cannot be read is kept
		sr, err := newSeries(e, nil)
		return err != nil || len(e.Recurrence) == 0 || sr.set.Overlaps(from, to, sr.dur)
	}
	start, end, err := e.Interval()
	if err != nil {
		return true
	}
	if !to.IsZero() && !start.Before(to) {
		return false
	}
	if !from.IsZero() && !end.After(from) && !(end.Equal(start) && !start.Before(from)) {
		return false
	}
	return true
}

// Interval returns the instants an event covers. All-day events cover whole
// days in UTC, because they have no zone of their own; an event without an
// end covers no time after its start.
func (e *Event) Interval() (start, end time.Time, err error) {
	if e.Start == nil {
		return start, end, Errorf(CodeInvalid, "event has no start")
	}
	if e.IsAllDay {
		if start, err = e.Start.Day("start"); err != nil {
			return
		}
		end = start.AddDate(0, 0, 1)
		if e.End != nil {
			if end, err = e.End.Day("end"); err != nil {
				return
			}
		}
		return start, end, nil
	}
	if start, err = e.Start.Time("start"); err != nil {
		return
	}
	end = start
	if e.End != nil {
		if end, err = e.End.Time("end"); err != nil {
			return
		}
	}
	return start, end, nil
}

// markOccurrence gives an instance the shape the occurrences endpoint shows.
func markOccurrence(e *Event, seriesID string) {
	e.IsRecurring = false
	e.IsException = true
	e.Recurrence = nil
	if e.RecurringEventID == "" {
		e.RecurringEventID = seriesID
	}
	if e.OriginalStart == nil && e.Start != nil {
		os := *e.Start
		if e.IsAllDay {
			if d, err := e.Start.Day("start"); err == nil {
				os = EventDateTime{Date: d.Format(DateLayout)}
			}
		}
		e.OriginalStart = &os
	}
}

// showInZone rewrites the timed date-times of e in loc. All-day values name
// days, not instants, and stay as they are.
func showInZone(e *Event, loc *time.Location) {
	for _, d := range []*EventDateTime{e.Start, e.End, e.OriginalStart} {
		if d == nil || d.DateTime == "" || e.IsAllDay {
			continue
		}
		t, err := d.Time("dateTime")
		if err != nil {
			continue
		}
		d.DateTime = t.In(loc).Format(time.RFC3339)
		d.TimeZone = loc.String()
	}
}

// sortEvents orders events by start time or by last update, stably, with
// the id as the tie-breaker so pages are deterministic.
func sortEvents(events []*Event, orderBy string) {
	key := func(e *Event) time.Time {
		if orderBy == OrderByUpdated {
			t, _ := time.Parse(time.RFC3339Nano, e.UpdatedAt)
			return t
		}
		t, _, _ := e.Interval()
		return t
	}
	sort.SliceStable(events, func(i, j int) bool {
		ki, kj := key(events[i]), key(events[j])
		if !ki.Equal(kj) {
			return ki.Before(kj)
		}
		return events[i].ID < events[j].ID
	})
}
