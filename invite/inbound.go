package invite

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/internal/adapter/icalmap"
	"github.com/unical/unical/internal/adapter/smtpsend"
	"github.com/unical/unical/internal/ids"
)

// inboundPrefix starts the keys of the records of invitations a VIRTUAL
// account received, by the organizer's UID; they share the collection
// with the records of events the account organizes.
const inboundPrefix = "in/"

// Received is the outcome of an inbound message.
type Received struct {
	// Method is the message's iTIP method.
	Method string `json:"method"`
	// UID is the event's UID.
	UID string `json:"uid"`
	// EndUserAccountID, CalendarID and EventID name the event changed.
	EndUserAccountID string `json:"endUserAccountId"`
	CalendarID       string `json:"calendarId"`
	EventID          string `json:"eventId"`
	// Applied is false for a REPLY to an older SEQUENCE: the answer is
	// recorded in the delivery log, the event is left alone.
	Applied bool `json:"applied"`
	// ResponseStatus is the attendee's answer for a REPLY, the room's own
	// (accepted, or declined when busy) for a REQUEST.
	ResponseStatus unical.ResponseStatus `json:"responseStatus,omitempty"`
}

// Receive takes one inbound RFC 5322 message for application appID,
// posted with the application's inbound secret, and acts on its iTIP
// object:
//
//   - REPLY from an invited attendee, for an event an account of the
//     application organizes and invited by mail: the attendee's
//     responseStatus is set (the change reaches webhooks as any other),
//     unless the reply answers an older SEQUENCE, which is only recorded.
//   - REQUEST to a VIRTUAL account among the attendees (a room invited
//     from Google or Outlook): the event is put in its primary calendar,
//     accepted when the time is free and declined when it overlaps a busy
//     event, and a REPLY saying so is queued to the organizer.
//   - CANCEL of such an invitation: the event is removed.
//
// HTTP: POST /v1/imip/{applicationId}
//
// Returns CodeUnauthorized for an unknown application or a wrong secret,
// CodeTooLarge for a message over 1 MB, CodeInvalid naming what is wrong
// for malformed mail or iCalendar, another method, a sender who is not
// the attendee (REPLY) or the organizer (REQUEST, CANCEL), or no VIRTUAL
// account invited; CodeNotFound naming UID for an event it does not know.
// Nothing is changed then.
func Receive(ctx context.Context, c *unical.Client, appID, secret string, body io.Reader) (*Received, error) {
	app, err := c.Application(ctx, appID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil, unical.Errorf(unical.CodeUnauthorized, "Unknown application or wrong inbound secret.")
	}
	if err != nil {
		return nil, err
	}
	if !secretMatches(c, app, secret) {
		return nil, unical.Errorf(unical.CodeUnauthorized, "Unknown application or wrong inbound secret.")
	}
	in, err := imip.Parse(body)
	if err != nil {
		return nil, err
	}
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	r := &receiver{c: c, app: app, a: a, in: in}
	switch in.Method {
	case imip.MethodReply:
		return r.reply(ctx)
	case imip.MethodRequest:
		return r.request(ctx)
	case imip.MethodCancel:
		return r.cancel(ctx)
	}
	return nil, unical.FieldError("METHOD", "imip: METHOD %s is not handled; unical takes REPLY, REQUEST and CANCEL.", in.Method)
}

// secretMatches compares secret with app's inbound secret in constant
// time; false when app has none.
func secretMatches(c *unical.Client, app *unical.Application, secret string) bool {
	set, err := smtpsend.LoadSettings(c, app)
	if err != nil || set == nil || set.InboundSecret == "" || secret == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(set.InboundSecret), []byte(secret)) == 1
}

// receiver handles one parsed inbound message.
type receiver struct {
	c   *unical.Client
	app *unical.Application
	a   *unical.App
	in  *imip.Inbound
}

// accountByEmail returns the application's account with address addr
// among the given provider types, nil when there is none.
func (r *receiver) accountByEmail(ctx context.Context, addr string, types ...unical.ProviderType) (*unical.AccountRecord, error) {
	for _, t := range types {
		recs, err := r.c.Store().ListAccounts(ctx, r.app.ID, unical.AccountFilter{Search: addr, ProviderType: t, Limit: 100})
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if strings.EqualFold(rec.Email, addr) {
				return rec, nil
			}
		}
	}
	return nil, nil
}

// reply applies a guest's REPLY.
func (r *receiver) reply(ctx context.Context) (*Received, error) {
	in := r.in
	acct, err := r.accountByEmail(ctx, in.Organizer, unical.ProviderVirtual, unical.ProviderCalDAV)
	if err != nil {
		return nil, err
	}
	unknown := &unical.Error{Code: unical.CodeNotFound, Field: "UID", Message: "imip: no event with this UID was invited by mail from an account of this application."}
	if acct == nil {
		return nil, unknown
	}
	key, rec, err := r.findOrganized(ctx, acct.ID, in.UID)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.Deleted {
		return nil, unknown
	}
	attendee, status := in.Reply()
	if attendee != in.From {
		return nil, unical.FieldError("From", "imip: the REPLY comes from %s but answers for %s; an attendee answers for itself.", in.From, attendee)
	}
	if !slices.ContainsFunc(rec.Deliveries, func(d *Delivery) bool { return d.Email == attendee }) {
		return nil, unical.FieldError("ATTENDEE", "imip: %s was not invited to this event.", attendee)
	}
	calendarID, eventID, _ := strings.Cut(key, "/")
	out := &Received{Method: in.Method, UID: in.UID, EndUserAccountID: acct.ID, CalendarID: calendarID, EventID: eventID,
		Applied: in.Sequence >= rec.Sequence, ResponseStatus: status}
	if out.Applied {
		e, err := r.a.GetEvent(ctx, acct.ID, calendarID, eventID)
		if err != nil {
			return nil, err
		}
		attendees := slices.Clone(e.Attendees)
		for i := range attendees {
			if strings.EqualFold(attendees[i].Email, attendee) {
				attendees[i].ResponseStatus = status
			}
		}
		if _, err := r.a.UpdateEvent(ctx, acct.ID, calendarID, eventID, &unical.EventParams{Attendees: unical.Some(attendees)}); err != nil {
			return nil, err
		}
	}
	now := r.c.Config().Now().UTC()
	_, err = updateRecord(ctx, r.c.Store(), r.app.ID, acct.ID, key, func(cur *record) (*record, error) {
		if cur == nil {
			return nil, nil
		}
		d := cur.delivery(attendee)
		d.ResponseStatus, d.ReplySequence, d.UpdatedAt = status, in.Sequence, now
		if out.Applied {
			d.Status = StatusReplied
		}
		return cur, nil
	})
	return out, err
}

// findOrganized returns the key and record of the event with uid that
// account organizes; nil when there is none.
func (r *receiver) findOrganized(ctx context.Context, accountID, uid string) (string, *record, error) {
	after := ""
	for {
		recs, err := r.c.Store().ListRecords(ctx, r.app.ID, accountID, collection, "", after, 100)
		if err != nil {
			return "", nil, err
		}
		for _, rec := range recs {
			if strings.HasPrefix(rec.Key, inboundPrefix) {
				continue
			}
			var cur record
			if err := json.Unmarshal(rec.Data, &cur); err == nil && cur.UID == uid {
				return rec.Key, &cur, nil
			}
		}
		if len(recs) < 100 {
			return "", nil, nil
		}
		after = recs[len(recs)-1].Key
	}
}

// checkOrganizer refuses a REQUEST or CANCEL whose sender is neither the
// organizer nor the address the organizer's SENT-BY names.
func (r *receiver) checkOrganizer() error {
	in := r.in
	if in.From == in.Organizer {
		return nil
	}
	if p := in.Events[0].Props.Get(ical.PropOrganizer); p != nil && imip.Address(p.Params.Get(ical.ParamSentBy)) == in.From {
		return nil
	}
	return unical.FieldError("From", "imip: the %s comes from %s, who is not its organizer %s.", in.Method, in.From, in.Organizer)
}

// room returns the VIRTUAL account among the message's attendees (and
// recipients, when the message names any), the first one found.
func (r *receiver) room(ctx context.Context) (*unical.AccountRecord, error) {
	var attendees []string
	for _, p := range r.in.Events[0].Props.Values(ical.PropAttendee) {
		attendees = append(attendees, imip.Address(p.Value))
	}
	for _, addr := range attendees {
		if len(r.in.To) > 0 && !slices.Contains(r.in.To, addr) {
			continue
		}
		acct, err := r.accountByEmail(ctx, addr, unical.ProviderVirtual)
		if err != nil || acct != nil {
			return acct, err
		}
	}
	return nil, unical.FieldError("ATTENDEE", "imip: no VIRTUAL account of this application is an attendee the message is addressed to.")
}

// request books an invitation into a VIRTUAL room and queues its REPLY.
func (r *receiver) request(ctx context.Context) (*Received, error) {
	if err := r.checkOrganizer(); err != nil {
		return nil, err
	}
	room, err := r.room(ctx)
	if err != nil {
		return nil, err
	}
	master := r.in.Events[0]
	for _, ev := range r.in.Events {
		if ev.Props.Get(ical.PropRecurrenceID) == nil {
			master = ev
		}
	}
	e, err := icalmap.ToEvent(master, &icalmap.Options{Self: room.Email, Zones: icalmap.Zones(r.in.Calendar)})
	if err != nil || e.Start == nil || e.End == nil {
		return nil, unical.FieldError("text/calendar", "imip: the REQUEST's VEVENT has no readable DTSTART and DTEND.")
	}
	key := inboundPrefix + r.in.UID
	prev, _, err := readRecord(ctx, r.c.Store(), r.app.ID, room.ID, key)
	if err != nil {
		return nil, err
	}
	if prev != nil && r.in.Sequence < prev.Sequence {
		return nil, unical.FieldError("SEQUENCE", "imip: SEQUENCE %d is older than the %d already booked.", r.in.Sequence, prev.Sequence)
	}
	calendarID := "primary"
	if prev != nil && prev.BookedEventID != "" {
		calendarID = prev.BookedCalendarID
	} else {
		prev = nil
	}
	busy, err := r.busy(ctx, room, calendarID, e, prev)
	if err != nil {
		return nil, err
	}
	answer := unical.ResponseAccepted
	if busy {
		answer = unical.ResponseDeclined
	}
	attendees := slices.Clone(e.Attendees)
	for i := range attendees {
		if strings.EqualFold(attendees[i].Email, room.Email) {
			attendees[i].ResponseStatus = answer
		}
	}
	params := &unical.EventParams{
		Title: unical.Some(e.Title), Description: unical.Some(e.Description), Location: unical.Some(e.Location),
		Start: unical.Some(*e.Start), End: unical.Some(*e.End), Attendees: unical.Some(attendees),
		MyResponseStatus: unical.Some(answer),
	}
	if len(e.Recurrence) > 0 {
		params.IsRecurring, params.Recurrence = unical.Some(true), unical.Some(e.Recurrence)
	}
	if e.Organizer != nil {
		params.Organizer = unical.Some(unical.Organizer{Email: e.Organizer.Email, Name: e.Organizer.Name})
	}
	var booked *unical.Event
	if prev != nil {
		booked, err = r.a.UpdateEvent(ctx, room.ID, prev.BookedCalendarID, prev.BookedEventID, params)
	} else {
		booked, err = r.a.CreateEvent(ctx, room.ID, calendarID, params)
	}
	if err != nil {
		return nil, err
	}
	reply := *e
	reply.ICalUID = r.in.UID
	reply.Attendees = []unical.Attendee{{Email: room.Email, ResponseStatus: answer}}
	now := r.c.Config().Now().UTC()
	_, err = updateRecord(ctx, r.c.Store(), r.app.ID, room.ID, key, func(cur *record) (*record, error) {
		if cur == nil {
			cur = &record{UID: r.in.UID}
		}
		cur.BookedCalendarID, cur.BookedEventID, cur.Sequence, cur.Organizer = calendarID, booked.ID, r.in.Sequence, r.in.Organizer
		cur.Queue = append(cur.Queue, &outgoing{ID: ids.New("inv"), To: r.in.Organizer, Method: imip.MethodReply,
			Sequence: r.in.Sequence, Event: &reply, Organizer: r.in.Organizer, NextAttemptAt: now})
		d := cur.delivery(r.in.Organizer)
		*d = Delivery{Email: r.in.Organizer, Method: imip.MethodReply, Status: StatusPending, Sequence: r.in.Sequence, ResponseStatus: answer, UpdatedAt: now}
		return cur, nil
	})
	if err != nil {
		return nil, err
	}
	return &Received{Method: r.in.Method, UID: r.in.UID, EndUserAccountID: room.ID, CalendarID: calendarID, EventID: booked.ID,
		Applied: true, ResponseStatus: answer}, nil
}

// busy reports whether e overlaps an event of the room's calendar that
// blocks time (not transparent, cancelled or declined), other than the
// booking prev made of the same invitation.
func (r *receiver) busy(ctx context.Context, room *unical.AccountRecord, calendarID string, e *unical.Event, prev *record) (bool, error) {
	start, err := e.Start.Time("start")
	if err != nil {
		return false, unical.FieldError("text/calendar", "imip: DTSTART cannot be read.")
	}
	end, err := e.End.Time("end")
	if err != nil || !end.After(start) {
		return false, unical.FieldError("text/calendar", "imip: DTEND cannot be read or is not after DTSTART.")
	}
	params := &unical.EventListParams{Start: start, End: end, ExpandRecurrences: true}
	for {
		page, err := r.a.ListEvents(ctx, room.ID, calendarID, params)
		if err != nil {
			return false, err
		}
		for _, ev := range page.Data {
			own := prev != nil && (ev.ID == prev.BookedEventID || ev.RecurringEventID == prev.BookedEventID)
			declined := ev.MyResponseStatus == unical.ResponseDeclined || slices.ContainsFunc(ev.Attendees, func(a unical.Attendee) bool {
				return strings.EqualFold(a.Email, room.Email) && a.ResponseStatus == unical.ResponseDeclined
			})
			if own || declined || ev.IsCancelled || ev.Transparency == unical.TransparencyTransparent {
				continue
			}
			if blocks(ev, start, end) {
				return true, nil
			}
		}
		if page.NextPageToken == "" {
			return false, nil
		}
		params.PageToken = page.NextPageToken
	}
}

// blocks reports whether ev's time meets [start, end).
func blocks(ev *unical.Event, start, end time.Time) bool {
	if ev.Start == nil || ev.End == nil {
		return false
	}
	s, err1 := ev.Start.Time("start")
	f, err2 := ev.End.Time("end")
	if err1 != nil || err2 != nil {
		return true // an event we cannot read counts as busy
	}
	return s.Before(end) && f.After(start)
}

// cancel removes a booking the organizer cancelled.
func (r *receiver) cancel(ctx context.Context) (*Received, error) {
	if err := r.checkOrganizer(); err != nil {
		return nil, err
	}
	room, err := r.room(ctx)
	if err != nil {
		return nil, err
	}
	key := inboundPrefix + r.in.UID
	prev, _, err := readRecord(ctx, r.c.Store(), r.app.ID, room.ID, key)
	if err != nil {
		return nil, err
	}
	if prev == nil || prev.BookedEventID == "" {
		return nil, &unical.Error{Code: unical.CodeNotFound, Field: "UID", Message: "imip: no invitation with this UID was booked for the room."}
	}
	if _, err := r.a.DeleteEvent(ctx, room.ID, prev.BookedCalendarID, prev.BookedEventID); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
		return nil, err
	}
	_, err = updateRecord(ctx, r.c.Store(), r.app.ID, room.ID, key, func(cur *record) (*record, error) {
		if cur != nil {
			cur.BookedEventID = ""
		}
		return cur, nil
	})
	if err != nil {
		return nil, err
	}
	return &Received{Method: r.in.Method, UID: r.in.UID, EndUserAccountID: room.ID, CalendarID: prev.BookedCalendarID, EventID: prev.BookedEventID, Applied: true}, nil
}
