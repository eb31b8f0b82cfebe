package google

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/unical/unical"
)

// listCursor is what our page cursors carry: the whole Google request of
// the listing, because Google wants "the exact same list query" on every
// page (sync guide), and what to do with the answers.
type listCursor struct {
	// Path is the API path (events or instances).
	Path string `json:"p"`
	// Query is the encoded query of every page, without pageToken and
	// maxResults.
	Query string `json:"q"`
	// Token is Google's nextPageToken.
	Token string `json:"t,omitempty"`
	// Expanded and Ordered are copied to every EventBatch.
	Expanded bool `json:"x,omitempty"`
	Ordered  bool `json:"o,omitempty"`
	// Series keeps only the events of one series (incremental sync of an
	// occurrence listing, which runs over the whole calendar).
	Series string `json:"r,omitempty"`
	// Sync is the sync token handed out on the last page when Google's
	// listing issues none (events.instances).
	Sync string `json:"s,omitempty"`
}

func (lc *listCursor) encode() string {
	b, _ := json.Marshal(lc)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (*listCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	var lc listCursor
	if err == nil {
		err = json.Unmarshal(b, &lc)
	}
	if err != nil || lc.Path == "" {
		return nil, unical.FieldError("pageToken", "The page token does not belong to a Google listing.")
	}
	return &lc, nil
}

// ListEvents implements [unical.Provider] with events.list, or
// events.instances for an occurrence listing (SeriesID).
//
// With SingleEvents Google expands series (singleEvents=true), and
// orderBy=startTime is only allowed then (events.list reference); the
// batch says so through Expanded and Ordered. Metadata filters
// (privateExtendedProperty, sharedExtendedProperty) narrow the listing at
// Google, and the Client applies them again; title search is left to the
// Client (see firstPage).
//
// A SyncCursor is Google's nextSyncToken. Google forbids iCalUID,
// orderBy, privateExtendedProperty, q, sharedExtendedProperty, timeMin,
// timeMax and updatedMin together with syncToken, so an incremental
// listing sends none of them (the Client filters what comes back); an
// expired token is 410 fullSyncRequired, CodeGone. Google sends
// nextSyncToken only on the last page.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	if calendarID == "" {
		return nil, unical.Errorf(unical.CodeNotFound, "Google has no such calendar.")
	}
	c := p.conn(s)
	var lc *listCursor
	if q.PageCursor != "" {
		var err error
		if lc, err = decodeCursor(q.PageCursor); err != nil {
			return nil, err
		}
	} else {
		var err error
		if lc, err = c.firstPage(ctx, calendarID, q); err != nil {
			return nil, err
		}
	}
	query, err := url.ParseQuery(lc.Query)
	if err != nil {
		return nil, unical.FieldError("pageToken", "The page token does not belong to a Google listing.")
	}
	if lc.Token != "" {
		query.Set("pageToken", lc.Token)
	}
	if q.PageSize > 0 {
		query.Set("maxResults", strconv.Itoa(min(q.PageSize, 2500)))
	}
	var page events
	if err := c.do(ctx, http.MethodGet, c.api(lc.Path, query), nil, &page); err != nil {
		return nil, err
	}
	zone := query.Get("timeZone")
	if zone == "" {
		zone = page.TimeZone
	}
	batch := &unical.EventBatch{Events: []*unical.Event{}, Expanded: lc.Expanded, Ordered: lc.Ordered}
	for _, raw := range page.Items {
		var g event
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, unical.WrapError(unical.CodeUpstream, err, "Google answered with an event that is not the expected JSON.")
		}
		if lc.Series != "" && g.ID != lc.Series && g.RecurringEventID != lc.Series {
			continue
		}
		batch.Events = append(batch.Events, toEvent(&g, zone, s.Email))
	}
	switch {
	case page.NextPageToken != "":
		next := *lc
		next.Token = page.NextPageToken
		batch.NextPageCursor = next.encode()
	case q.WantSync && lc.Sync != "":
		batch.NextSyncCursor = lc.Sync
	case q.WantSync:
		batch.NextSyncCursor = page.NextSyncToken
	}
	return batch, nil
}

// firstPage turns a query into the Google request of its first page.
func (c *conn) firstPage(ctx context.Context, calendarID string, q *unical.EventQuery) (*listCursor, error) {
	query := url.Values{}
	if q.TimeZone != "" {
		query.Set("timeZone", q.TimeZone)
	}
	lc := &listCursor{Path: eventsPath(calendarID)}
	switch {
	case q.SyncCursor != "" && q.SeriesID != "":
		// The occurrences of a series change with its master and its
		// exceptions: sync the calendar without expansion, keep the
		// series' items, and let the Client expand the master in the
		// window it remembers.
		query.Set("syncToken", q.SyncCursor)
		lc.Series = q.SeriesID
	case q.SyncCursor != "":
		query.Set("syncToken", q.SyncCursor)
		if q.SingleEvents {
			// "All other query parameters should be the same as for the
			// initial synchronization" (sync guide).
			query.Set("singleEvents", "true")
			lc.Expanded = true
		}
	case q.SeriesID != "":
		lc.Path = eventPath(calendarID, q.SeriesID) + "/instances"
		lc.Expanded = true
		setWindow(query, q)
		if q.WantSync {
			tok, err := c.seriesSyncToken(ctx, calendarID)
			if err != nil {
				return nil, err
			}
			lc.Sync = tok
		}
	default:
		setWindow(query, q)
		if q.SingleEvents {
			query.Set("singleEvents", "true")
			lc.Expanded = true
		}
		switch {
		case q.OrderBy == unical.OrderByStartTime && q.SingleEvents:
			query.Set("orderBy", "startTime")
			lc.Ordered = true
		case q.OrderBy == unical.OrderByUpdated:
			query.Set("orderBy", "updated")
			lc.Ordered = true
		}
		// Search is not sent as q: Google's q is a free-text search over
		// words of several fields (events.list reference), while ours keeps
		// events whose title contains the text anywhere ("view" matches
		// "Review"). q could drop such events, and the Client filters by
		// title itself, so leaving q out costs pages, never results.
		if m := q.Metadata; m != nil {
			// One parameter per property; the reference says events must
			// match all of them (the guide says any: the Client re-filters
			// either way).
			for k, v := range m.Private {
				query.Add("privateExtendedProperty", k+"="+v)
			}
			for k, v := range m.Public {
				query.Add("sharedExtendedProperty", k+"="+v)
			}
		}
	}
	lc.Query = query.Encode()
	return lc, nil
}

// setWindow sets timeMin (exclusive bound on an event's end) and timeMax
// (exclusive bound on its start), which Google wants as RFC 3339 with an
// offset.
func setWindow(query url.Values, q *unical.EventQuery) {
	if !q.TimeMin.IsZero() {
		query.Set("timeMin", q.TimeMin.UTC().Format(time.RFC3339))
	}
	if !q.TimeMax.IsZero() {
		query.Set("timeMax", q.TimeMax.UTC().Format(time.RFC3339))
	}
}

// seriesSyncToken returns a sync token taken before an occurrence listing
// is read, so that later changes to the series are not missed. The token
// comes from a plain listing of the calendar without expansion, the same
// parameters the incremental sync later sends with it: the sync guide
// requires "all other query parameters" to be those of the initial
// synchronization, and the events.list reference forbids iCalUID with
// syncToken, so a token of a listing narrowed to the series' iCalUID
// would not be one for the calendar. Paging is bounded (100 pages of
// 2500).
func (c *conn) seriesSyncToken(ctx context.Context, calendarID string) (string, error) {
	query := url.Values{"maxResults": {"2500"}}
	for range 100 {
		var page events
		if err := c.do(ctx, http.MethodGet, c.api(eventsPath(calendarID), query), nil, &page); err != nil {
			return "", err
		}
		if page.NextPageToken == "" {
			if page.NextSyncToken == "" {
				return "", unical.Errorf(unical.CodeUpstream, "Google ended a calendar listing without a sync token.")
			}
			return page.NextSyncToken, nil
		}
		query.Set("pageToken", page.NextPageToken)
	}
	return "", unical.Errorf(unical.CodeUpstream, "Google did not finish listing the calendar.")
}
