package imip

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strconv"
	"strings"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// MaxMessageSize is the largest inbound message Parse reads, in bytes.
const MaxMessageSize = 1 << 20

// Bounds on the MIME tree Parse walks, so a crafted message costs little.
const (
	maxDepth = 8
	maxParts = 64
)

// Inbound is an iTIP message read from mail.
type Inbound struct {
	// From is the address of the From header: who sent the message.
	From string
	// To lists the addresses of the To and Cc headers.
	To []string
	// Method is the object's METHOD (REQUEST, CANCEL, REPLY, ...).
	Method string
	// UID is the UID all its VEVENTs share.
	UID string
	// Sequence is the highest SEQUENCE of its VEVENTs (0 when absent).
	Sequence int
	// Organizer is the address of the ORGANIZER.
	Organizer string
	// Calendar is the whole object; Events its VEVENTs.
	Calendar *ical.Calendar
	Events   []*ical.Component
}

// Reply returns the attendee a REPLY answers for and its PARTSTAT. Parse
// has checked there is exactly one.
func (in *Inbound) Reply() (address string, status unical.ResponseStatus) {
	p := in.Events[0].Props.Get(ical.PropAttendee)
	return Address(p.Value), icalmap.ResponseStatusOf(p.Params.Get(ical.ParamParticipationStatus))
}

// Address returns the lower-case address of a CAL-ADDRESS value
// ("mailto:Ann@Example.com" gives "ann@example.com").
func Address(calAddress string) string {
	v := strings.TrimSpace(calAddress)
	if len(v) >= 7 && strings.EqualFold(v[:7], "mailto:") {
		v = v[7:]
	}
	return strings.ToLower(v)
}

// invalid returns the error Parse answers for bad input: 400 naming
// field, the part of the message that is wrong.
func invalid(field, format string, args ...any) error {
	return unical.FieldError(field, "imip: "+format, args...)
}

// Parse reads one RFC 5322 message from r and returns its iTIP object.
//
// Returns CodeTooLarge for a message over MaxMessageSize, and CodeInvalid
// naming the part that is wrong (message, From, text/calendar, METHOD,
// UID, ORGANIZER, ATTENDEE, SEQUENCE) for anything else it cannot use.
func Parse(r io.Reader) (*Inbound, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxMessageSize+1))
	if err != nil {
		return nil, invalid("message", "the message could not be read.")
	}
	if len(raw) > MaxMessageSize {
		return nil, &unical.Error{Code: unical.CodeTooLarge, Field: "message",
			Message: fmt.Sprintf("imip: the message is larger than %d bytes.", MaxMessageSize)}
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, invalid("message", "the message is not RFC 5322 mail: %v.", err)
	}
	from, err := mail.ParseAddress(msg.Header.Get("From"))
	if err != nil {
		return nil, invalid("From", "the From header holds no address.")
	}
	in := &Inbound{From: strings.ToLower(from.Address)}
	for _, h := range []string{"To", "Cc"} {
		if msg.Header.Get(h) == "" {
			continue
		}
		list, err := msg.Header.AddressList(h)
		if err != nil {
			return nil, invalid(h, "the %s header is malformed.", h)
		}
		for _, a := range list {
			in.To = append(in.To, strings.ToLower(a.Address))
		}
	}
	w := &walker{}
	if err := w.walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, 0); err != nil {
		return nil, err
	}
	if w.found == nil {
		return nil, invalid("text/calendar", "the message has no text/calendar part.")
	}
	// icalmap.Decode turns the decoder's panics on malformed input into
	// errors (FuzzParse found one in a parameter without a value).
	cal, err := icalmap.Decode(bytes.NewReader(w.found))
	if err != nil {
		return nil, invalid("text/calendar", "the calendar part is not iCalendar: %v.", err)
	}
	in.Calendar = cal
	if err := in.read(w.method); err != nil {
		return nil, err
	}
	return in, nil
}

// read fills in's fields from its calendar and checks what RFC 5546
// requires of every method; partMethod is the method parameter of the
// text/calendar part, if any.
func (in *Inbound) read(partMethod string) error {
	cal := in.Calendar
	methods := cal.Props.Values(ical.PropMethod)
	if len(methods) != 1 || methods[0].Value == "" {
		return invalid("METHOD", "the calendar needs exactly one METHOD (RFC 5546 §1.4).")
	}
	in.Method = strings.ToUpper(methods[0].Value)
	if partMethod != "" && !strings.EqualFold(partMethod, in.Method) {
		return invalid("METHOD", "the part's method %q differs from the calendar's METHOD %q (RFC 6047 §2.4).", partMethod, in.Method)
	}
	for _, comp := range cal.Children {
		if comp.Name == ical.CompEvent {
			in.Events = append(in.Events, comp)
		}
	}
	if len(in.Events) == 0 {
		return invalid("text/calendar", "the calendar has no VEVENT.")
	}
	for i, comp := range in.Events {
		uid, err := comp.Props.Text(ical.PropUID)
		if err != nil || uid == "" {
			return invalid("UID", "a VEVENT has no UID.")
		}
		if i == 0 {
			in.UID = uid
		} else if uid != in.UID {
			return invalid("UID", "the VEVENTs have different UIDs; one message is about one event.")
		}
		org := comp.Props.Values(ical.PropOrganizer)
		if len(org) != 1 || Address(org[0].Value) == "" {
			return invalid("ORGANIZER", "a VEVENT needs exactly one ORGANIZER (RFC 5546 §3.2).")
		}
		if i == 0 {
			in.Organizer = Address(org[0].Value)
		} else if Address(org[0].Value) != in.Organizer {
			return invalid("ORGANIZER", "the VEVENTs name different organizers.")
		}
		if p := comp.Props.Get(ical.PropSequence); p != nil {
			n, err := strconv.Atoi(strings.TrimSpace(p.Value))
			if err != nil || n < 0 {
				return invalid("SEQUENCE", "SEQUENCE %q is not a whole number.", p.Value)
			}
			in.Sequence = max(in.Sequence, n)
		}
		if in.Method == MethodReply {
			att := comp.Props.Values(ical.PropAttendee)
			if len(att) != 1 || Address(att[0].Value) == "" {
				return invalid("ATTENDEE", "a REPLY names exactly one ATTENDEE (RFC 5546 §3.2.3).")
			}
			if first := in.Events[0].Props.Get(ical.PropAttendee); Address(first.Value) != Address(att[0].Value) {
				return invalid("ATTENDEE", "the VEVENTs of a REPLY name different attendees.")
			}
		}
	}
	return nil
}

// walker finds the first iCalendar body in a MIME tree: a text/calendar
// part, or failing that an application/ics attachment.
type walker struct {
	parts  int
	found  []byte
	method string
	ics    bool // found is an application/ics attachment
}

func (w *walker) walk(contentType, encoding string, body io.Reader, depth int) error {
	if w.parts++; w.parts > maxParts || depth > maxDepth {
		return invalid("message", "the message has more than %d parts or is nested deeper than %d.", maxParts, maxDepth)
	}
	if contentType == "" {
		contentType = "text/plain"
	}
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return invalid("message", "a Content-Type is malformed: %q.", contentType)
	}
	if strings.HasPrefix(media, "multipart/") {
		if params["boundary"] == "" {
			return invalid("message", "a multipart part has no boundary.")
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return invalid("message", "a multipart body is malformed: %v.", err)
			}
			if err := w.walk(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part, depth+1); err != nil {
				return err
			}
		}
	}
	isCalendar := media == "text/calendar"
	if !isCalendar && (media != "application/ics" || w.found != nil) {
		return nil
	}
	if w.found != nil && !w.ics {
		return nil // the first text/calendar part wins
	}
	if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "us-ascii" {
		return invalid("text/calendar", "charset %q is not supported; iCalendar is UTF-8 (RFC 5545 §3.1.4).", params["charset"])
	}
	data, err := decode(encoding, body)
	if err != nil {
		return err
	}
	w.found, w.method, w.ics = data, params["method"], !isCalendar
	return nil
}

// decode undoes a part's Content-Transfer-Encoding.
func decode(encoding string, body io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, invalid("message", "the calendar part could not be read: %v.", err)
	}
	var r io.Reader
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "7bit", "8bit", "binary":
		return raw, nil
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, &spaceless{r: bytes.NewReader(raw)})
	case "quoted-printable":
		r = quotedprintable.NewReader(bytes.NewReader(raw))
	default:
		return nil, invalid("text/calendar", "Content-Transfer-Encoding %q is unknown.", encoding)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, invalid("text/calendar", "the calendar part's %s encoding is broken.", encoding)
	}
	return data, nil
}

// spaceless drops the line breaks and blanks base64 bodies are wrapped
// with, which encoding/base64 only partly skips.
type spaceless struct{ r io.Reader }

func (s *spaceless) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		j := 0
		for _, c := range p[:n] {
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				p[j] = c
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}
