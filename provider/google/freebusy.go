package google

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/unical/unical"
)

var _ unical.FreeBusyQuerier = (*Provider)(nil)

// freeBusyBatch is the most calendars one freeBusy.query answers:
// calendarExpansionMax, "Maximal number of calendars for which FreeBusy
// information is to be provided", has "Maximum value is 50" (discovery
// document, FreeBusyRequest); past it Google reports the per-calendar
// reason tooManyCalendarsRequested (Error.reason).
const freeBusyBatch = 50

// QueryFreeBusy implements [unical.FreeBusyQuerier] with freeBusy.query,
// asking for the answer in the requested zone ("Time zone used in the
// response", FreeBusyRequest.timeZone) and in batches of at most
// freeBusyBatch calendars. Google leaves transparent events out of busy
// time. A calendar Google reports with the error reason notFound is
// CodeNotFound; other per-calendar errors (for example
// tooManyCalendarsRequested, internalError) are CodeUpstream.
func (p *Provider) QueryFreeBusy(ctx context.Context, s *unical.Session, q *unical.FreeBusyQuery) (map[string][]unical.Interval, error) {
	out := make(map[string][]unical.Interval, len(q.CalendarIDs))
	for ids := range slices.Chunk(q.CalendarIDs, freeBusyBatch) {
		if err := p.queryFreeBusy(ctx, s, q, ids, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// queryFreeBusy asks one freeBusy.query for ids and adds the answer to out.
func (p *Provider) queryFreeBusy(ctx context.Context, s *unical.Session, q *unical.FreeBusyQuery, ids []string, out map[string][]unical.Interval) error {
	items := make([]map[string]string, len(ids))
	for i, id := range ids {
		items[i] = map[string]string{"id": id}
	}
	zone := q.TimeZone
	if zone == "" {
		zone = "UTC"
	}
	body := map[string]any{
		"timeMin":  q.Start.UTC().Format(time.RFC3339),
		"timeMax":  q.End.UTC().Format(time.RFC3339),
		"timeZone": zone,
		"items":    items,
	}
	c := p.conn(s)
	var resp freeBusyResponse
	// freeBusy.query changes nothing, so it may be repeated.
	if err := c.doWith(ctx, http.MethodPost, c.api("/freeBusy", nil), callOpts{safe: true}, body, &resp); err != nil {
		return err
	}
	for _, id := range ids {
		cal, ok := resp.Calendars[id]
		if !ok {
			return unical.Errorf(unical.CodeUpstream, "Google's free/busy answer leaves out a requested calendar.")
		}
		for _, e := range cal.Errors {
			if e.Reason == "notFound" {
				return unical.Errorf(unical.CodeNotFound, "Google has no calendar %q, or the account cannot see it.", id)
			}
			return unical.WrapError(unical.CodeUpstream, &APIError{Reason: e.Reason}, "Google could not report free/busy time for calendar %q.", id)
		}
		list := make([]unical.Interval, 0, len(cal.Busy))
		for _, b := range cal.Busy {
			start, err1 := time.Parse(time.RFC3339, b.Start)
			end, err2 := time.Parse(time.RFC3339, b.End)
			if err1 != nil || err2 != nil {
				return unical.Errorf(unical.CodeUpstream, "Google answered with a busy time that is not RFC 3339.")
			}
			list = append(list, unical.Interval{Start: start, End: end})
		}
		out[id] = list
	}
	return nil
}
