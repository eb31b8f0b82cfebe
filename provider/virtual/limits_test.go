package virtual

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
)

// TestEventSizeBounds refuses a VIRTUAL event's field past its bound with
// CodeInvalid naming the field, on create and on update, and keeps
// nothing of the refused write; a field at its bound is kept.
func TestEventSizeBounds(t *testing.T) {
	t.Parallel()
	attendees := func(n int) []unical.Attendee {
		out := make([]unical.Attendee, n)
		for i := range out {
			out[i] = unical.Attendee{Email: fmt.Sprintf("guest%d@example.com", i)}
		}
		return out
	}
	props := func(n, valueLen int) map[string]string {
		out := map[string]string{}
		for i := range n {
			out[fmt.Sprintf("k%d", i)] = strings.Repeat("v", valueLen)
		}
		return out
	}
	tests := []struct {
		name  string
		set   func(p *unical.EventParams, over int)
		field string
	}{
		{"title", func(p *unical.EventParams, over int) {
			p.Title = unical.Some(strings.Repeat("é", eventbook.MaxTitle+over))
		}, "title"},
		{"description", func(p *unical.EventParams, over int) {
			p.Description = unical.Some(strings.Repeat("d", eventbook.MaxDescription+over))
		}, "description"},
		{"location", func(p *unical.EventParams, over int) {
			p.Location = unical.Some(strings.Repeat("l", eventbook.MaxLocation+over))
		}, "location"},
		{"attendees", func(p *unical.EventParams, over int) {
			p.Attendees = unical.Some(attendees(eventbook.MaxAttendees + over))
		}, "attendees"},
		{"attendee name", func(p *unical.EventParams, over int) {
			p.Attendees = unical.Some([]unical.Attendee{{Email: "a@example.com", Name: strings.Repeat("n", eventbook.MaxName+over)}})
		}, "attendees[0].name"},
		{"extended properties", func(p *unical.EventParams, over int) {
			p.PrivateExtendedProperties = unical.Some(props(eventbook.MaxExtendedProperties+over, 1))
		}, "privateExtendedProperties"},
		{"extended property value", func(p *unical.EventParams, over int) {
			p.PublicExtendedProperties = unical.Some(map[string]string{"big": strings.Repeat("v", eventbook.MaxExtendedValue+over)})
		}, "publicExtendedProperties.big"},
		{"reminders", func(p *unical.EventParams, over int) {
			p.Reminders = unical.Some(unical.Reminders{Overrides: make([]unical.ReminderOverride, eventbook.MaxReminders+over)})
		}, "reminders.overrides"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, _, s := newTestAccount(t)
			ctx := t.Context()
			over := eventParams("Over")
			tc.set(over, 1)
			_, err := p.CreateEvent(ctx, s, PrimaryCalendarID, over)
			if got := fieldOf(err); got != tc.field {
				t.Errorf("CreateEvent(one past the bound) = %v, want CodeInvalid naming %s", err, tc.field)
			}
			live, _, _, err := syncAll(t, p, s, PrimaryCalendarID, "")
			if err != nil || len(live) != 0 {
				t.Errorf("after the refused create the calendar lists %v (err %v), want nothing", live, err)
			}

			at := eventParams("At")
			tc.set(at, 0)
			kept, err := p.CreateEvent(ctx, s, PrimaryCalendarID, at)
			if err != nil {
				t.Fatalf("CreateEvent(at the bound) = %v, want it kept", err)
			}
			update := &unical.EventParams{}
			tc.set(update, 1)
			_, err = p.UpdateEvent(ctx, s, PrimaryCalendarID, kept.ID, update)
			if got := fieldOf(err); got != tc.field {
				t.Errorf("UpdateEvent(one past the bound) = %v, want CodeInvalid naming %s", err, tc.field)
			}
			after, err := p.GetEvent(ctx, s, PrimaryCalendarID, kept.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(kept, after); d != "" {
				t.Errorf("the refused update changed the event (-before +after):\n%s", d)
			}
		})
	}
}

// fieldOf returns the field a CodeInvalid error names, "" for another
// error or none.
func fieldOf(err error) string {
	var e *unical.Error
	if errors.As(err, &e) && e.Code == unical.CodeInvalid {
		return e.Field
	}
	return ""
}
