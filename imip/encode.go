package imip

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// Methods of the iTIP messages this package writes and reads (RFC 5546
// §1.4).
const (
	MethodRequest = "REQUEST"
	MethodCancel  = "CANCEL"
	MethodReply   = "REPLY"
)

// productID is the PRODID of the objects Encode writes.
const productID = "-//unical//imip//EN"

// Invitation is one iTIP message about one event for one recipient.
type Invitation struct {
	// Method is MethodRequest, MethodCancel or MethodReply.
	Method string
	// Event is the event the message is about. For a REQUEST it lists
	// every attendee; for a CANCEL the attendees it tells (the whole list
	// when the event is deleted); for a REPLY only the attendee who
	// answers, with its ResponseStatus. ICalUID is required; OriginalStart
	// set makes the message about that one occurrence (RECURRENCE-ID).
	// Only the fields a guest should see are sent: reminders, colours and
	// extended properties stay home.
	Event *unical.Event
	// Sequence is the event's SEQUENCE (RFC 5545 §3.8.7.4), raised by
	// the organizer on every change guests must act on.
	Sequence int
	// Organizer is the organizer's address and OrganizerName its display
	// name, if any.
	Organizer     string
	OrganizerName string
	// From is the address the message is sent from. When it differs from
	// the address acting in the object (the organizer of a REQUEST or
	// CANCEL, the attendee of a REPLY), that property gets a SENT-BY
	// parameter naming From (RFC 5545 §3.2.18).
	From string
	// To is the recipient's address.
	To string
}

// Message is an encoded iMIP message with its envelope.
type Message struct {
	// From and To are the envelope sender and recipient.
	From, To string
	// Data is the RFC 5322 message, lines ending in CRLF.
	Data []byte
}

// Calendar returns the iTIP object of inv: a VCALENDAR with METHOD and
// one VEVENT (with the VTIMEZONEs its times name), DTSTAMP now.
func Calendar(inv *Invitation, now time.Time) (*ical.Calendar, error) {
	if err := inv.check(); err != nil {
		return nil, err
	}
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropProductID, productID)
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropMethod, inv.Method)
	comp := ical.NewComponent(ical.CompEvent)
	if err := icalmap.Apply(comp, shared(inv), now, ""); err != nil {
		return nil, fmt.Errorf("imip: %w", err)
	}
	seq := ical.NewProp(ical.PropSequence)
	seq.Value = strconv.Itoa(inv.Sequence)
	comp.Props.Set(seq)

	actor := ical.PropOrganizer
	if inv.Method == MethodReply {
		actor = ical.PropAttendee
	}
	for _, p := range comp.Props.Values(actor) {
		if !strings.EqualFold(strings.TrimPrefix(strings.ToLower(p.Value), "mailto:"), inv.From) {
			p.Params.Set(ical.ParamSentBy, "mailto:"+inv.From)
		}
	}
	switch inv.Method {
	case MethodRequest:
		for _, p := range comp.Props.Values(ical.PropAttendee) {
			p.Params.Set(ical.ParamRSVP, "TRUE")
		}
	case MethodCancel:
		// To the recipient the event is gone, whether it was deleted or
		// the recipient was taken off it (RFC 5546 §3.2.5).
		comp.Props.SetText(ical.PropStatus, "CANCELLED")
	}
	cal.Children = append(cal.Children, comp)
	if err := icalmap.AddTimezones(cal); err != nil {
		return nil, fmt.Errorf("imip: %w", err)
	}
	return cal, nil
}

// check refuses an Invitation Encode cannot write.
func (inv *Invitation) check() error {
	switch {
	case inv.Method != MethodRequest && inv.Method != MethodCancel && inv.Method != MethodReply:
		return fmt.Errorf("imip: unknown method %q", inv.Method)
	case inv.Event == nil || inv.Event.ICalUID == "":
		return errors.New("imip: the event has no iCalUID")
	case inv.Event.Start == nil:
		return errors.New("imip: the event has no start")
	case inv.Organizer == "" || inv.From == "" || inv.To == "":
		return errors.New("imip: organizer, from and to are required")
	case inv.Method == MethodReply && len(inv.Event.Attendees) != 1:
		return errors.New("imip: a REPLY names exactly one attendee")
	case inv.Sequence < 0:
		return errors.New("imip: negative sequence")
	}
	return nil
}

// shared returns the part of inv's event a recipient may see, with inv's
// organizer.
func shared(inv *Invitation) *unical.Event {
	e := inv.Event
	return &unical.Event{
		ICalUID:       e.ICalUID,
		Title:         e.Title,
		Description:   e.Description,
		Location:      e.Location,
		Start:         e.Start,
		End:           e.End,
		IsAllDay:      e.IsAllDay,
		Recurrence:    e.Recurrence,
		OriginalStart: e.OriginalStart,
		Attendees:     e.Attendees,
		Transparency:  e.Transparency,
		Visibility:    e.Visibility,
		Organizer:     &unical.Organizer{Email: inv.Organizer, Name: inv.OrganizerName},
	}
}

// Encode writes inv as an iMIP message dated now.
func Encode(inv *Invitation, now time.Time) (*Message, error) {
	cal, err := Calendar(inv, now)
	if err != nil {
		return nil, err
	}
	var ics bytes.Buffer
	if err := ical.NewEncoder(&ics).Encode(cal); err != nil {
		return nil, fmt.Errorf("imip: %w", err)
	}
	text, htmlText := summary(inv)

	var altBody bytes.Buffer
	alt := multipart.NewWriter(&altBody)
	calType := mime.FormatMediaType("text/calendar", map[string]string{"charset": "utf-8", "method": inv.Method})
	parts := []struct {
		header textproto.MIMEHeader
		body   []byte
		qp     bool
	}{
		{textproto.MIMEHeader{"Content-Type": {"text/plain; charset=utf-8"}}, []byte(text), true},
		{textproto.MIMEHeader{"Content-Type": {"text/html; charset=utf-8"}}, []byte(htmlText), true},
		{textproto.MIMEHeader{"Content-Type": {calType}}, ics.Bytes(), false},
	}
	for _, p := range parts {
		if err := writePart(alt, p.header, p.body, p.qp); err != nil {
			return nil, err
		}
	}
	if err := alt.Close(); err != nil {
		return nil, err
	}

	var buf bytes.Buffer
	mixed := multipart.NewWriter(&buf)
	header := func(name, value string) { fmt.Fprintf(&buf, "%s: %s\r\n", name, value) }
	header("From", formatAddress(inv.From))
	header("To", formatAddress(inv.To))
	header("Subject", mime.QEncoding.Encode("utf-8", subject(inv)))
	header("Date", now.UTC().Format(time.RFC1123Z))
	header("Message-ID", messageID(inv.From))
	header("MIME-Version", "1.0")
	header("Content-Type", mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mixed.Boundary()}))
	buf.WriteString("\r\n")
	altPart, err := mixed.CreatePart(textproto.MIMEHeader{
		"Content-Type": {mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": alt.Boundary()})},
	})
	if err != nil {
		return nil, err
	}
	if _, err := altPart.Write(altBody.Bytes()); err != nil {
		return nil, err
	}
	attachment := textproto.MIMEHeader{
		"Content-Type":        {mime.FormatMediaType("application/ics", map[string]string{"name": "invite.ics"})},
		"Content-Disposition": {mime.FormatMediaType("attachment", map[string]string{"filename": "invite.ics"})},
	}
	if err := writePart(mixed, attachment, ics.Bytes(), false); err != nil {
		return nil, err
	}
	if err := mixed.Close(); err != nil {
		return nil, err
	}
	return &Message{From: inv.From, To: inv.To, Data: buf.Bytes()}, nil
}

// writePart writes one leaf part of w: quoted-printable for the summaries,
// base64 for the iCalendar object, whose folded lines and UTF-8 need
// protecting from mail relays.
func writePart(w *multipart.Writer, h textproto.MIMEHeader, body []byte, qp bool) error {
	if qp {
		h.Set("Content-Transfer-Encoding", "quoted-printable")
	} else {
		h.Set("Content-Transfer-Encoding", "base64")
	}
	part, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	if qp {
		q := quotedprintable.NewWriter(part)
		if _, err := q.Write(body); err != nil {
			return err
		}
		return q.Close()
	}
	enc := base64.StdEncoding.EncodeToString(body)
	for len(enc) > 76 {
		if _, err := io.WriteString(part, enc[:76]+"\r\n"); err != nil {
			return err
		}
		enc = enc[76:]
	}
	_, err = io.WriteString(part, enc+"\r\n")
	return err
}

// formatAddress writes a bare address for a header.
func formatAddress(addr string) string { return "<" + addr + ">" }

// messageID returns a new Message-ID in the sender's domain.
func messageID(from string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	domain := "unical.invalid"
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i < len(from)-1 {
		domain = from[i+1:]
	}
	return "<" + hex.EncodeToString(b[:]) + "@" + domain + ">"
}

// subject is the Subject line of inv, in the words mail users know from
// calendar invitations.
func subject(inv *Invitation) string {
	title := inv.Event.Title
	if title == "" {
		title = "(no title)"
	}
	switch inv.Method {
	case MethodCancel:
		return "Cancelled: " + title
	case MethodReply:
		status := "Replied"
		if len(inv.Event.Attendees) == 1 {
			switch inv.Event.Attendees[0].ResponseStatus {
			case unical.ResponseAccepted:
				status = "Accepted"
			case unical.ResponseDeclined:
				status = "Declined"
			case unical.ResponseTentative:
				status = "Tentative"
			}
		}
		return status + ": " + title
	}
	if inv.Sequence > 0 {
		return "Updated invitation: " + title + " @ " + when(inv.Event)
	}
	return "Invitation: " + title + " @ " + when(inv.Event)
}

// summary returns the plain-text and HTML bodies of inv.
func summary(inv *Invitation) (text, htmlText string) {
	e := inv.Event
	rows := [][2]string{{"What", e.Title}, {"When", when(e)}}
	if e.Location != "" {
		rows = append(rows, [2]string{"Where", e.Location})
	}
	rows = append(rows, [2]string{"Organizer", inv.Organizer})
	var guests []string
	for _, a := range e.Attendees {
		guests = append(guests, a.Email)
	}
	if len(guests) > 0 {
		rows = append(rows, [2]string{"Guests", strings.Join(guests, ", ")})
	}
	var t, h strings.Builder
	h.WriteString("<!DOCTYPE html><html><body><p>" + html.EscapeString(subject(inv)) + "</p><table>")
	t.WriteString(subject(inv) + "\r\n\r\n")
	for _, r := range rows {
		fmt.Fprintf(&t, "%s: %s\r\n", r[0], r[1])
		fmt.Fprintf(&h, "<tr><th align=\"left\">%s</th><td>%s</td></tr>", r[0], html.EscapeString(r[1]))
	}
	h.WriteString("</table>")
	if e.Description != "" {
		t.WriteString("\r\n" + e.Description + "\r\n")
		h.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(e.Description), "\n", "<br>") + "</p>")
	}
	h.WriteString("</body></html>\r\n")
	return t.String(), h.String()
}

// when tells an event's time the way a person reads it, in the event's
// own zone.
func when(e *unical.Event) string {
	if e.Start == nil {
		return ""
	}
	if e.IsAllDay || e.Start.DateTime == "" {
		return e.Start.Date + " (all day)"
	}
	start, err := e.Start.Time("start")
	if err != nil {
		return e.Start.DateTime
	}
	s := start.Format("Mon 2 Jan 2006 15:04")
	if e.End != nil {
		if end, err := e.End.Time("end"); err == nil {
			s += " - " + end.In(start.Location()).Format("15:04")
		}
	}
	return s + " (" + start.Location().String() + ")"
}
