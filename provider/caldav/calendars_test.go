package caldav_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/davtest"
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
