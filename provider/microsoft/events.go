package microsoft

import (
	"context"
	"net/url"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/precondition"
)

// eventPath is the path of an event (or instance) within a calendar.
func eventPath(calendarID, eventID string) string {
	return calendarPath(calendarID) + "/events/" + pathID(eventID)
}

// expandQuery asks Graph to return unical's extended property index (and
// the legacy blob), see extprop.go.
func expandQuery() url.Values { return url.Values{"$expand": {expandExtProps}} }

// getEvent reads one event with its extended property.
func (c *client) getEvent(ctx context.Context, calendarID, eventID string) (*event, error) {
	var g event
	if err := c.do(ctx, request{method: "GET", target: eventPath(calendarID, eventID), query: expandQuery()}, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// GetEvent returns one event, or one instance of a series by its id.
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	g, err := p.client(s).getEvent(ctx, calendarID, eventID)
	if err != nil {
		return nil, err
	}
	return eventFromGraph(g, readOptions{SelfEmail: s.Email})
}

// CreateEvent creates an event. Fields Graph cannot express are refused
// with CodeInvalid before anything is written (see graphEventBody).
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	if err := checkEventParams(params, nil, s.Email); err != nil {
		return nil, err
	}
	body, err := graphEventBody(params, nil)
	if err != nil {
		return nil, err
	}
	var g event
	if err := p.client(s).do(ctx, request{method: "POST", target: calendarPath(calendarID) + "/events", body: body}, &g); err != nil {
		return nil, err
	}
	return written(&g, body, nil, s)
}

// UpdateEvent reads the event, then PATCHes what params sets with
// If-Match on the change key it read, so a concurrent change at Graph is
// CodePrecondition rather than lost.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (_ *unical.Event, err error) {
	defer func() { err = precondition.Name(s.IfMatch, err) }()
	c := p.client(s)
	cur, err := c.getEvent(ctx, calendarID, eventID)
	if err != nil {
		return nil, err
	}
	current, err := eventFromGraph(cur, readOptions{SelfEmail: s.Email})
	if err != nil {
		return nil, err
	}
	if err := precondition.Check(s.IfMatch, current.ETag); err != nil {
		return nil, err
	}
	if err := checkEventParams(params, cur, s.Email); err != nil {
		return nil, err
	}
	body, err := graphEventBody(params, current)
	if err != nil {
		return nil, err
	}
	out := current
	if len(body) > 0 {
		// An event written with the legacy blob: this write converts it to
		// per-key properties, so that Graph can filter on them.
		if err := migrateLegacy(body, cur, current); err != nil {
			return nil, err
		}
		req := request{method: "PATCH", target: eventPath(calendarID, eventID), body: body}
		if cur.ChangeKey != "" {
			req.header = map[string]string{"If-Match": `W/"` + cur.ChangeKey + `"`}
		}
		var g event
		if err := c.do(ctx, req, &g); err != nil {
			return nil, err
		}
		if out, err = written(&g, body, current, s); err != nil {
			return nil, err
		}
	}
	return c.act(ctx, s, calendarID, eventID, params, cur.IsOrganizer, out)
}

// act sends what Graph takes as event actions rather than properties,
// after the PATCH: myResponseStatus as accept, tentativelyAccept or
// decline (event-accept, event-tentativelyaccept, event-decline: 202, no
// body), and isCancelled true as cancel (event-cancel: 202, no body, the
// event moves to Deleted Items). checkEventParams has refused what the
// account may not do. out is the event as written so far.
func (c *client) act(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams, organizes bool, out *unical.Event) (*unical.Event, error) {
	if my, ok := params.MyResponseStatus.Get(); ok && my != "" && !organizes && my != out.MyResponseStatus {
		if err := c.do(ctx, request{method: "POST", target: eventPath(calendarID, eventID) + "/" + rsvpActions[my], body: map[string]any{"sendResponse": true}}, nil); err != nil {
			return nil, err
		}
		g, err := c.getEvent(ctx, calendarID, eventID)
		if err != nil {
			return nil, err
		}
		if out, err = eventFromGraph(g, readOptions{SelfEmail: s.Email}); err != nil {
			return nil, err
		}
	}
	if params.IsCancelled.Value() {
		if err := c.do(ctx, request{method: "POST", target: eventPath(calendarID, eventID) + "/cancel", body: map[string]any{}}, nil); err != nil {
			return nil, err
		}
		cancelled := *out
		cancelled.IsCancelled = true
		out = &cancelled
	}
	return out, nil
}

// written maps the answer to a create or PATCH. Graph returns extended
// properties only when expanded, so they are taken from what was written,
// or kept from the current event.
func written(g *event, body map[string]any, current *unical.Event, s *unical.Session) (*unical.Event, error) {
	e, err := eventFromGraph(g, readOptions{SelfEmail: s.Email})
	if err != nil {
		return nil, err
	}
	if props, ok := body["singleValueExtendedProperties"].([]singleValueExtendedProperty); ok {
		g.SingleValueExtendedProperties = props
		if withProps, err := eventFromGraph(g, readOptions{SelfEmail: s.Email}); err == nil {
			e.PublicExtendedProperties, e.PrivateExtendedProperties = withProps.PublicExtendedProperties, withProps.PrivateExtendedProperties
		}
	} else if current != nil {
		e.PublicExtendedProperties, e.PrivateExtendedProperties = current.PublicExtendedProperties, current.PrivateExtendedProperties
	}
	return e, nil
}

// DeleteEvent deletes an event; a series master id deletes the series, an
// instance id removes that occurrence. With a caller's If-Match (package
// ifmatch) the event is read first and its change key compared, and the
// DELETE carries If-Match on it too: event-delete documents no If-Match,
// so whether Graph holds the DELETE to it is UNVERIFIED (the fake does, as
// Graph does for PATCH), and the read makes a stale etag fail either way.
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (err error) {
	defer func() { err = precondition.Name(s.IfMatch, err) }()
	c := p.client(s)
	req := request{method: "DELETE", target: eventPath(calendarID, eventID)}
	if s.IfMatch != "" {
		cur, err := c.getEvent(ctx, calendarID, eventID)
		if err != nil {
			return err
		}
		current, err := eventFromGraph(cur, readOptions{})
		if err != nil {
			return err
		}
		if err := precondition.Check(s.IfMatch, current.ETag); err != nil {
			return err
		}
		if cur.ChangeKey != "" {
			req.header = map[string]string{"If-Match": `W/"` + cur.ChangeKey + `"`}
		}
	}
	return c.do(ctx, req, nil)
}

// rsvpActions are Graph's event actions by response.
var rsvpActions = map[unical.ResponseStatus]string{
	unical.ResponseAccepted:  "accept",
	unical.ResponseTentative: "tentativelyAccept",
	unical.ResponseDeclined:  "decline",
}

// RespondToEvent answers an invitation with accept, tentativelyAccept or
// decline, sending the response to the organizer. Graph cannot take an
// answer back, so needsAction is CodeInvalid; so is an event the account
// organizes or is not invited to.
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	action, ok := rsvpActions[status]
	if !ok {
		return unical.FieldError("responseStatus", "Microsoft Graph cannot reset a response to needsAction; answer accepted, tentative or declined.")
	}
	c := p.client(s)
	g, err := c.getEvent(ctx, calendarID, eventID)
	if err != nil {
		return err
	}
	if g.IsOrganizer {
		return unical.FieldError("responseStatus", "The account organizes this event and cannot respond to it.")
	}
	invited := false
	for _, a := range g.Attendees {
		if strings.EqualFold(a.EmailAddress.Address, s.Email) {
			invited = true
		}
	}
	if !invited && (g.ResponseStatus == nil || g.ResponseStatus.Response == "" || strings.EqualFold(g.ResponseStatus.Response, "organizer")) {
		return unical.FieldError("responseStatus", "The account is not among the event's attendees.")
	}
	return c.do(ctx, request{
		method: "POST", target: eventPath(calendarID, eventID) + "/" + action,
		body: map[string]any{"sendResponse": true},
	}, nil)
}
