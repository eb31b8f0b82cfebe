package imip_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
)

var now = time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)

// meeting is a timed event in Berlin with two guests, carrying fields
// that must not reach them (reminders, private properties).
func meeting() *unical.Event {
	return &unical.Event{
		ICalUID:     "meeting-1@unical.test",
		Title:       "Planning",
		Description: "Agenda\nsecond line",
		Location:    "Room 4",
		Start:       &unical.EventDateTime{DateTime: "2027-03-16T10:00:00", TimeZone: "Europe/Berlin"},
		End:         &unical.EventDateTime{DateTime: "2027-03-16T11:00:00", TimeZone: "Europe/Berlin"},
		Attendees: []unical.Attendee{
			{Email: "ann@example.org", Name: "Ann"},
			{Email: "bob@example.net", ResponseStatus: unical.ResponseAccepted},
		},
		PrivateExtendedProperties: map[string]string{"secret": "x"},
		Reminders:                 &unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 10}}},
	}
}

// parts is what a test reads of an encoded message: the content types of
// its MIME tree in order, and the decoded iCalendar bodies.
type parts struct {
	types     []string
	calendars []string
}

func readParts(t *testing.T, data []byte) (*mail.Message, parts) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ReadMessage: %v", err)
	}
	var got parts
	var walk func(ct string, header map[string][]string, body io.Reader)
	walk = func(ct string, header map[string][]string, body io.Reader) {
		media, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("ParseMediaType(%q): %v", ct, err)
		}
		got.types = append(got.types, media+methodSuffix(params))
		if strings.HasPrefix(media, "multipart/") {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				p, err := mr.NextPart() // decodes quoted-printable
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(p.Header.Get("Content-Type"), p.Header, p)
			}
		}
		b, _ := io.ReadAll(body)
		if media == "text/calendar" || media == "application/ics" {
			if enc := header["Content-Transfer-Encoding"]; len(enc) != 1 || enc[0] != "base64" {
				t.Fatalf("calendar part encoding %v, want base64", enc)
			}
			dec, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(b), "\r\n", ""))
			if err != nil {
				t.Fatal(err)
			}
			got.calendars = append(got.calendars, string(dec))
		}
	}
	walk(msg.Header.Get("Content-Type"), msg.Header, msg.Body)
	return msg, got
}

func methodSuffix(params map[string]string) string {
	if m := params["method"]; m != "" {
		return ";method=" + m
	}
	if n := params["filename"] + params["name"]; n != "" {
		return ";name=" + params["name"]
	}
	return ""
}

func TestEncode_Request(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		from       string
		wantSentBy string
	}{
		{"OK", "room4@example.com", ""},
		{"SentByWhenFromDiffers", "calendar@service.example", "mailto:calendar@service.example"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inv := &imip.Invitation{Method: imip.MethodRequest, Event: meeting(), Sequence: 2,
				Organizer: "room4@example.com", OrganizerName: "Room 4", From: tc.from, To: "ann@example.org"}
			m, err := imip.Encode(inv, now)
			if err != nil {
				t.Fatal(err)
			}
			msg, p := readParts(t, m.Data)
			wantTypes := []string{"multipart/mixed", "multipart/alternative", "text/plain", "text/html",
				"text/calendar;method=REQUEST", "application/ics;name=invite.ics"}
			if diff := cmp.Diff(wantTypes, p.types); diff != "" {
				t.Errorf("MIME tree mismatch (-want +got):\n%s", diff)
			}
			if len(p.calendars) != 2 || p.calendars[0] != p.calendars[1] {
				t.Fatalf("want the same calendar inline and attached, got %q", p.calendars)
			}
			if got, want := msg.Header.Get("To"), "<ann@example.org>"; got != want {
				t.Errorf("To = %q, want %q", got, want)
			}
			subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
			if !strings.HasPrefix(subject, "Updated invitation: Planning @ Tue 16 Mar 2027 10:00 - 11:00") {
				t.Errorf("Subject = %q", subject)
			}
			cal, err := ical.NewDecoder(strings.NewReader(p.calendars[0])).Decode()
			if err != nil {
				t.Fatal(err)
			}
			var ev *ical.Component
			var zones []string
			for _, c := range cal.Children {
				switch c.Name {
				case ical.CompEvent:
					ev = c
				case ical.CompTimezone:
					id, _ := c.Props.Text(ical.PropTimezoneID)
					zones = append(zones, id)
				}
			}
			got := summarize(cal, ev)
			want := map[string]string{
				"METHOD": "REQUEST", "UID": "meeting-1@unical.test", "SEQUENCE": "2",
				"SUMMARY": "Planning", "LOCATION": "Room 4", "DTSTART": "20270316T100000 Europe/Berlin",
				"ORGANIZER":                       "mailto:room4@example.com CN=Room 4 SENT-BY=" + tc.wantSentBy,
				"ATTENDEE mailto:ann@example.org": "CN=Ann PARTSTAT=NEEDS-ACTION RSVP=TRUE",
				"ATTENDEE mailto:bob@example.net": "CN= PARTSTAT=ACCEPTED RSVP=TRUE",
				"VALARM":                          "0", "X-UNICAL-PRIVATE": "",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("VEVENT mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"Europe/Berlin"}, zones); diff != "" {
				t.Errorf("VTIMEZONEs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// summarize returns the properties a recipient's client acts on.
func summarize(cal *ical.Calendar, ev *ical.Component) map[string]string {
	text := func(name string) string {
		p := ev.Props.Get(name)
		if p == nil {
			return ""
		}
		return p.Value
	}
	m := map[string]string{
		"METHOD": cal.Props.Get(ical.PropMethod).Value, "UID": text(ical.PropUID), "SEQUENCE": text(ical.PropSequence),
		"SUMMARY": text(ical.PropSummary), "LOCATION": text(ical.PropLocation),
		"VALARM": strconv.Itoa(len(ev.Children)), "X-UNICAL-PRIVATE": text("X-UNICAL-PRIVATE"),
	}
	if p := ev.Props.Get(ical.PropDateTimeStart); p != nil {
		m["DTSTART"] = p.Value + " " + p.Params.Get(ical.ParamTimezoneID)
	}
	if p := ev.Props.Get(ical.PropOrganizer); p != nil {
		m["ORGANIZER"] = p.Value + " CN=" + p.Params.Get(ical.ParamCommonName) + " SENT-BY=" + p.Params.Get(ical.ParamSentBy)
	}
	for _, p := range ev.Props.Values(ical.PropAttendee) {
		m["ATTENDEE "+p.Value] = "CN=" + p.Params.Get(ical.ParamCommonName) + " PARTSTAT=" + p.Params.Get(ical.ParamParticipationStatus) + " RSVP=" + p.Params.Get(ical.ParamRSVP)
	}
	if s := text(ical.PropStatus); s != "" {
		m["STATUS"] = s
	}
	if p := ev.Props.Get(ical.PropRecurrenceID); p != nil {
		m["RECURRENCE-ID"] = p.Value + " " + p.Params.Get(ical.ParamTimezoneID)
	}
	return m
}

func TestEncode_CancelReplyOccurrence(t *testing.T) {
	t.Parallel()
	occurrence := meeting()
	occurrence.Recurrence = nil
	occurrence.OriginalStart = &unical.EventDateTime{DateTime: "2027-03-16T10:00:00", TimeZone: "Europe/Berlin"}
	occurrence.Start = &unical.EventDateTime{DateTime: "2027-03-16T12:00:00", TimeZone: "Europe/Berlin"}
	occurrence.End = &unical.EventDateTime{DateTime: "2027-03-16T13:00:00", TimeZone: "Europe/Berlin"}
	removed := meeting()
	removed.Attendees = removed.Attendees[:1]
	reply := meeting()
	reply.Attendees = []unical.Attendee{{Email: "room4@example.com", ResponseStatus: unical.ResponseDeclined}}
	tests := []struct {
		name        string
		inv         *imip.Invitation
		wantSubject string
		want        map[string]string // properties compared; others ignored
	}{
		{"Cancel", &imip.Invitation{Method: imip.MethodCancel, Event: removed, Sequence: 3, Organizer: "o@example.com", From: "o@example.com", To: "ann@example.org"},
			"Cancelled: Planning",
			map[string]string{"METHOD": "CANCEL", "SEQUENCE": "3", "STATUS": "CANCELLED", "ATTENDEE mailto:ann@example.org": "CN=Ann PARTSTAT=NEEDS-ACTION RSVP="}},
		{"Reply", &imip.Invitation{Method: imip.MethodReply, Event: reply, Sequence: 1, Organizer: "boss@google.example", From: "rooms@example.com", To: "boss@google.example"},
			"Declined: Planning",
			map[string]string{"METHOD": "REPLY", "SEQUENCE": "1", "ORGANIZER": "mailto:boss@google.example CN= SENT-BY=",
				"ATTENDEE mailto:room4@example.com": "CN= PARTSTAT=DECLINED RSVP="}},
		{"Occurrence", &imip.Invitation{Method: imip.MethodRequest, Event: occurrence, Sequence: 1, Organizer: "o@example.com", From: "o@example.com", To: "ann@example.org"},
			"Updated invitation: Planning @ Tue 16 Mar 2027 12:00 - 13:00 (Europe/Berlin)",
			map[string]string{"METHOD": "REQUEST", "RECURRENCE-ID": "20270316T100000 Europe/Berlin", "DTSTART": "20270316T120000 Europe/Berlin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := imip.Encode(tc.inv, now)
			if err != nil {
				t.Fatal(err)
			}
			msg, p := readParts(t, m.Data)
			subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
			if subject != tc.wantSubject {
				t.Errorf("Subject = %q, want %q", subject, tc.wantSubject)
			}
			cal, err := ical.NewDecoder(strings.NewReader(p.calendars[0])).Decode()
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(cal, cal.Events()[0].Component)
			for k := range got {
				if _, ok := tc.want[k]; !ok {
					delete(got, k)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("VEVENT mismatch (-want +got):\n%s", diff)
			}
			if tc.inv.Method == imip.MethodReply {
				att := cal.Events()[0].Props.Get(ical.PropAttendee)
				if got, want := att.Params.Get(ical.ParamSentBy), "mailto:rooms@example.com"; got != want {
					t.Errorf("REPLY ATTENDEE SENT-BY = %q, want %q", got, want)
				}
			}
		})
	}
}

func TestEncode_ErrInvalid(t *testing.T) {
	t.Parallel()
	noUID := meeting()
	noUID.ICalUID = ""
	tests := []struct {
		name string
		inv  *imip.Invitation
	}{
		{"UnknownMethod", &imip.Invitation{Method: "PUBLISH", Event: meeting(), Organizer: "o@x", From: "o@x", To: "a@x"}},
		{"NoUID", &imip.Invitation{Method: imip.MethodRequest, Event: noUID, Organizer: "o@x", From: "o@x", To: "a@x"}},
		{"NoRecipient", &imip.Invitation{Method: imip.MethodRequest, Event: meeting(), Organizer: "o@x", From: "o@x"}},
		{"ReplyOfTwo", &imip.Invitation{Method: imip.MethodReply, Event: meeting(), Organizer: "o@x", From: "o@x", To: "a@x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := imip.Encode(tc.inv, now); err == nil {
				t.Fatal("Encode() succeeded, want an error")
			}
		})
	}
}
