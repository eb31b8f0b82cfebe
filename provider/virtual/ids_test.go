package virtual

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
)

// idPattern is docs/api.md's pattern of the ids unical makes.
var idPattern = regexp.MustCompile(`^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$`)

// TestEventUID: a new event's iCalUid is its id at the host of the
// server's public URL, or at DefaultUIDHost without one.
func TestEventUID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, publicURL, wantHost string
	}{
		{"PublicURL", "https://cal.example.com:8443/base", "cal.example.com"},
		{"NoPublicURL", "", DefaultUIDHost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, store, s := newTestAccount(t)
			p := New(Config{Store: store, PublicURL: tc.publicURL})
			ev, err := p.CreateEvent(t.Context(), s, PrimaryCalendarID, eventParams("uid"))
			if err != nil {
				t.Fatal(err)
			}
			if !idPattern.MatchString(ev.ID) || ev.ID[:4] != "evt_" {
				t.Errorf("event id %q, want evt_ and the documented pattern", ev.ID)
			}
			if want := ev.ID + "@" + tc.wantHost; ev.ICalUID != want {
				t.Errorf("iCalUid = %q, want %q", ev.ICalUID, want)
			}
			got, err := p.GetEvent(t.Context(), s, PrimaryCalendarID, ev.ID)
			if err != nil || got.ICalUID != ev.ICalUID {
				t.Errorf("GetEvent() iCalUid = %v, %v; want %q", got, err, ev.ICalUID)
			}
		})
	}
}

// TestLegacyIDs: a calendar and a recurring event stored under the ids
// made before ids.New ("cal_" and 24 hex digits; "evt" and 16 hex digits,
// no underscore) are read, listed, and edited per occurrence as before,
// beside ones made now; the old calendar lists before the new one, as
// it was made first.
func TestLegacyIDs(t *testing.T) {
	t.Parallel()
	p, store, s := newTestAccount(t)
	ctx := t.Context()
	// As they were made in 2024: the time in hex leads the calendar id.
	const oldCal, oldEvt = "cal_17e4a5b6c7d8e9f0a1b2c3d4", "evt0123456789abcdef"
	head := map[string]any{"calendar": unical.Calendar{ID: oldCal, Name: "Old", TimeZone: "UTC", InviteEmail: s.Email, AllowedOnlineMeetingProviders: []string{}}, "version": 1}
	data, err := json.Marshal(head)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutRecord(ctx, s.ApplicationID, s.AccountID, collection, oldCal, data, 0); err != nil {
		t.Fatal(err)
	}
	series := eventParams("weekly")
	series.Recurrence = unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=3"})
	b := eventbook.New()
	b.Create(oldEvt, 1, series, s.Email, p.now())
	if data, err = json.Marshal(b.Events[oldEvt]); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(oldCal, oldEvt), data, 0); err != nil {
		t.Fatal(err)
	}
	newCal, err := p.CreateCalendar(ctx, s, &unical.CalendarParams{Name: unical.Some("New")})
	if err != nil {
		t.Fatal(err)
	}
	if !idPattern.MatchString(newCal.ID) || newCal.ID[:4] != "cal_" {
		t.Errorf("calendar id %q, want cal_ and the documented pattern", newCal.ID)
	}
	cals, err := p.ListCalendars(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cals {
		ids = append(ids, c.ID)
	}
	if d := cmp.Diff([]string{PrimaryCalendarID, oldCal, newCal.ID}, ids); d != "" {
		t.Errorf("calendars in creation order (-want +got):\n%s", d)
	}
	newEvt, err := p.CreateEvent(ctx, s, oldCal, series)
	if err != nil {
		t.Fatal(err)
	}

	// The second week's occurrence of each series, by its instance id.
	for _, id := range []string{oldEvt, newEvt.ID} {
		old, err := p.GetEvent(ctx, s, oldCal, id)
		if err != nil {
			t.Fatalf("GetEvent(%s) = %v", id, err)
		}
		if id == oldEvt && old.ICalUID != oldEvt {
			t.Errorf("stored event's iCalUid = %q, want it kept as %q", old.ICalUID, oldEvt)
		}
		instance := id + "_20260511T090000Z"
		moved, err := p.UpdateEvent(ctx, s, oldCal, instance, &unical.EventParams{Title: unical.Some("moved " + id)})
		if err != nil {
			t.Fatalf("UpdateEvent(%s) = %v", instance, err)
		}
		got, err := p.GetEvent(ctx, s, oldCal, instance)
		if err != nil {
			t.Fatalf("GetEvent(%s) = %v", instance, err)
		}
		want := []string{instance, id, "moved " + id}
		if d := cmp.Diff(want, []string{got.ID, got.RecurringEventID, got.Title}); d != "" || moved.ID != instance {
			t.Errorf("occurrence of %s (-want +got):\n%s", id, d)
		}
		if err := p.DeleteEvent(ctx, s, oldCal, id); err != nil {
			t.Fatalf("DeleteEvent(%s) = %v", id, err)
		}
		if _, err := p.GetEvent(ctx, s, oldCal, instance); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("edited occurrence after deleting its series: %v, want not found", err)
		}
	}
}
