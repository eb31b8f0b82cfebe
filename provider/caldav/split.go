package caldav

import (
	"context"
	"net/url"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

var _ unical.SeriesSplitter = (*Provider)(nil)

// SplitSeries implements [unical.SeriesSplitter] with two resources, as
// calendar clients split a series: the new series is written first as a
// resource of its own (If-None-Match: *), its overrides as RECURRENCE-ID
// components made from it and its cancelled occurrences as EXDATEs; then
// the old resource is written back (If-Match on the ETag read) with its
// rule cut and its overrides from the split on removed. RANGE=THISANDFUTURE
// (RFC 5545 §3.2.13) is not used: servers and clients support it unevenly.
// When the old resource changed in between, the new one is deleted again
// and the answer is CodePrecondition.
func (p *Provider) SplitSeries(ctx context.Context, s *unical.Session, calendarID string, req *unical.SeriesSplit) (*unical.Event, error) {
	c, calURL, err := p.writeTo(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	obj, err := c.getObject(ctx, calURL, req.SeriesID)
	if err != nil {
		return nil, err
	}
	master := icalmap.Master(obj.Cal)
	if master == nil {
		return nil, unical.Errorf(unical.CodeNotFound, "Series %q not found.", req.SeriesID)
	}
	floating := c.floatingZone(ctx, calURL, obj)

	var created *unical.Event
	if req.New != nil {
		if created, err = p.createSplit(ctx, c, calURL, s, req, floating); err != nil {
			return nil, err
		}
	}

	// The old half: overrides from the split on go, the rule ends.
	before, err := objectEvents(obj, s.Email, floating)
	if err != nil {
		return nil, p.undoSplit(ctx, c, calURL, created, err)
	}
	for _, e := range before {
		if e.OriginalStart == nil {
			continue
		}
		orig, err := originalStartOf(e, req.AllDay)
		if err != nil || orig.Before(req.At) {
			continue
		}
		if ov := icalmap.FindOverride(obj.Cal, orig, floating); ov != nil {
			removeComponent(obj.Cal, ov)
		}
	}
	events, err := objectEvents(obj, s.Email, floating)
	if err != nil {
		return nil, p.undoSplit(ctx, c, calURL, created, err)
	}
	var old *unical.Event
	for _, e := range events {
		if e.RecurringEventID == "" {
			old = e
		}
	}
	if old == nil {
		return nil, p.undoSplit(ctx, c, calURL, created, unical.Errorf(unical.CodeNotFound, "Series %q not found.", req.SeriesID))
	}
	if err := merge(old, &unical.EventParams{Recurrence: unical.Some(req.Before)}, s.Email, false); err != nil {
		return nil, p.undoSplit(ctx, c, calURL, created, err)
	}
	bumpSequence(master)
	if err := write(master, old, s.Email, p.now()); err != nil {
		return nil, p.undoSplit(ctx, c, calURL, created, err)
	}
	markScheduleAgent(s.NotifyAttendees, obj.Cal)
	if _, err := c.save(ctx, calURL, obj, req.SeriesID, s.Email, false); err != nil {
		return nil, p.undoSplit(ctx, c, calURL, created, err)
	}
	return created, nil
}

// createSplit writes the new half of a split as a resource of its own.
func (p *Provider) createSplit(ctx context.Context, c *conn, calURL *url.URL, s *unical.Session, req *unical.SeriesSplit, floating *time.Location) (*unical.Event, error) {
	self := s.Email
	obj, e, err := p.newObject(req.New, self)
	if err != nil {
		return nil, err
	}
	uid, comp := e.ICalUID, obj.Cal.Children[0]
	if len(req.Exceptions) > 0 && e.IsRecurring {
		events, err := objectEvents(obj, self, floating)
		if err != nil {
			return nil, err
		}
		for _, ex := range req.Exceptions {
			orig := ex.OriginalStart.Add(req.Shift)
			if ex.Cancelled {
				exdate, err := icalmap.InstanceValue(obj.Cal, ical.PropExceptionDates, comp, orig, req.AllDay, floating)
				if err != nil {
					return nil, unical.WrapError(unical.CodeInvalid, err, "The new series cannot be written.")
				}
				comp.Props.Add(exdate)
				continue
			}
			// The override starts as the new series' occurrence, as
			// UpdateEvent makes one, with the old override's changes.
			insts, err := unical.ExpandEvents(events, orig, orig.Add(time.Second))
			if err != nil {
				return nil, err
			}
			if len(insts) == 0 {
				continue // the new rule makes no such occurrence
			}
			inst := insts[0]
			ov := cloneAsOverride(comp)
			rid, err := icalmap.InstanceValue(obj.Cal, ical.PropRecurrenceID, comp, orig, req.AllDay, floating)
			if err != nil {
				return nil, unical.WrapError(unical.CodeInvalid, err, "The new series cannot be written.")
			}
			ov.Props.Set(rid)
			if err := merge(inst, ex.Changes, self, false); err != nil {
				return nil, err
			}
			inst.Recurrence, inst.IsRecurring = nil, false
			if err := write(ov, inst, self, p.now()); err != nil {
				return nil, err
			}
			obj.Cal.Children = append(obj.Cal.Children, ov)
		}
	}
	markScheduleAgent(s.NotifyAttendees, obj.Cal)
	return c.save(ctx, calURL, obj, uid, self, true)
}

// undoSplit deletes the new half of a split that could not be finished,
// so that the calendar shows what it showed before, and returns err.
func (p *Provider) undoSplit(ctx context.Context, c *conn, calURL *url.URL, created *unical.Event, err error) error {
	if created == nil {
		return err
	}
	_ = c.deleteObject(ctx, calURL, created.ID+icsSuffix, "")
	return err
}

// originalStartOf reads an override's original start as the split names
// occurrences: an instant, or a date label for all-day series.
func originalStartOf(e *unical.Event, allDay bool) (time.Time, error) {
	if allDay {
		return e.OriginalStart.Day("originalStart")
	}
	return e.OriginalStart.Time("originalStart")
}
