package imip_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
)

// googleStyleRequest is an invitation in the shape large calendar
// services mail: the object inline in multipart/alternative (here
// 7bit), again as an application/ics attachment, and the organizer among
// the attendees.
const googleStyleRequest = "From: Boss <Boss@Google.Example>\r\n" +
	"To: room4@rooms.example, Other <other@example.org>\r\n" +
	"Cc: cc@example.org\r\n" +
	"Subject: Invitation: Review\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"outer\"\r\n" +
	"\r\n" +
	"--outer\r\n" +
	"Content-Type: multipart/alternative; boundary=\"inner\"\r\n" +
	"\r\n" +
	"--inner\r\n" +
	"Content-Type: text/plain; charset=\"UTF-8\"\r\n" +
	"\r\n" +
	"You have been invited.\r\n" +
	"--inner\r\n" +
	"Content-Type: text/calendar; charset=\"UTF-8\"; method=REQUEST\r\n" +
	"Content-Transfer-Encoding: 7bit\r\n" +
	"\r\n" +
	"BEGIN:VCALENDAR\r\n" +
	"PRODID:-//Example//Calendar//EN\r\n" +
	"VERSION:2.0\r\n" +
	"METHOD:REQUEST\r\n" +
	"BEGIN:VEVENT\r\n" +
	"DTSTART:20270316T090000Z\r\n" +
	"DTEND:20270316T100000Z\r\n" +
	"DTSTAMP:20270301T090000Z\r\n" +
	"ORGANIZER;CN=Boss:mailto:boss@google.example\r\n" +
	"UID:review-7@google.example\r\n" +
	"ATTENDEE;CUTYPE=RESOURCE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:room4@rooms.example\r\n" +
	"ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:boss@google.example\r\n" +
	"SEQUENCE:4\r\n" +
	"SUMMARY:Review\r\n" +
	"END:VEVENT\r\n" +
	"END:VCALENDAR\r\n" +
	"--inner--\r\n" +
	"--outer\r\n" +
	"Content-Type: application/ics; name=\"invite.ics\"\r\n" +
	"Content-Disposition: attachment; filename=\"invite.ics\"\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"QkVHSU46VkNBTEVOREFSDQpFTkQ6VkNBTEVOREFSDQo=\r\n" +
	"--outer--\r\n"

func TestParse_GoogleStyleRequest(t *testing.T) {
	t.Parallel()
	in, err := imip.Parse(strings.NewReader(googleStyleRequest))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"From": in.From, "To": in.To, "Method": in.Method, "UID": in.UID,
		"Sequence": in.Sequence, "Organizer": in.Organizer, "Events": len(in.Events)}
	want := map[string]any{"From": "boss@google.example", "To": []string{"room4@rooms.example", "other@example.org", "cc@example.org"},
		"Method": "REQUEST", "UID": "review-7@google.example", "Sequence": 4, "Organizer": "boss@google.example", "Events": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
	}
}

// TestParse_RoundTrip reads back what Encode writes, for each method.
func TestParse_RoundTrip(t *testing.T) {
	t.Parallel()
	reply := meeting()
	reply.Attendees = []unical.Attendee{{Email: "Ann@Example.org", ResponseStatus: unical.ResponseTentative}}
	tests := []struct {
		name       string
		inv        *imip.Invitation
		wantStatus unical.ResponseStatus
	}{
		{"Request", &imip.Invitation{Method: imip.MethodRequest, Event: meeting(), Sequence: 1, Organizer: "o@example.com", From: "o@example.com", To: "ann@example.org"}, ""},
		{"Cancel", &imip.Invitation{Method: imip.MethodCancel, Event: meeting(), Sequence: 2, Organizer: "o@example.com", From: "o@example.com", To: "ann@example.org"}, ""},
		{"Reply", &imip.Invitation{Method: imip.MethodReply, Event: reply, Sequence: 1, Organizer: "o@example.com", From: "ann@example.org", To: "o@example.com"}, unical.ResponseTentative},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := imip.Encode(tc.inv, now)
			if err != nil {
				t.Fatal(err)
			}
			in, err := imip.Parse(bytes.NewReader(m.Data))
			if err != nil {
				t.Fatal(err)
			}
			got := []any{in.Method, in.UID, in.Sequence, in.Organizer, in.From}
			want := []any{tc.inv.Method, "meeting-1@unical.test", tc.inv.Sequence, "o@example.com", tc.inv.From}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
			if tc.wantStatus != "" {
				addr, status := in.Reply()
				if addr != "ann@example.org" || status != tc.wantStatus {
					t.Errorf("Reply() = %q, %q; want ann@example.org, %q", addr, status, tc.wantStatus)
				}
			}
		})
	}
}

// calendarMessage wraps an iCalendar body in a one-part message.
func calendarMessage(contentType, body string) string {
	return "From: guest@example.org\r\nTo: o@example.com\r\nContent-Type: " + contentType + "\r\n\r\n" + body
}

// vcal returns a VCALENDAR whose VEVENT has the given lines.
func vcal(method string, lines ...string) string {
	s := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n"
	if method != "" {
		s += "METHOD:" + method + "\r\n"
	}
	s += "BEGIN:VEVENT\r\nDTSTAMP:20270301T090000Z\r\nDTSTART:20270316T090000Z\r\n"
	for _, l := range lines {
		s += l + "\r\n"
	}
	return s + "END:VEVENT\r\nEND:VCALENDAR\r\n"
}

func TestParse_ErrInvalid(t *testing.T) {
	t.Parallel()
	ok := []string{"UID:u1", "ORGANIZER:mailto:o@example.com", "ATTENDEE;PARTSTAT=ACCEPTED:mailto:guest@example.org"}
	tests := []struct {
		name      string
		msg       string
		wantCode  unical.Code
		wantField string
	}{
		{"TooLarge", calendarMessage("text/calendar", strings.Repeat("x", imip.MaxMessageSize)), unical.CodeTooLarge, "message"},
		{"NotMail", "no header line here", unical.CodeInvalid, "message"},
		{"NoFrom", "To: o@example.com\r\nContent-Type: text/calendar\r\n\r\n" + vcal("REPLY", ok...), unical.CodeInvalid, "From"},
		{"BadTo", "From: g@example.org\r\nTo: <<<\r\nContent-Type: text/calendar\r\n\r\n" + vcal("REPLY", ok...), unical.CodeInvalid, "To"},
		{"NoCalendar", calendarMessage("text/plain", "hello"), unical.CodeInvalid, "text/calendar"},
		{"BadContentType", calendarMessage("text/calendar; ===", vcal("REPLY", ok...)), unical.CodeInvalid, "message"},
		{"MultipartWithoutBoundary", calendarMessage("multipart/mixed", "x"), unical.CodeInvalid, "message"},
		{"BrokenMultipart", calendarMessage("multipart/mixed; boundary=b", "--b\r\nContent-Type: text/calendar\r\n\r\n"+vcal("REPLY", ok...)), unical.CodeInvalid, "message"},
		{"NotICalendar", calendarMessage("text/calendar", "BEGIN:VCALENDAR\r\nnonsense"), unical.CodeInvalid, "text/calendar"},
		{"BadCharset", calendarMessage("text/calendar; charset=koi8-r", vcal("REPLY", ok...)), unical.CodeInvalid, "text/calendar"},
		{"BadBase64", "From: g@example.org\r\nContent-Type: text/calendar\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!\r\n", unical.CodeInvalid, "text/calendar"},
		{"UnknownEncoding", "From: g@example.org\r\nContent-Type: text/calendar\r\nContent-Transfer-Encoding: x-rot13\r\n\r\n" + vcal("REPLY", ok...), unical.CodeInvalid, "text/calendar"},
		{"NoMethod", calendarMessage("text/calendar", vcal("", ok...)), unical.CodeInvalid, "METHOD"},
		{"MethodDiffers", calendarMessage("text/calendar; method=REQUEST", vcal("REPLY", ok...)), unical.CodeInvalid, "METHOD"},
		{"NoEvent", calendarMessage("text/calendar", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nMETHOD:REPLY\r\nBEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"), unical.CodeInvalid, "text/calendar"},
		{"NoUID", calendarMessage("text/calendar", vcal("REPLY", ok[1:]...)), unical.CodeInvalid, "UID"},
		{"NoOrganizer", calendarMessage("text/calendar", vcal("REPLY", ok[0], ok[2])), unical.CodeInvalid, "ORGANIZER"},
		{"BadSequence", calendarMessage("text/calendar", vcal("REPLY", append([]string{"SEQUENCE:two"}, ok...)...)), unical.CodeInvalid, "SEQUENCE"},
		{"ReplyWithoutAttendee", calendarMessage("text/calendar", vcal("REPLY", ok[:2]...)), unical.CodeInvalid, "ATTENDEE"},
		{"ReplyOfTwo", calendarMessage("text/calendar", vcal("REPLY", append([]string{"ATTENDEE:mailto:x@example.org"}, ok...)...)), unical.CodeInvalid, "ATTENDEE"},
		{"TwoUIDs", calendarMessage("text/calendar", strings.Replace(vcal("REPLY", ok...), "END:VCALENDAR", "BEGIN:VEVENT\r\nUID:u2\r\nDTSTAMP:20270301T090000Z\r\nORGANIZER:mailto:o@example.com\r\nATTENDEE:mailto:guest@example.org\r\nEND:VEVENT\r\nEND:VCALENDAR", 1)), unical.CodeInvalid, "UID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := imip.Parse(strings.NewReader(tc.msg))
			var ue *unical.Error
			if !asError(err, &ue) {
				t.Fatalf("Parse() error = %v, want *unical.Error", err)
			}
			if ue.Code != tc.wantCode || ue.Field != tc.wantField {
				t.Errorf("Parse() = %s field %q (%s), want %s field %q", ue.Code, ue.Field, ue.Message, tc.wantCode, tc.wantField)
			}
		})
	}
}

func TestParse_ReplyOK(t *testing.T) {
	t.Parallel()
	msg := calendarMessage("text/calendar; method=REPLY", vcal("REPLY", "UID:u1", "SEQUENCE:3",
		"ORGANIZER:mailto:o@example.com", "ATTENDEE;PARTSTAT=DECLINED:MAILTO:Guest@Example.org"))
	in, err := imip.Parse(strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	addr, status := in.Reply()
	if diff := cmp.Diff([]any{"guest@example.org", unical.ResponseDeclined, 3}, []any{addr, status, in.Sequence}); diff != "" {
		t.Errorf("Reply() mismatch (-want +got):\n%s", diff)
	}
}
