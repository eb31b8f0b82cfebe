package microsoft

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestQueryFreeBusy asks getSchedule for the default calendar and the
// calendar view for another one, in the requested zone, and falls back to
// the calendar view when getSchedule cannot answer.
func TestQueryFreeBusy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	other, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Other")})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate := func(cal, title, start, end string, transparent bool) {
		t.Helper()
		params := &unical.EventParams{
			Title: unical.Some(title),
			Start: unical.Some(unical.EventDateTime{DateTime: start, TimeZone: "Europe/Berlin"}),
			End:   unical.Some(unical.EventDateTime{DateTime: end, TimeZone: "Europe/Berlin"}),
		}
		if transparent {
			params.Transparency = unical.Some(unical.TransparencyTransparent)
		}
		if _, err := f.p.CreateEvent(t.Context(), s, cal, params); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(def, "busy", "2026-05-04T09:00:00", "2026-05-04T10:00:00", false)
	mustCreate(def, "free", "2026-05-04T11:00:00", "2026-05-04T12:00:00", true)
	mustCreate(def, "outside", "2026-05-06T09:00:00", "2026-05-06T10:00:00", false)
	mustCreate(other.ID, "other", "2026-05-04T14:00:00", "2026-05-04T15:30:00", false)
	mustCreate(other.ID, "other free", "2026-05-04T16:00:00", "2026-05-04T17:00:00", true)

	q := &unical.FreeBusyQuery{
		Start:       mustTime(t, "2026-05-04T00:00:00-04:00"),
		End:         mustTime(t, "2026-05-05T00:00:00-04:00"),
		TimeZone:    "America/New_York",
		CalendarIDs: []string{def, other.ID},
	}
	want := map[string][]string{
		def:      {"2026-05-04T03:00:00-04:00/2026-05-04T04:00:00-04:00"},
		other.ID: {"2026-05-04T08:00:00-04:00/2026-05-04T09:30:00-04:00"},
	}
	show := func(busy map[string][]unical.Interval) map[string][]string {
		ny, _ := time.LoadLocation("America/New_York")
		out := map[string][]string{}
		for id, ivs := range busy {
			for _, iv := range ivs {
				out[id] = append(out[id], iv.Start.In(ny).Format(time.RFC3339)+"/"+iv.End.In(ny).Format(time.RFC3339))
			}
		}
		return out
	}

	t.Run("OK", func(t *testing.T) {
		before := f.srv.RequestCount("/v1.0/me/calendar/getSchedule")
		got, err := f.p.QueryFreeBusy(t.Context(), s, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, show(got)); diff != "" {
			t.Errorf("QueryFreeBusy() mismatch (-want +got):\n%s", diff)
		}
		if n := f.srv.RequestCount("/v1.0/me/calendar/getSchedule") - before; n != 1 {
			t.Errorf("getSchedule called %d times; want 1", n)
		}
	})
	t.Run("FallbackToCalendarView", func(t *testing.T) {
		f.srv.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendar/getSchedule", Status: 400})
		got, err := f.p.QueryFreeBusy(t.Context(), s, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, show(got)); diff != "" {
			t.Errorf("QueryFreeBusy() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("LongWindowInParts", func(t *testing.T) {
		before := f.srv.RequestCount("/v1.0/me/calendar/getSchedule")
		views := f.srv.RequestCount("/v1.0/me/calendars/" + def + "/calendarView")
		long := &unical.FreeBusyQuery{
			Start: mustTime(t, "2026-03-01T00:00:00Z"), End: mustTime(t, "2026-07-01T00:00:00Z"),
			TimeZone: "Europe/Berlin", CalendarIDs: []string{def},
		}
		got, err := f.p.QueryFreeBusy(t.Context(), s, long)
		if err != nil {
			t.Fatal(err)
		}
		if n := f.srv.RequestCount("/v1.0/me/calendar/getSchedule") - before; n != 2 {
			t.Errorf("getSchedule called %d times for 122 days; want 2", n)
		}
		// Each part is shorter than getSchedule's 62 days, so none is
		// refused and the calendar view is not read instead.
		if n := f.srv.RequestCount("/v1.0/me/calendars/"+def+"/calendarView") - views; n != 0 {
			t.Errorf("calendar view read %d times; want getSchedule only", n)
		}
		wantLong := map[string][]string{def: {"2026-05-04T03:00:00-04:00/2026-05-04T04:00:00-04:00", "2026-05-06T03:00:00-04:00/2026-05-06T04:00:00-04:00"}}
		if diff := cmp.Diff(wantLong, show(got)); diff != "" {
			t.Errorf("QueryFreeBusy() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("FallbackOnServerError", func(t *testing.T) {
		f.srv.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendar/getSchedule", Status: 500})
		got, err := f.p.QueryFreeBusy(t.Context(), s, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, show(got)); diff != "" {
			t.Errorf("QueryFreeBusy() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.p.QueryFreeBusy(t.Context(), s, &unical.FreeBusyQuery{Start: q.Start, End: q.End, TimeZone: "UTC", CalendarIDs: []string{"AAMkNoSuchCalendar"}})
		if unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("unknown calendar: %v; want CodeNotFound", err)
		}
	})
}
