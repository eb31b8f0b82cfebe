package unical

import (
	"iter"
	"slices"
	"time"

	"github.com/unical/unical/internal/pagetoken"
	"github.com/unical/unical/internal/recur"
)

// MaxExpandWindow bounds the window of a listing with expandRecurrences
// and of an occurrences listing: 366 days, like free/busy.
const MaxExpandWindow = 366 * 24 * time.Hour

// maxSortedExpansion bounds the instances a listing the Client expands may
// hold when it is ordered by updated: that order cannot be produced
// instance by instance, so the window is expanded whole and sorted.
const maxSortedExpansion = 10_000

// maxExpandProviderPages bounds the provider pages read for one page of a
// listing the Client expands (every series is needed to merge them).
const maxExpandProviderPages = 100

// keyedEvent is an event with its sort key and id.
type keyedEvent = recur.Keyed[*Event]

// keyedBy returns the function that keys an event by key and its id, for
// recur.NewStream.
func keyedBy(key func(*Event) time.Time) func(*Event) keyedEvent {
	return func(e *Event) keyedEvent { return keyedEvent{Key: key(e), ID: e.ID, V: e} }
}

// after reports whether ke comes after the position p, where the page
// before stopped: the next page expands from there instead of from the
// start of the window, so the work of a page grows with the page, not
// with how far into the window it is.
func after(p *pagetoken.Position, ke keyedEvent) bool {
	if p == nil {
		return true
	}
	if c := ke.Key.Compare(p.Key); c != 0 {
		return c > 0
	}
	return ke.ID > p.ID
}

// startKey orders by start; an event without a readable start sorts first,
// as in sortEvents.
func startKey(e *Event) time.Time {
	t, _, _ := e.Interval()
	return t
}

func updatedKey(e *Event) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.UpdatedAt)
	return t
}

// groupSeries splits what a provider returned unexpanded into the series
// masters, the overrides of each, and the other events, as ExpandEvents
// reads them.
func groupSeries(events []*Event) (masters []*Event, overrides map[string][]*Event, plain []*Event) {
	isMaster := map[string]bool{}
	for _, e := range events {
		if e.IsRecurring && len(e.Recurrence) > 0 {
			isMaster[e.ID] = true
		}
	}
	overrides = map[string][]*Event{}
	for _, e := range events {
		switch {
		case e.RecurringEventID != "" && isMaster[e.RecurringEventID]:
			if e.OriginalStart != nil {
				overrides[e.RecurringEventID] = append(overrides[e.RecurringEventID], e)
			}
		case isMaster[e.ID]:
			masters = append(masters, e)
		default:
			plain = append(plain, e)
		}
	}
	return masters, overrides, plain
}

// stream yields the series' instances overlapping [from, to) in start
// order, from the position pos on (instances before it may still come;
// the caller skips them). A series whose own title and metadata fail the
// listing's filters yields only its overridden instances, the only ones
// that can pass, without expanding the rest.
func (sr *series) stream(from, to time.Time, pos *pagetoken.Position, onlyOverridden bool) iter.Seq[*Event] {
	return func(yield func(*Event) bool) {
		if onlyOverridden {
			for _, occ := range sr.set.Overridden(from, to, sr.dur) {
				if !yield(sr.instance(occ)) {
					return
				}
			}
			return
		}
		if pos == nil || sr.allDay {
			// All-day windows are read by their wall clock (see
			// recur.Set.Between), and a day holds one instance at most, so
			// skipping up to pos costs at most the days of the window.
			for occ := range sr.set.Between(from, to, sr.dur) {
				if !yield(sr.instance(occ)) {
					return
				}
			}
			return
		}
		for occ := range sr.set.StartingIn(pos.Key, to, sr.dur) {
			if occ.Start.Before(from) && !occ.End.After(from) {
				continue // Began before the window and ended before it too.
			}
			if !yield(sr.instance(occ)) {
				return
			}
		}
	}
}

// expandPage expands what a provider returned unexpanded into the events
// of one page of a listing: at most limit+1 of them (the extra one tells
// that another page follows), after the position pos, in (start, id)
// order, or (updated, id) order with orderBy=updated. Only the instances
// up to the page's end are built.
func expandPage(events []*Event, q *savedQuery, sync bool, pos *pagetoken.Position, limit int) ([]keyedEvent, error) {
	masters, overrides, plain := groupSeries(events)
	var streams []*recur.Stream[*Event]
	defer func() {
		for _, s := range streams {
			s.Stop()
		}
	}()
	byUpdate := q.OrderBy == OrderByUpdated
	streamPos := pos
	if byUpdate {
		streamPos = nil // The stream runs in start order; pos is an update time.
	}
	var kept []*Event
	for _, e := range plain {
		if q.keeps(e, sync) {
			kept = append(kept, e)
		}
	}
	byStart := keyedBy(startKey)
	slices.SortFunc(kept, func(a, b *Event) int { return recur.CompareKeyed(byStart(a), byStart(b)) })
	streams = append(streams, recur.NewStream(slices.Values(kept), byStart))
	for _, m := range masters {
		sr, err := newSeries(m, overrides[m.ID])
		if err != nil {
			return nil, err
		}
		onlyOverridden := !q.matchesContent(m) && !(sync && m.IsCancelled)
		streams = append(streams, recur.NewStream(sr.stream(q.Start, q.End, streamPos, onlyOverridden), byStart))
	}
	var out []keyedEvent
	if !byUpdate {
		for ke := range recur.Merge(streams) {
			if !after(pos, ke) || !q.keeps(ke.V, sync) {
				continue
			}
			if out = append(out, ke); len(out) > limit {
				break
			}
		}
		return out, nil
	}
	var all []keyedEvent
	for ke := range recur.Merge(streams) {
		if !q.keeps(ke.V, sync) {
			continue
		}
		if len(all) == maxSortedExpansion {
			return nil, invalidf("orderBy", "orderBy=updated with expandRecurrences holds at most %d instances; ask for a shorter window or order by startTime.", maxSortedExpansion)
		}
		all = append(all, keyedBy(updatedKey)(ke.V))
	}
	slices.SortFunc(all, recur.CompareKeyed)
	for _, ke := range all {
		if !after(pos, ke) {
			continue
		}
		if out = append(out, ke); len(out) > limit {
			break
		}
	}
	return out, nil
}
