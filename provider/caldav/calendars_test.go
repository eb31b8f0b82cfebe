package caldav_test

import (
	"context"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// TestCalendars_Write creates, recolours, renames and deletes a calendar,
// and checks each server's answer to a time zone.
func TestCalendars_Write(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		params := &unical.CalendarParams{
			Name: unical.Some("Team <A&B>"), HexColor: unical.Some("#1a2b3c"), TimeZone: unical.Some("Europe/Berlin"),
		}
		wantTZ := "Europe/Berlin"
		if s.Kind == davtest.Xandikos {
			// Ignored in MKCALENDAR (davtest), so refused
			// (TestCreateCalendar_TimeZoneNotKept).
			params.TimeZone, wantTZ = unical.Optional[string]{}, ""
		}
		cal, err := p.CreateCalendar(t.Context(), sess, params)
		if err != nil {
			t.Fatal(err)
		}
		if cal.Name != "Team <A&B>" || cal.HexColor != "#1a2b3c" || cal.TimeZone != wantTZ || cal.ReadOnly {
			t.Errorf("created calendar = %+v", cal)
		}
		upd, err := p.UpdateCalendar(t.Context(), sess, cal.ID, &unical.CalendarParams{HexColor: unical.Some("#00FF00")})
		if err != nil {
			t.Fatal(err)
		}
		if upd.HexColor != "#00FF00" || upd.Name != "Team <A&B>" {
			t.Errorf("recoloured calendar = %+v", upd)
		}
		_, err = p.UpdateCalendar(t.Context(), sess, cal.ID, &unical.CalendarParams{Name: unical.Some("Renamed"), TimeZone: unical.Some("America/New_York")})
		switch s.Kind {
		case davtest.Xandikos:
			// Xandikos refuses calendar-timezone with 409, which is sent
			// first, so the name stays too.
			if unical.ErrorCode(err) != unical.CodeNotImplemented {
				t.Errorf("UpdateCalendar(timeZone) on Xandikos = %v, want CodeNotImplemented", err)
			}
			if got, _ := p.GetCalendar(t.Context(), sess, cal.ID); got == nil || got.Name != "Team <A&B>" {
				t.Errorf("after a refused PROPPATCH the calendar is %+v", got)
			}
		default:
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := p.GetCalendar(t.Context(), sess, cal.ID); got == nil || got.Name != "Renamed" || got.TimeZone != "America/New_York" {
				t.Errorf("renamed calendar = %+v", got)
			}
		}
		_, err = p.UpdateCalendar(t.Context(), sess, cal.ID, &unical.CalendarParams{HexColor: unical.Null[string]()})
		switch s.Kind {
		case davtest.Xandikos:
			// Xandikos 0.2.8 fails on removing calendar-color (500).
			if unical.ErrorCode(err) != unical.CodeUpstream {
				t.Errorf("clearing the colour on Xandikos = %v, want CodeUpstream", err)
			}
		default:
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := p.GetCalendar(t.Context(), sess, cal.ID); got == nil || got.HexColor != "" {
				t.Errorf("after clearing the colour: %+v", got)
			}
		}
		if err := p.DeleteCalendar(t.Context(), sess, cal.ID); err != nil {
			t.Fatal(err)
		}
		if err := p.DeleteCalendar(t.Context(), sess, cal.ID); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("second DeleteCalendar = %v, want CodeNotFound", err)
		}
		if _, err := p.CreateEvent(t.Context(), sess, cal.ID, &unical.EventParams{Title: unical.Some("x"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-01T09:00:00Z"})}); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("CreateEvent in a deleted calendar = %v, want CodeNotFound", err)
		}
	})
}

// TestListCalendars_Dialects: a calendar created with a time zone is
// listed with it, also where a Depth 1 PROPFIND leaves calendar-timezone
// out (DAViCal, read per calendar), and the scheduling inbox and outbox
// are never listed, also where they are typed as calendars (DAViCal's
// .in and .out). Xandikos keeps no calendar time zone and refuses the
// create.
func TestListCalendars_Dialects(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		created, err := p.CreateCalendar(t.Context(), sess, &unical.CalendarParams{
			Name: unical.Some("Zoned"), TimeZone: unical.Some("Europe/Berlin"),
		})
		if s.Kind == davtest.Xandikos {
			if unical.ErrorCode(err) != unical.CodeNotImplemented {
				t.Fatalf("CreateCalendar with timeZone on Xandikos: %v, want not_implemented", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("CreateCalendar with timeZone: %v", err)
		}
		t.Cleanup(func() { _ = p.DeleteCalendar(context.Background(), sess, created.ID) })
		cals, err := p.ListCalendars(t.Context(), sess)
		if err != nil {
			t.Fatalf("ListCalendars: %v", err)
		}
		zones := map[string]string{}
		for _, c := range cals {
			zones[c.ID] = c.TimeZone
			if c.ID == ".in" || c.ID == ".out" || strings.EqualFold(c.ID, "inbox") || strings.EqualFold(c.ID, "outbox") {
				t.Errorf("ListCalendars lists the scheduling box %q", c.ID)
			}
		}
		if got := zones[created.ID]; got != "Europe/Berlin" {
			t.Errorf("ListCalendars gives the new calendar time zone %q, want Europe/Berlin (GetCalendar: %q)", got, created.TimeZone)
		}
	})
}
