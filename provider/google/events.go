package google

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"

	"github.com/unical/unical"
	"github.com/unical/unical/ifmatch"
	"github.com/unical/unical/internal/adapter/precondition"
)

// base32hex is the alphabet of client-chosen event ids ([a-v0-9], events
// reference, Event.id).
const base32hex = "0123456789abcdefghijklmnopqrstuv"

// newID returns a random 26-character base32hex id (130 bits).
func newID() string {
	b := make([]byte, 26)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = base32hex[b[i]&31]
	}
	return string(b)
}

func eventsPath(calendarID string) string { return calendarPath(calendarID) + "/events" }
func eventPath(calendarID, eventID string) string {
	return eventsPath(calendarID) + "/" + escapeID(eventID)
}

// writeQuery is the query of every event write: conference data
// support (conferenceDataVersion, events.insert/patch reference).
func writeQuery(s *unical.Session) url.Values {
	q := url.Values{"conferenceDataVersion": {"1"}}
	addSendUpdates(s, q)
	return q
}

// addSendUpdates adds sendUpdates to an insert, patch or delete when the
// caller chose notifyAttendees: all emails every guest, none nobody (the
// values events.insert, patch and delete enumerate in the discovery
// document). Without a choice Google's default applies, as before.
func addSendUpdates(s *unical.Session, q url.Values) url.Values {
	if s.NotifyAttendees != nil {
		q.Set("sendUpdates", map[bool]string{true: "all", false: "none"}[*s.NotifyAttendees])
	}
	return q
}

// getEvent reads one event. Google's events.get also returns cancelled
// events (Event.status reference); for us they are deleted.
func (c *conn) getEvent(ctx context.Context, calendarID, eventID string) (*event, error) {
	if calendarID == "" || eventID == "" {
		return nil, unical.Errorf(unical.CodeNotFound, "Google has no such event.")
	}
	var g event
	if err := c.do(ctx, http.MethodGet, c.api(eventPath(calendarID, eventID), nil), nil, &g); err != nil {
		return nil, err
	}
	if g.Status == "cancelled" {
		return nil, unical.Errorf(unical.CodeNotFound, "The event was deleted at Google.")
	}
	return &g, nil
}

// GetEvent implements [unical.Provider].
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	g, err := p.conn(s).getEvent(ctx, calendarID, eventID)
	if err != nil {
		return nil, err
	}
	return toEvent(g, "", s.Email), nil
}

// CreateEvent implements [unical.Provider]. The event gets an id chosen
// here, so a retried insert whose first attempt reached Google finds the
// event (409 duplicate) instead of creating it twice.
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	if calendarID == "" {
		return nil, unical.Errorf(unical.CodeNotFound, "Google has no such calendar.")
	}
	if err := checkEventParams(params, nil, calendarID, s.Email); err != nil {
		return nil, err
	}
	body, err := eventBody(params, nil, s.Email)
	if err != nil {
		return nil, err
	}
	id := newID()
	body["id"] = id
	c := p.conn(s)
	var g event
	err = c.doWith(ctx, http.MethodPost, c.api(eventsPath(calendarID), writeQuery(s)), callOpts{safe: true}, body, &g)
	if isDuplicate(err) {
		var got *event
		if got, err = c.getEvent(ctx, calendarID, id); err == nil {
			g = *got
		}
	}
	if err != nil {
		return nil, err
	}
	return c.settleConference(ctx, calendarID, s.Email, &g)
}

func isDuplicate(err error) bool {
	var e *unical.Error
	if !errors.As(err, &e) || e.Code != unical.CodeConflict {
		return false
	}
	var ae *APIError
	ok := errors.As(e.Err, &ae)
	return ok && ae.Reason == "duplicate"
}

// settleConference waits briefly for a pending Meet creation: Google
// creates conferences asynchronously and reports createRequest.status
// "pending" until it is done (ConferenceData reference).
func (c *conn) settleConference(ctx context.Context, calendarID, self string, g *event) (*unical.Event, error) {
	for n := 0; n < 3 && pendingConference(g); n++ {
		if err := c.p.sleep(ctx, c.p.backoff(n)); err != nil {
			break
		}
		next, err := c.getEvent(ctx, calendarID, g.ID)
		if err != nil {
			break
		}
		g = next
	}
	return toEvent(g, "", self), nil
}

func pendingConference(g *event) bool {
	cd := g.ConferenceData
	return cd != nil && cd.CreateRequest != nil && cd.CreateRequest.Status != nil && cd.CreateRequest.Status.StatusCode == "pending"
}

// UpdateEvent implements [unical.Provider]. It reads the event first (to
// know whether it is all-day, which extended properties and guests it has,
// and the account's own attendee entry), then patches it conditionally on
// the etag it read, so a concurrent change is CodePrecondition rather than
// lost. A caller's If-Match (package ifmatch) must be that etag.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (_ *unical.Event, err error) {
	defer func() { err = precondition.Name(s.IfMatch, err) }()
	c := p.conn(s)
	cur, err := c.getEvent(ctx, calendarID, eventID)
	if err != nil {
		return nil, err
	}
	if err := precondition.Check(s.IfMatch, cur.Etag); err != nil {
		return nil, err
	}
	if err := checkEventParams(params, cur, calendarID, s.Email); err != nil {
		return nil, err
	}
	body, err := eventBody(params, cur, s.Email)
	if err != nil {
		return nil, err
	}
	g := cur
	if len(body) > 0 {
		g = &event{}
		if err := c.doWith(ctx, http.MethodPatch, c.api(eventPath(calendarID, eventID), writeQuery(s)), callOpts{ifMatch: cur.Etag}, body, g); err != nil {
			return nil, err
		}
	}
	if params.IsCancelled.Value() {
		// Event.status reference: a cancelled event is a deleted one
		// (an instance's is a cancelled exception), and events.delete is
		// how a client makes one. Conditional on the version just read or
		// written, like the patch.
		if err := c.doWith(ctx, http.MethodDelete, c.api(eventPath(calendarID, eventID), addSendUpdates(s, url.Values{})), callOpts{ifMatch: g.Etag}, nil, nil); err != nil {
			return nil, err
		}
		e := toEvent(g, "", s.Email)
		e.IsCancelled = true
		return e, nil
	}
	if len(body) == 0 {
		return toEvent(cur, "", s.Email), nil
	}
	return c.settleConference(ctx, calendarID, s.Email, g)
}

// DeleteEvent implements [unical.Provider]. Deleting a series deletes its
// instances; deleting an instance cancels just that one. An event already
// deleted is CodeNotFound (Google: 410 deleted). A caller's If-Match
// (package ifmatch) goes to Google as If-Match, which makes the delete
// conditional ("Get specific versions of resources": update or delete,
// 412 when the etag changed).
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (err error) {
	defer func() { err = precondition.Name(s.IfMatch, err) }()
	if calendarID == "" || eventID == "" {
		return unical.Errorf(unical.CodeNotFound, "Google has no such event.")
	}
	c := p.conn(s)
	var opts callOpts
	if s.IfMatch != "" {
		opts.ifMatch = ifmatch.Quoted(s.IfMatch)
	}
	return c.doWith(ctx, http.MethodDelete, c.api(eventPath(calendarID, eventID), addSendUpdates(s, url.Values{})), opts, nil, nil)
}

// RespondToEvent implements [unical.Provider] the way the events reference
// describes for attendees: a patch of the event in the account's own
// calendar carrying attendeesOmitted and just the account's own entry
// (the one Google marks self). The organizer is told (sendUpdates=all).
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	c := p.conn(s)
	cur, err := c.getEvent(ctx, calendarID, eventID)
	if err != nil {
		return err
	}
	me := cur.selfAttendee()
	if me == nil {
		return unical.FieldError("responseStatus", "The account is not among the event's attendees, so it cannot respond.")
	}
	body := map[string]any{
		"attendeesOmitted": true,
		"attendees":        []map[string]any{{"email": me.Email, "responseStatus": string(status)}},
	}
	q := url.Values{"sendUpdates": {"all"}}
	return c.do(ctx, http.MethodPatch, c.api(eventPath(calendarID, eventID), q), body, nil)
}
