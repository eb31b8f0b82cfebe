package imip_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
)

// asError is errors.As for *unical.Error.
func asError(err error, target **unical.Error) bool { return errors.As(err, target) }

// FuzzParse feeds Parse arbitrary mail: it must never panic, every
// refusal is a *unical.Error naming what is wrong, and what it accepts
// has the fields its callers rely on.
func FuzzParse(f *testing.F) {
	f.Add([]byte(googleStyleRequest))
	f.Add([]byte(calendarMessage("text/calendar; method=REPLY", vcal("REPLY", "UID:u1", "ORGANIZER:mailto:o@example.com", "ATTENDEE;PARTSTAT=ACCEPTED:mailto:g@example.org"))))
	m, err := imip.Encode(&imip.Invitation{Method: imip.MethodRequest, Event: meeting(), Organizer: "o@example.com", From: "o@example.com", To: "ann@example.org"}, now)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(m.Data)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := imip.Parse(bytes.NewReader(data))
		if err != nil {
			var ue *unical.Error
			if !asError(err, &ue) || ue.Field == "" {
				t.Fatalf("Parse() error %v names no field", err)
			}
			return
		}
		if in.Method == "" || in.UID == "" || in.Organizer == "" || len(in.Events) == 0 || in.Sequence < 0 {
			t.Fatalf("Parse() accepted an incomplete message: %+v", in)
		}
		if in.Method == imip.MethodReply {
			if addr, _ := in.Reply(); addr == "" || strings.ContainsAny(addr, "\r\n") {
				t.Fatalf("Reply() address %q", addr)
			}
		}
	})
}
