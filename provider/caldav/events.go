package caldav

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
	"github.com/unical/unical/internal/adapter/precondition"
	"github.com/unical/unical/internal/recur"
)

// prodID names unical as the producer of the objects it writes (RFC 5545
// §3.7.3).
const prodID = "-//unical//unical CalDAV provider//EN"

// GetEvent returns an event, or one instance of a series by its instance
// id (a series id, "_" and the original start): the override when the
// resource holds one, else the instance computed from the series. An
// instance the series does not have, or one it excludes, is CodeNotFound.
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	c := p.conn(s)
	_, cal, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return nil, err
	}
	t, err := c.target(ctx, cal, eventID, s.Email)
	if err != nil {
		return nil, err
	}
	return t.cur, nil
}

// CreateEvent writes a new calendar object resource named after a fresh
// UID, with If-None-Match: * so that nothing is ever overwritten. The
// mapping, recurrence and times are checked before anything is sent.
// Attendees without an organizer get the account as organizer, since RFC
// 5545 §3.8.4.3 requires one on a group-scheduled event.
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	c, calURL, err := p.writeTo(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	obj, e, err := p.newObject(params, s.Email)
	if err != nil {
		return nil, err
	}
	markScheduleAgent(s.NotifyAttendees, obj.Cal)
	return c.save(ctx, calURL, obj, e.ICalUID, s.Email, true)
}

// writeTo returns the connection and the URL of the calendar an event
// write goes to, once the notifyAttendees choice on ctx is known to be
// one the server can honour (checkNotify), so that nothing is written
// before a refusal.
func (p *Provider) writeTo(ctx context.Context, s *unical.Session, calendarID string) (*conn, *url.URL, error) {
	c := p.conn(s)
	_, calURL, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return nil, nil, err
	}
	if err := p.checkNotify(ctx, c, s, calURL); err != nil {
		return nil, nil, err
	}
	return c, calURL, nil
}

// newObject makes the .ics resource of a new event from params, with a
// fresh UID, and returns it with the event it holds.
func (p *Provider) newObject(params *unical.EventParams, self string) (*object, *unical.Event, error) {
	uid, err := newUID()
	if err != nil {
		return nil, nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	e := &unical.Event{ICalUID: uid}
	if err := merge(e, params, self, true); err != nil {
		return nil, nil, err
	}
	comp := ical.NewComponent(ical.CompEvent)
	if err := write(comp, e, self, p.now()); err != nil {
		return nil, nil, err
	}
	obj := &object{Name: uid + icsSuffix, Cal: ical.NewCalendar()}
	obj.Cal.Props.SetText(ical.PropProductID, prodID)
	obj.Cal.Props.SetText(ical.PropVersion, "2.0")
	obj.Cal.Children = append(obj.Cal.Children, comp)
	return obj, e, nil
}

// UpdateEvent reads the event's resource, merges params into the VEVENT
// (absent fields are kept, null ones cleared; properties unical does not
// map, such as VALARM and X-APPLE-*, stay as they are) and writes it back
// with If-Match on the ETag it read, so that a change made in between
// fails with CodePrecondition instead of being lost. Given an instance id,
// it changes (or creates) that instance's override.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (_ *unical.Event, err error) {
	defer func() { err = precondition.Name(s.IfMatch, err) }()
	c, calURL, err := p.writeTo(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	t, err := c.target(ctx, calURL, eventID, s.Email)
	if err != nil {
		return nil, err
	}
	if err := precondition.Check(s.IfMatch, t.obj.ETag); err != nil {
		return nil, err
	}
	if t.instance && len(params.Recurrence.Value()) > 0 {
		return nil, unical.FieldError("recurrence", "An instance of a series cannot recur itself; update the series instead.")
	}
	e := t.cur
	if err := merge(e, params, s.Email, false); err != nil {
		return nil, err
	}
	if t.instance {
		e.Recurrence, e.IsRecurring = nil, false
	} else if len(e.Recurrence) == 0 && t.comp.Props.Get(ical.PropRecurrenceID) == nil {
		// A master that no longer recurs has no instances to override
		// (RFC 5545 §3.8.4.4); left in place they would show up as events
		// of their own. (A resource without a master, an invitation to
		// single instances, keeps its other overrides.)
		for _, ch := range append([]*ical.Component(nil), t.obj.Cal.Children...) {
			if ch != t.comp && ch.Name == ical.CompEvent && ch.Props.Get(ical.PropRecurrenceID) != nil {
				removeComponent(t.obj.Cal, ch)
			}
		}
	}
	if params.Start.IsSet() || params.End.IsSet() || params.IsAllDay.IsSet() || params.Recurrence.IsSet() {
		bumpSequence(t.comp)
	}
	if err := write(t.comp, e, s.Email, p.now()); err != nil {
		return nil, err
	}
	markScheduleAgent(s.NotifyAttendees, t.obj.Cal)
	return c.save(ctx, calURL, t.obj, eventID, s.Email, false)
}

// DeleteEvent deletes an event's resource (a whole series for a series
// id). Given an instance id it removes that instance's override and adds
// an EXDATE to the series (RFC 5545 §3.8.5.1), written with If-Match.
// A whole resource is deleted with If-Match on the ETag just read (it was
// read to know it holds an event), so a change made in between is
// CodePrecondition rather than deleted unseen. A caller's If-Match
// (package ifmatch) is compared with that ETag first.
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (err error) {
	defer func() { err = precondition.Name(s.IfMatch, err) }()
	c := p.conn(s)
	_, calURL, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return err
	}
	if err := checkSegment("eventId", eventID); err != nil {
		return err
	}
	if err := p.checkNotify(ctx, c, s, calURL); err != nil {
		return err
	}
	unscheduled := s.NotifyAttendees != nil && !*s.NotifyAttendees
	if _, _, _, err := recur.ParseInstanceID(eventID); err != nil {
		// Read before deleting: the id may name a to-do or a journal entry
		// in the same collection, which is not an event to delete.
		obj, err := c.getObject(ctx, calURL, eventID)
		if err != nil {
			return err
		}
		if err := precondition.Check(s.IfMatch, obj.ETag); err != nil {
			return err
		}
		if unscheduled {
			return c.deleteUnscheduled(ctx, calURL, obj)
		}
		return c.deleteObject(ctx, calURL, obj.Name, obj.ETag)
	}
	t, err := c.target(ctx, calURL, eventID, s.Email)
	if err != nil {
		return err
	}
	if err := precondition.Check(s.IfMatch, t.obj.ETag); err != nil {
		return err
	}
	if !t.instance {
		if unscheduled {
			return c.deleteUnscheduled(ctx, calURL, t.obj)
		}
		return c.deleteObject(ctx, calURL, t.obj.Name, t.obj.ETag)
	}
	removeComponent(t.obj.Cal, t.comp)
	master := icalmap.Master(t.obj.Cal)
	if master == nil {
		if !hasEvents(t.obj.Cal) {
			return c.deleteObject(ctx, calURL, t.obj.Name, t.obj.ETag)
		}
	} else {
		ex, err := icalmap.InstanceValue(t.obj.Cal, ical.PropExceptionDates, master, t.orig, t.allDay, t.floating)
		if err != nil {
			return unical.WrapError(unical.CodeUpstream, err, "The series at the CalDAV server cannot be changed.")
		}
		master.Props.Add(ex)
		bumpSequence(master)
		master.Props.SetDateTime(ical.PropDateTimeStamp, p.now().UTC().Truncate(time.Second))
	}
	markScheduleAgent(s.NotifyAttendees, t.obj.Cal)
	data, err := finish(t.obj.Cal)
	if err != nil {
		return err
	}
	_, err = c.putObject(ctx, calURL, t.obj.Name, data, t.obj.ETag)
	return err
}

// deleteUnscheduled deletes obj so that a scheduling server sends no
// cancellation: RFC 6638 §3.2.1.3 has it cancel on the DELETE of an
// organizer's object for every attendee without SCHEDULE-AGENT=CLIENT,
// so an object with attendees is first written back with CLIENT on them
// (If-Match on the version read), and the delete is conditioned on the
// version that wrote.
func (c *conn) deleteUnscheduled(ctx context.Context, calURL *url.URL, obj *object) error {
	no := false
	if !markScheduleAgent(&no, obj.Cal) {
		return c.deleteObject(ctx, calURL, obj.Name, obj.ETag)
	}
	data, err := finish(obj.Cal)
	if err != nil {
		return err
	}
	etag, err := c.putObject(ctx, calURL, obj.Name, data, obj.ETag)
	if err != nil {
		return err
	}
	return c.deleteObject(ctx, calURL, obj.Name, etag)
}

// RespondToEvent sets PARTSTAT on the ATTENDEE whose address is the
// account's email (compared case-insensitively, RFC 5545 §3.3.3 leaves
// case to the address scheme and mailboxes compare so in practice) and
// writes the event back with If-Match. Radicale and Xandikos do no RFC
// 6638 scheduling, so this is a local edit there; a scheduling server
// (iCloud) sends the iTIP REPLY itself. An event without the account among
// its attendees is CodeInvalid.
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	c := p.conn(s)
	_, calURL, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return err
	}
	t, err := c.target(ctx, calURL, eventID, s.Email)
	if err != nil {
		return err
	}
	if t.isNew {
		// A new override starts as a copy of the instance.
		e := t.cur
		e.Recurrence, e.IsRecurring = nil, false
		if err := write(t.comp, e, s.Email, p.now()); err != nil {
			return err
		}
	}
	if !setPartStat(t.comp, s.Email, status, p.now()) {
		return &unical.Error{Code: unical.CodeInvalid, Field: "responseStatus", Message: "The account is not an attendee of this event."}
	}
	if !t.instance && t.comp.Props.Get(ical.PropRecurrenceID) == nil {
		// An answer to a series answers its overridden instances too, as
		// they carry attendee lists of their own (RFC 5545 §3.8.4.4).
		for _, ch := range t.obj.Cal.Children {
			if ch != t.comp && ch.Name == ical.CompEvent {
				setPartStat(ch, s.Email, status, p.now())
			}
		}
	}
	data, err := finish(t.obj.Cal)
	if err != nil {
		return err
	}
	_, err = c.putObject(ctx, calURL, t.obj.Name, data, t.obj.ETag)
	return err
}

// target is the VEVENT an event id names inside its resource.
type target struct {
	obj  *object
	comp *ical.Component
	// cur is the event as unical shows it (for an instance without an
	// override, the instance computed from its series).
	cur *unical.Event
	// instance is set for instance ids, with the original start.
	instance bool
	orig     time.Time
	allDay   bool
	// isNew marks an override created here for an instance that had
	// none; it is already in obj.Cal, a copy of the series.
	isNew bool
	// floating is the zone the resource's floating times were read in.
	floating *time.Location
}

// target reads the resource of eventID and finds the VEVENT it names. An
// instance id ("<series>_<original start>") names the series' override
// for that instance, which is made here from the series when there is
// none. An id that only looks like an instance id is tried as a resource
// name when no series answers to it.
func (c *conn) target(ctx context.Context, calURL *url.URL, eventID, self string) (*target, error) {
	seriesID, orig, allDay, perr := recur.ParseInstanceID(eventID)
	if perr != nil {
		obj, err := c.getObject(ctx, calURL, eventID)
		if err != nil {
			return nil, err
		}
		return c.plainTarget(ctx, calURL, obj, eventID, self)
	}
	obj, err := c.getObject(ctx, calURL, seriesID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		if obj, err2 := c.getObject(ctx, calURL, eventID); err2 == nil {
			return c.plainTarget(ctx, calURL, obj, eventID, self)
		}
		return nil, unical.Errorf(unical.CodeNotFound, "Event %q not found.", eventID)
	}
	if err != nil {
		return nil, err
	}
	floating := c.floatingZone(ctx, calURL, obj)
	events, err := objectEvents(obj, self, floating)
	if err != nil {
		return nil, err
	}
	t := &target{obj: obj, instance: true, orig: orig, allDay: allDay, floating: floating}
	for _, e := range events {
		if e.ID == eventID {
			t.comp, t.cur = icalmap.FindOverride(obj.Cal, orig, floating), e
			return t, nil
		}
	}
	master := icalmap.Master(obj.Cal)
	if master == nil {
		return nil, unical.Errorf(unical.CodeNotFound, "Event %q not found.", eventID)
	}
	// The instance has no override, so it starts at its original start:
	// compute it from the series in a one-second window there. A wider
	// window would build every instance of a FREQ=SECONDLY series in it.
	insts, err := unical.ExpandEvents(events, orig, orig.Add(time.Second))
	if err != nil {
		return nil, err
	}
	for _, inst := range insts {
		if inst.ID != eventID {
			continue
		}
		t.cur = inst
		t.comp = cloneAsOverride(master)
		rid, err := icalmap.InstanceValue(obj.Cal, ical.PropRecurrenceID, master, orig, allDay, floating)
		if err != nil {
			return nil, unical.WrapError(unical.CodeUpstream, err, "The series at the CalDAV server cannot be read.")
		}
		t.comp.Props.Set(rid)
		t.isNew = true
		obj.Cal.Children = append(obj.Cal.Children, t.comp)
		return t, nil
	}
	return nil, unical.Errorf(unical.CodeNotFound, "Event %q not found.", eventID)
}

// plainTarget is the target of a resource named by a plain event id: its
// master, or its only VEVENT for a resource that holds just overrides (an
// invitation to one instance).
func (c *conn) plainTarget(ctx context.Context, calURL *url.URL, obj *object, eventID, self string) (*target, error) {
	floating := c.floatingZone(ctx, calURL, obj)
	events, err := objectEvents(obj, self, floating)
	if err != nil {
		return nil, err
	}
	comp := icalmap.Master(obj.Cal)
	cur := events[0]
	for _, e := range events {
		if e.ID == eventIDOf(obj.Name) {
			cur = e
		}
	}
	if comp == nil {
		for _, ch := range obj.Cal.Children {
			if ch.Name == ical.CompEvent {
				comp = ch
				break
			}
		}
	}
	cur.ID = eventID
	return &target{obj: obj, comp: comp, cur: cur, floating: floating}, nil
}

// save writes obj (create or If-Match update) and returns the event id as
// the server now holds it: decoded from what was written when the server
// sends an ETag, else read back, since a server that rewrites data omits
// the ETag (RFC 4791 §5.3.4).
func (c *conn) save(ctx context.Context, calURL *url.URL, obj *object, eventID, self string, create bool) (*unical.Event, error) {
	data, err := finish(obj.Cal)
	if err != nil {
		return nil, err
	}
	etag := ""
	if !create {
		etag = obj.ETag
	}
	newETag, err := c.putObject(ctx, calURL, obj.Name, data, etag)
	if err != nil {
		if create && unical.ErrorCode(err) == unical.CodeInvalid {
			// Radicale answers 409 for a PUT into a collection that does
			// not exist; tell that apart from refused content.
			if _, _, perr := c.propfind(ctx, calURL, "0", propfindCalendars, "get calendar"); unical.ErrorCode(perr) == unical.CodeNotFound {
				return nil, unical.Errorf(unical.CodeNotFound, "Calendar not found.")
			}
		}
		return nil, err
	}
	if newETag == "" {
		t, err := c.target(ctx, calURL, eventID, self)
		if err != nil {
			return nil, err
		}
		return t.cur, nil
	}
	obj.ETag = newETag
	events, err := objectEvents(obj, self, c.floatingZone(ctx, calURL, obj))
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if e.ID == eventID {
			return e, nil
		}
	}
	if t, err := c.plainTarget(ctx, calURL, obj, eventID, self); err == nil {
		return t.cur, nil
	}
	return nil, unical.Errorf(unical.CodeInternal, "Internal error.")
}

// newUID returns a random UID (RFC 5545 §3.8.4.7 recommends a globally
// unique one); it also names the resource, so it is kept to [0-9a-f].
func newUID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// floatingZone returns the zone floating times of obj are read in: the
// calendar's CALDAV:calendar-timezone, which RFC 4791 §5.2.2 says floating
// values are evaluated in, or UTC when it has none. It is asked for only
// when obj has floating times, once per call.
func (c *conn) floatingZone(ctx context.Context, calURL *url.URL, obj *object) *time.Location {
	if !icalmap.HasFloating(obj.Cal) {
		return time.UTC
	}
	if c.floating == nil {
		c.floating = time.UTC
		if _, ms, err := c.propfind(ctx, calURL, "0", propfindCalendarZone, "read calendar time zone"); err == nil {
			for i := range ms.Responses {
				if e, ok := ms.Responses[i].prop(nsCalDAV, "calendar-timezone"); ok {
					if name := timeZoneName(e.Text); name != "" {
						if loc, err := unical.LoadLocation(name); err == nil {
							c.floating = loc
						}
					}
				}
			}
		}
	}
	return c.floating
}

const propfindCalendarZone = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-timezone/></D:prop></D:propfind>`
