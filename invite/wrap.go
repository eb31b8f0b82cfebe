package invite

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/internal/ids"
)

// Scheduler is a provider whose server may send invitations itself: a
// CalDAV server with RFC 6638 scheduling (caldav.Provider.Schedules).
// Writes to a calendar it schedules pass through untouched.
type Scheduler interface {
	Schedules(ctx context.Context, s *unical.Session, calendarID string) (bool, error)
}

// Config is what [Wrap] needs.
type Config struct {
	// Store holds the applications (their mail settings) and the
	// invitation records.
	Store unical.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Wakeup, when set, is told when invitations were queued, so that a
	// [Sender] in this process sends them at once; [NewSender] finds it
	// on the Client's wrapped providers.
	Wakeup Wakeup
}

// Wakeup tells a [Sender] that invitations were queued.
type Wakeup chan struct{}

// NewWakeup returns a Wakeup for [Config] and [SenderConfig].
func NewWakeup() Wakeup { return make(Wakeup, 1) }

// notify wakes the sender, or leaves a wake-up it has not taken yet.
func (w Wakeup) notify() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// Provider is a provider wrapped by [Wrap].
type Provider struct {
	unical.Provider
	cfg Config
}

// Wrap returns p with invitations mailed for its event writes made with
// notifyAttendees=true, for providers that send none themselves:
// VIRTUAL, and CalDAV where the server does not schedule. The write
// itself goes to p with notifyAttendees=false (a CalDAV server gets
// SCHEDULE-AGENT=CLIENT: the client, unical, schedules), then one
// message per attendee is queued for the [Sender].
//
// Wrap is for providers whose optional interfaces are at most
// [unical.CapabilityReporter], [kit.SettingsChecker] and
// [unical.SeriesSplitter]; others are hidden by the wrapper.
func Wrap(p unical.Provider, cfg Config) *Provider {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Provider{Provider: p, cfg: cfg}
}

// Unwrap returns the wrapped provider.
func (w *Provider) Unwrap() unical.Provider { return w.Provider }

// Capabilities declares notifyAttendees=true as supported, with the
// wrapped provider's other capabilities.
func (w *Provider) Capabilities() unical.Capabilities {
	var caps unical.Capabilities
	if r, ok := w.Provider.(unical.CapabilityReporter); ok {
		caps = r.Capabilities()
	}
	params := maps.Clone(caps.Parameters)
	if params == nil {
		params = map[string]unical.ParameterSupport{}
	}
	ps := params[unical.NotifyAttendeesParameter]
	ps.Values = maps.Clone(ps.Values)
	if ps.Values == nil {
		ps.Values = map[string]unical.FieldSupport{}
	}
	ps.Values["true"] = unical.FieldSupport{Support: unical.Supported,
		Note: "Each attendee is emailed an iMIP invitation (RFC 6047) through the application's mail settings; refused when the application has none. A CalDAV server that schedules itself (RFC 6638) sends them instead. See docs/scheduling.md."}
	params[unical.NotifyAttendeesParameter] = ps
	caps.Parameters = params
	return caps
}

// SplitSeries forwards to the wrapped provider. A split sends no
// invitations: with notifyAttendees=true it is made with false, as the
// writes unical mails for are.
func (w *Provider) SplitSeries(ctx context.Context, s *unical.Session, calendarID string, req *unical.SeriesSplit) (*unical.Event, error) {
	sp, ok := w.Provider.(unical.SeriesSplitter)
	if !ok {
		return nil, unical.Errorf(unical.CodeNotImplemented, "This provider cannot split a series.")
	}
	app, err := w.mailing(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	if app != nil {
		s = quiet(s)
	}
	return sp.SplitSeries(ctx, s, calendarID, req)
}

// quiet returns a copy of s whose writes email no one: unical sends the
// invitations itself.
func quiet(s *unical.Session) *unical.Session {
	q := *s
	no := false
	q.NotifyAttendees = &no
	return &q
}

// mailing returns the application's settings when the write of s asks
// for invitations that unical must send: nil when it does not
// (notifyAttendees absent or false, or a scheduling CalDAV server sends
// them). Returns CodeInvalid naming notifyAttendees when the application
// has no mail settings.
func (w *Provider) mailing(ctx context.Context, s *unical.Session, calendarID string) (*unical.Application, error) {
	if s.NotifyAttendees == nil || !*s.NotifyAttendees {
		return nil, nil
	}
	if sch, ok := w.Provider.(Scheduler); ok {
		itself, err := sch.Schedules(ctx, s, calendarID)
		if err != nil || itself {
			return nil, err
		}
	}
	app, err := w.cfg.Store.GetApplication(ctx, s.ApplicationID)
	if err != nil {
		return nil, err
	}
	if app.SealedMail == nil {
		return nil, unical.FieldError(unical.NotifyAttendeesParameter,
			"notifyAttendees=true needs the application's mail settings, which are not set: attendees of %s accounts are emailed through them (docs/operations.md).", w.Type())
	}
	return app, nil
}

// CreateEvent creates the event and, with notifyAttendees=true, queues a
// REQUEST for each attendee.
func (w *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	app, err := w.mailing(ctx, s, calendarID)
	if err != nil || app == nil {
		if err != nil {
			return nil, err
		}
		return w.Provider.CreateEvent(ctx, s, calendarID, params)
	}
	e, err := w.Provider.CreateEvent(ctx, quiet(s), calendarID, params)
	if err != nil {
		return nil, err
	}
	return e, w.queue(ctx, app, s, calendarID, nil, e)
}

// UpdateEvent changes the event and, with notifyAttendees=true, queues a
// REQUEST for each attendee (SEQUENCE raised when time, place, title,
// recurrence or attendees changed) and a CANCEL for each one removed.
func (w *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	app, err := w.mailing(ctx, s, calendarID)
	if err != nil || app == nil {
		if err != nil {
			return nil, err
		}
		return w.Provider.UpdateEvent(ctx, s, calendarID, eventID, params)
	}
	old, err := w.Provider.GetEvent(ctx, s, calendarID, eventID)
	if err != nil {
		return nil, err
	}
	e, err := w.Provider.UpdateEvent(ctx, quiet(s), calendarID, eventID, params)
	if err != nil {
		return nil, err
	}
	return e, w.queue(ctx, app, s, calendarID, old, e)
}

// DeleteEvent deletes the event and, with notifyAttendees=true, queues a
// CANCEL for each attendee.
func (w *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) error {
	app, err := w.mailing(ctx, s, calendarID)
	if err != nil || app == nil {
		if err != nil {
			return err
		}
		return w.Provider.DeleteEvent(ctx, s, calendarID, eventID)
	}
	old, err := w.Provider.GetEvent(ctx, s, calendarID, eventID)
	if err != nil {
		return err
	}
	if err := w.Provider.DeleteEvent(ctx, quiet(s), calendarID, eventID); err != nil {
		return err
	}
	return w.queue(ctx, app, s, calendarID, old, nil)
}

// queue records the messages that the write from old to e (nil for a
// create, e nil for a delete) sends, and wakes the sender.
func (w *Provider) queue(ctx context.Context, app *unical.Application, s *unical.Session, calendarID string, old, e *unical.Event) error {
	cur := e
	if cur == nil {
		cur = old
	}
	seriesID, occurrence := cur.ID, cur.RecurringEventID != "" && cur.OriginalStart != nil
	if occurrence {
		seriesID = cur.RecurringEventID
	}
	organizer := strings.ToLower(s.Email)
	now := w.cfg.Now().UTC()
	_, err := updateRecord(ctx, w.cfg.Store, app.ID, s.AccountID, recordKey(calendarID, seriesID), func(r *record) (*record, error) {
		if r == nil {
			r = &record{UID: cur.ICalUID, Organizer: organizer}
		}
		return r, plan(r, organizer, old, e, occurrence, now)
	})
	if err == nil && w.cfg.Wakeup != nil {
		w.cfg.Wakeup.notify()
	}
	return err
}

// plan adds to r the messages of the write from old to e, and the
// deliveries they start.
func plan(r *record, organizer string, old, e *unical.Event, occurrence bool, now time.Time) error {
	var removed []string
	var told []string
	var sent *unical.Event // the event the messages describe
	switch {
	case e == nil: // deleted: everyone told is cancelled
		r.Sequence++
		r.Deleted = !occurrence
		sent = old
		removed = attendeeAddresses(old, organizer)
	default:
		sent = e
		snap := snapshotOf(e)
		prev := r.Sent
		if occurrence {
			if r.Occurrences == nil {
				r.Occurrences = map[string]*snapshot{}
			}
			key := e.OriginalStart.DateTime + e.OriginalStart.Date
			prev = r.Occurrences[key]
			if prev == nil && old != nil {
				prev = snapshotOf(old)
			}
			r.Occurrences[key] = snap
		} else {
			r.Sent = snap
		}
		if prev != nil && prev.changed(snap) {
			r.Sequence++
		}
		told = attendeeAddresses(e, organizer)
		if prev != nil {
			for _, a := range prev.Attendees {
				if a != organizer && !slices.Contains(told, a) {
					removed = append(removed, a)
				}
			}
		}
	}
	inv := func(method, to string, ev *unical.Event) error {
		// Encoding now refuses an event no message can carry before
		// anything is queued; the sender encodes again with the From of
		// the moment.
		if _, err := imip.Calendar(&imip.Invitation{Method: method, Event: ev, Organizer: organizer, From: organizer, To: to}, now); err != nil {
			return unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		r.Queue = append(r.Queue, &outgoing{ID: ids.New("inv"), To: to, Method: method, Sequence: r.Sequence, Event: ev, Organizer: organizer, NextAttemptAt: now})
		d := r.delivery(to)
		// The attendee's last answer stays, with the SEQUENCE it was for.
		*d = Delivery{Email: to, Method: method, Status: StatusPending, Sequence: r.Sequence, UpdatedAt: now,
			ResponseStatus: d.ResponseStatus, ReplySequence: d.ReplySequence}
		return nil
	}
	for _, to := range told {
		if err := inv(imip.MethodRequest, to, sent); err != nil {
			return err
		}
	}
	for _, to := range removed {
		ev := *sent
		if e != nil {
			// A CANCEL to a removed attendee names that attendee only
			// (RFC 5546 §3.2.5).
			ev.Attendees = []unical.Attendee{{Email: to}}
		}
		if err := inv(imip.MethodCancel, to, &ev); err != nil {
			return err
		}
	}
	return nil
}
