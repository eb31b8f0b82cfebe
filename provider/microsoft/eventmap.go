package microsoft

import (
	"fmt"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
)

// Graph enum values the mapping uses.
const (
	typeSingleInstance = "singleInstance"
	typeOccurrence     = "occurrence"
	typeException      = "exception"
	typeSeriesMaster   = "seriesMaster"

	providerTeams = "teamsForBusiness"
)

// readOptions are what the mapping of a Graph event needs beyond the event.
type readOptions struct {
	// SelfEmail is the session's address; the organizer is isSelf when it
	// matches (case-insensitively) or when Graph says isOrganizer.
	SelfEmail string
	// TimeZone is the IANA zone timed start and end are shown in; "" shows
	// them in the event's own zones (originalStartTimeZone and
	// originalEndTimeZone), or in the response's zone when Graph sends a
	// custom zone.
	TimeZone string
}

// eventFromGraph maps a Graph event to a unical event. A delta tombstone
// becomes an event with only its id and isCancelled. An error means Graph
// sent a value it does not document (a bad date, an unknown zone or
// recurrence); it is CodeUpstream.
func eventFromGraph(g *event, opts readOptions) (*unical.Event, error) {
	if g.Removed != nil {
		return &unical.Event{ID: g.ID, IsCancelled: true}, nil
	}
	upstream := func(err error) error {
		return unical.WrapError(unical.CodeUpstream, err, "Microsoft Graph returned event %q in a form unical cannot read.", g.ID)
	}
	e := &unical.Event{
		ID:          g.ID,
		Title:       g.Subject,
		ETag:        g.ChangeKey,
		IsAllDay:    g.IsAllDay,
		IsCancelled: g.IsCancelled,
		WebLink:     g.WebLink,
		ICalUID:     g.ICalUID,
		EventType:   unical.EventTypeDefault,
	}
	if e.ETag == "" {
		e.ETag = strings.TrimSuffix(strings.TrimPrefix(g.ODataETag, `W/"`), `"`)
	}
	if g.Body != nil {
		e.Description = g.Body.Content
	}
	if g.Location != nil {
		e.Location = g.Location.DisplayName
	}
	var err error
	if e.CreatedAt, err = stamp(g.CreatedDateTime); err != nil {
		return nil, upstream(err)
	}
	if e.UpdatedAt, err = stamp(g.LastModifiedDateTime); err != nil {
		return nil, upstream(err)
	}

	var display *time.Location
	if opts.TimeZone != "" {
		if display, err = unical.LoadLocation(opts.TimeZone); err != nil {
			return nil, unical.FieldError("timeZone", "%q is not an IANA time zone name.", opts.TimeZone)
		}
	}
	startLoc := time.UTC // the series' zone, for recurrence and originalStart
	if g.Start != nil {
		var loc *time.Location
		if e.Start, loc, err = timeFromGraph(g.Start, g.OriginalStartTimeZone, g.IsAllDay, display); err != nil {
			return nil, upstream(err)
		}
		startLoc = loc
	}
	if g.End != nil {
		if e.End, _, err = timeFromGraph(g.End, g.OriginalEndTimeZone, g.IsAllDay, display); err != nil {
			return nil, upstream(err)
		}
	}

	switch g.Type {
	case typeSeriesMaster:
		e.IsRecurring = true
		if e.Recurrence, err = recurrenceFromGraph(g.Recurrence, g.IsAllDay, startLoc); err != nil {
			return nil, upstream(err)
		}
	case typeOccurrence, typeException:
		// As the spec shows for instances: isException true, isRecurring
		// false, for plain occurrences too.
		e.IsException = true
		e.RecurringEventID = g.SeriesMasterID
		if g.OriginalStart != "" {
			t, err := time.Parse(time.RFC3339, g.OriginalStart)
			if err != nil {
				return nil, upstream(fmt.Errorf("microsoft: originalStart %q: %w", g.OriginalStart, err))
			}
			if g.IsAllDay {
				e.OriginalStart = &unical.EventDateTime{Date: t.In(startLoc).Format(unical.DateLayout)}
			} else {
				loc := startLoc
				if display != nil {
					loc = display
				}
				e.OriginalStart = unical.TimedAt(t.In(loc))
			}
		}
	}

	for _, a := range g.Attendees {
		e.Attendees = append(e.Attendees, unical.Attendee{
			Name:           a.EmailAddress.Name,
			Email:          a.EmailAddress.Address,
			ResponseStatus: responseFromGraph(a.Status),
			Optional:       a.Type == "optional",
		})
	}
	if g.Organizer != nil && g.Organizer.EmailAddress.Address != "" {
		e.Organizer = &unical.Organizer{
			Name:   g.Organizer.EmailAddress.Name,
			Email:  g.Organizer.EmailAddress.Address,
			IsSelf: g.IsOrganizer || (opts.SelfEmail != "" && strings.EqualFold(g.Organizer.EmailAddress.Address, opts.SelfEmail)),
		}
	}
	if g.ResponseStatus != nil && g.ResponseStatus.Response != "" {
		e.MyResponseStatus = responseFromGraph(g.ResponseStatus)
	}

	switch g.ShowAs {
	case "free":
		e.Transparency = unical.TransparencyTransparent
	case "":
	default:
		e.Transparency = unical.TransparencyOpaque
	}
	if g.ShowAs == "oof" {
		e.EventType = unical.EventTypeOutOfOffice
	}
	switch g.Sensitivity {
	case "normal":
		e.Visibility = unical.VisibilityDefault
	case "personal", "private":
		e.Visibility = unical.VisibilityPrivate
	case "confidential":
		e.Visibility = unical.VisibilityConfidential
	}

	if g.OnlineMeeting != nil && g.OnlineMeeting.JoinURL != "" {
		e.ConferenceData = conferenceFromGraph(g)
	}
	e.Reminders = &unical.Reminders{}
	if g.IsReminderOn {
		e.Reminders.Overrides = []unical.ReminderOverride{{Method: "popup", Minutes: g.ReminderMinutesBeforeStart}}
	}

	props, err := readExtProps(g)
	if err != nil {
		return nil, err
	}
	e.PublicExtendedProperties, e.PrivateExtendedProperties = nonEmpty(props.Public), nonEmpty(props.Private)
	return e, nil
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// stamp converts Graph's createdDateTime/lastModifiedDateTime (UTC, up to
// seven fractional digits) to unical's timestamp form.
func stamp(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", fmt.Errorf("microsoft: timestamp %q: %w", s, err)
	}
	return unical.FormatTimestamp(t), nil
}

// timeFromGraph maps a start or end. All-day values keep their civil date
// at midnight without a zone, whatever zone Graph rendered them in. Timed
// values are shown in display when set, else in the event's own zone
// (origZone, Windows or IANA), else in the response's zone. It also returns
// the event's own zone, for recurrence and originalStart.
func timeFromGraph(d *dateTimeTimeZone, origZone string, allDay bool, display *time.Location) (*unical.EventDateTime, *time.Location, error) {
	own, _, err := zoneLocation(origZone)
	if err != nil {
		own = nil // a custom or missing zone: fall back to the response's
	}
	if allDay {
		if len(d.DateTime) < 10 {
			return nil, nil, fmt.Errorf("microsoft: all-day dateTime %q", d.DateTime)
		}
		day, err := time.Parse(unical.DateLayout, d.DateTime[:10])
		if err != nil {
			return nil, nil, fmt.Errorf("microsoft: all-day dateTime %q: %w", d.DateTime, err)
		}
		if own == nil {
			own = time.UTC
		}
		return unical.AllDayOn(day), own, nil
	}
	t, err := parseGraphDateTime(d)
	if err != nil {
		return nil, nil, err
	}
	if own == nil {
		own = t.Location()
	}
	show := own
	if display != nil {
		show = display
	}
	return unical.TimedAt(t.In(show)), own, nil
}

// responseFromGraph maps Graph's response values: accepted, declined and
// tentativelyAccepted map to the same answers; organizer counts as
// accepted; none and notResponded are needsAction. Responses spell them in
// camel case ("none" in api/user-list-events.md's example), while
// resources/responsestatus.md lists None, Organizer, TentativelyAccepted,
// Accepted, Declined, NotResponded, so case is ignored.
func responseFromGraph(s *responseStatus) unical.ResponseStatus {
	if s == nil {
		return unical.ResponseNeedsAction
	}
	switch strings.ToLower(s.Response) {
	case "accepted", "organizer":
		return unical.ResponseAccepted
	case "declined":
		return unical.ResponseDeclined
	case "tentativelyaccepted":
		return unical.ResponseTentative
	}
	return unical.ResponseNeedsAction
}

// conferenceNames are display names of Graph's online meeting providers.
var conferenceNames = map[string]string{
	"teamsForBusiness": "Microsoft Teams",
	"skypeForBusiness": "Skype for Business",
	"skypeForConsumer": "Skype",
}

// conferenceFromGraph fills conferenceData from the online meeting.
func conferenceFromGraph(g *event) *unical.ConferenceData {
	provider := g.OnlineMeetingProvider
	if provider == "" || provider == "unknown" {
		provider = providerTeams
	}
	key := &unical.ConferenceSolutionKey{Type: provider}
	entries := []unical.ConferenceEntryPoint{{EntryPointType: "video", URI: g.OnlineMeeting.JoinURL, Label: g.OnlineMeeting.JoinURL}}
	if n := g.OnlineMeeting.TollNumber; n != "" {
		entries = append(entries, unical.ConferenceEntryPoint{EntryPointType: "phone", URI: "tel:" + n, Label: n})
	}
	return &unical.ConferenceData{
		ConferenceID:   g.OnlineMeeting.ConferenceID,
		ConferenceType: provider,
		JoinURL:        g.OnlineMeeting.JoinURL,
		ConferenceDetails: &unical.ConferenceDetails{
			ConferenceID:       g.OnlineMeeting.ConferenceID,
			EntryPoints:        entries,
			ConferenceSolution: &unical.ConferenceSolution{Key: key, Name: conferenceNames[provider]},
		},
	}
}

// graphEventBody builds the JSON body of a create (current nil) or a PATCH
// of current from params: fields params leaves absent are left out, fields
// it sets to null are cleared where Graph allows it. Errors are
// CodeInvalid naming the field (a zone Graph does not know, a recurrence
// Graph cannot express, a meeting provider other than Teams), so nothing is
// written at Graph.
//
// Not in the body: colorId, customColor and conferenceData (refused by
// the capability table), myResponseStatus and isCancelled (event actions,
// sent by UpdateEvent after the PATCH), organizer (Graph's own; another
// one is refused by checkEventParams), creator, webLink and the derived
// fields.
func graphEventBody(p *unical.EventParams, current *unical.Event) (map[string]any, error) {
	body := map[string]any{}
	if v, ok := p.Title.Get(); ok || p.Title.IsNull() {
		body["subject"] = v
	}
	if v, ok := p.Description.Get(); ok || p.Description.IsNull() {
		body["body"] = itemBody{ContentType: bodyType(v), Content: v}
	}
	if v, ok := p.Location.Get(); ok || p.Location.IsNull() {
		body["location"] = location{DisplayName: v}
	}

	allDay := current != nil && current.IsAllDay
	if v, ok := p.IsAllDay.Get(); ok {
		allDay = v
		body["isAllDay"] = v
	}
	var start, end *unical.EventDateTime
	if current != nil {
		start, end = current.Start, current.End
	}
	if v, ok := p.Start.Get(); ok {
		start = &v
	}
	if v, ok := p.End.Get(); ok {
		end = &v
	}
	timesChange := p.Start.IsSet() || p.End.IsSet() || p.IsAllDay.IsSet()
	var seriesStart time.Time
	var seriesZone string
	if start != nil {
		s, zone, err := timeToGraph(start, allDay, "start")
		if err != nil {
			return nil, err
		}
		seriesZone = zone.TimeZone
		if seriesStart, err = parseGraphDateTime(zone); err != nil {
			return nil, unical.FieldError("start.dateTime", "%q is not a date-time Graph can take.", start.DateTime)
		}
		if timesChange {
			body["start"] = s
		}
	}
	if timesChange && start != nil {
		if end == nil || p.End.IsNull() || (current == nil && !p.End.IsSet()) {
			// Graph needs an end: the start for timed events, the next day
			// for all-day ones.
			e := *start
			if allDay {
				day, err := start.Day("start")
				if err != nil {
					return nil, err
				}
				e = *unical.AllDayOn(day.AddDate(0, 0, 1))
				e.TimeZone = start.TimeZone
			}
			end = &e
		}
		en, _, err := timeToGraph(end, allDay, "end")
		if err != nil {
			return nil, err
		}
		body["end"] = en
	}

	lines, ok := p.Recurrence.Get()
	if !p.Recurrence.IsSet() && timesChange && current != nil && current.IsRecurring {
		// Graph keeps the series start in range.startDate: send the
		// recurrence again so that it moves with the start.
		lines, ok = current.Recurrence, true
	}
	if ok && len(lines) > 0 {
		if start == nil {
			return nil, unical.FieldError("start", "a recurring event needs a start.")
		}
		rec, err := recurrenceToGraph(lines, seriesStart, seriesZone, allDay)
		if err != nil {
			return nil, err
		}
		body["recurrence"] = rec
	} else if p.Recurrence.IsSet() || p.Recurrence.IsNull() {
		if current != nil && current.IsRecurring {
			body["recurrence"] = nil
		}
	}

	if p.PublicExtendedProperties.IsSet() || p.PublicExtendedProperties.IsNull() ||
		p.PrivateExtendedProperties.IsSet() || p.PrivateExtendedProperties.IsNull() {
		var props, prev extProps
		if current != nil {
			prev = extProps{Public: current.PublicExtendedProperties, Private: current.PrivateExtendedProperties}
			props = prev
		}
		if p.PublicExtendedProperties.IsSet() || p.PublicExtendedProperties.IsNull() {
			props.Public = p.PublicExtendedProperties.Value()
		}
		if p.PrivateExtendedProperties.IsSet() || p.PrivateExtendedProperties.IsNull() {
			props.Private = p.PrivateExtendedProperties.Value()
		}
		list, err := extPropsBody(props, prev)
		if err != nil {
			return nil, err
		}
		body["singleValueExtendedProperties"] = list
	}

	if v, ok := p.Attendees.Get(); ok || p.Attendees.IsNull() {
		list := make([]attendee, 0, len(v))
		for _, a := range v {
			typ := "required"
			if a.Optional {
				typ = "optional"
			}
			list = append(list, attendee{Type: typ, EmailAddress: emailAddress{Name: a.Name, Address: a.Email}})
		}
		body["attendees"] = list
	}

	if v, ok := p.Visibility.Get(); ok || p.Visibility.IsNull() {
		body["sensitivity"] = sensitivityFor(v)
	}
	if p.Transparency.IsSet() || p.Transparency.IsNull() || p.EventType.IsSet() || p.EventType.IsNull() {
		tr, et := unical.TransparencyOpaque, unical.EventTypeDefault
		if current != nil {
			if current.Transparency != "" {
				tr = current.Transparency
			}
			if current.EventType != "" {
				et = current.EventType
			}
		}
		if p.Transparency.IsSet() || p.Transparency.IsNull() {
			tr = p.Transparency.Value()
		}
		if p.EventType.IsSet() || p.EventType.IsNull() {
			et = p.EventType.Value()
		}
		if et == unical.EventTypeFocusTime {
			return nil, unical.FieldError("eventType", "Microsoft Graph has no focusTime events; use default or outOfOffice.")
		}
		body["showAs"] = showAsFor(tr, et)
	}

	if v, ok := p.Reminders.Get(); ok || p.Reminders.IsNull() {
		switch {
		case len(v.Overrides) > 0:
			min := v.Overrides[0].Minutes
			for _, o := range v.Overrides[1:] {
				if o.Minutes > min {
					min = o.Minutes // the earliest reminder; Graph keeps one
				}
			}
			body["isReminderOn"] = true
			body["reminderMinutesBeforeStart"] = min
		case v.UseDefault:
			body["isReminderOn"] = true
		default:
			body["isReminderOn"] = false
		}
	}

	provider := p.GenerateMeetingURLProvider.Value()
	if cd, ok := p.ConferenceData.Get(); ok && provider == "" && cd.ConferenceDetails != nil &&
		cd.ConferenceDetails.CreateRequest != nil && cd.ConferenceDetails.CreateRequest.ConferenceSolutionKey != nil {
		provider = cd.ConferenceDetails.CreateRequest.ConferenceSolutionKey.Type
		if provider != providerTeams {
			return nil, unical.FieldError("conferenceData", "Microsoft Graph creates only %s meetings.", providerTeams)
		}
	}
	switch provider {
	case "":
	case unical.MeetingProviderTeams:
		body["isOnlineMeeting"] = true
		body["onlineMeetingProvider"] = providerTeams
	default:
		return nil, unical.FieldError("generateMeetingUrlProvider", "Microsoft Graph creates only %s meetings, not %s.", unical.MeetingProviderTeams, provider)
	}
	return body, nil
}

// timeToGraph converts a start or end to Graph. All-day values become
// midnight in their zone (UTC when none is given); timed values become the
// local time in their zone named as Graph wants it (a Windows name). It
// returns the value twice: as a body value and typed.
func timeToGraph(d *unical.EventDateTime, allDay bool, field string) (any, *dateTimeTimeZone, error) {
	zone := d.TimeZone
	if allDay {
		day, err := d.Day(field)
		if err != nil {
			return nil, nil, err
		}
		name, err := graphZoneName(zone, field+".timeZone")
		if err != nil {
			return nil, nil, err
		}
		v := &dateTimeTimeZone{DateTime: day.Format(graphLocalLayout), TimeZone: name}
		return v, v, nil
	}
	t, err := d.Time(field)
	if err != nil {
		return nil, nil, err
	}
	wall, wallLoc := recur.WallOf(d.DateTime, t), t.Location()
	if zone == "" {
		zone = "UTC"
	}
	name, err := graphZoneName(zone, field+".timeZone")
	if err != nil {
		return nil, nil, err
	}
	loc, _, err := zoneLocation(name)
	if err != nil {
		return nil, nil, unical.FieldError(field+".timeZone", "%q is not a time zone Microsoft Graph knows.", zone)
	}
	v := &dateTimeTimeZone{DateTime: formatGraphDateTime(t.In(loc)), TimeZone: name}
	if wallLoc.String() == loc.String() {
		// The wall clock as written, which a time skipped by a DST gap
		// keeps so that a series keeps its time of day.
		v.DateTime = wall.Format(graphLocalLayout)
	}
	return v, v, nil
}

// bodyType guesses the content type of a description: HTML when it starts
// with a tag, text otherwise.
func bodyType(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "<") {
		return "html"
	}
	return "text"
}

// sensitivityFor maps visibility to Graph's sensitivity; Graph has no
// public, so public and default are both normal.
func sensitivityFor(v unical.Visibility) string {
	switch v {
	case unical.VisibilityPrivate:
		return "private"
	case unical.VisibilityConfidential:
		return "confidential"
	}
	return "normal"
}

// showAsFor maps transparency and event type to Graph's showAs.
func showAsFor(tr unical.Transparency, et unical.EventType) string {
	switch {
	case et == unical.EventTypeOutOfOffice:
		return "oof"
	case tr == unical.TransparencyTransparent:
		return "free"
	}
	return "busy"
}
