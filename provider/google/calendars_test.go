package google

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

// seedCalendars gives alice a secondary calendar and two of bob's
// calendars shared with her, and returns their ids.
func seedCalendars(t *testing.T, f *fixture) (work, team string) {
	t.Helper()
	work = f.srv.AddCalendar(alice, googletest.Calendar{Summary: "Work", TimeZone: "Europe/Berlin"})
	team = f.srv.AddCalendar(bob, googletest.Calendar{Summary: "Team", ConferenceSolutionTypes: []string{"eventHangout"}})
	f.srv.ShareCalendar(team, alice, "reader")
	f.srv.ShareCalendar(bob, alice, "writer")
	return work, team
}

func TestListCalendars(t *testing.T) {
	f := newFixture(t)
	work, team := seedCalendars(t, f)
	s := f.session(t, alice)
	got, err := f.p.ListCalendars(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := []*unical.Calendar{
		{ID: alice, Name: alice, HexColor: "#9fe1e7", IsPrimary: true, TimeZone: "Europe/Paris", InviteEmail: alice,
			AllowedOnlineMeetingProviders: []string{"googleMeet"}, DefaultOnlineMeetingProvider: "googleMeet"},
		{ID: work, Name: "Work", HexColor: "#9fe1e7", TimeZone: "Europe/Berlin", InviteEmail: work,
			AllowedOnlineMeetingProviders: []string{"googleMeet"}, DefaultOnlineMeetingProvider: "googleMeet"},
		{ID: team, Name: "Team", HexColor: "#9fe1e7", ReadOnly: true, IsShared: true, TimeZone: "America/New_York", InviteEmail: team,
			AllowedOnlineMeetingProviders: []string{}},
		{ID: bob, Name: bob, HexColor: "#9fe1e7", IsShared: true, TimeZone: "America/New_York", InviteEmail: bob,
			AllowedOnlineMeetingProviders: []string{"googleMeet"}, DefaultOnlineMeetingProvider: "googleMeet"},
	}
	sortByID := cmpopts.SortSlices(func(a, b *unical.Calendar) bool { return a.ID < b.ID })
	if diff := cmp.Diff(want, got, sortByID); diff != "" {
		t.Errorf("ListCalendars (-want +got):\n%s", diff)
	}

	// GetCalendar maps the same way.
	for _, w := range want {
		c, err := f.p.GetCalendar(context.Background(), s, w.ID)
		if err != nil {
			t.Fatalf("GetCalendar(%s): %v", w.ID, err)
		}
		if diff := cmp.Diff(w, c); diff != "" {
			t.Errorf("GetCalendar(%s) (-want +got):\n%s", w.ID, diff)
		}
	}
}

func TestListCalendarsPages(t *testing.T) {
	f := newFixture(t)
	for range 260 {
		f.srv.AddCalendar(alice, googletest.Calendar{Summary: "C"})
	}
	got, err := f.p.ListCalendars(context.Background(), f.session(t, alice))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 261 {
		t.Errorf("calendars = %d, want 261", len(got))
	}
}

func TestGetCalendarErrors(t *testing.T) {
	f := newFixture(t)
	_, team := seedCalendars(t, f)
	gone := f.srv.AddCalendar(alice, googletest.Calendar{Summary: "Gone"})
	f.srv.DeleteCalendar(gone)
	s := f.session(t, bob)
	aliceOnly := f.srv.AddCalendar(alice, googletest.Calendar{Summary: "Private"})
	tests := []struct {
		name, id string
		want     unical.Code
	}{
		{"unknown", "nope@group.calendar.google.com", unical.CodeNotFound},
		{"deleted", gone, unical.CodeNotFound},
		{"not shared with the account", aliceOnly, unical.CodeNotFound},
		{"empty id", "", unical.CodeNotFound},
		{"own", team, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.p.GetCalendar(context.Background(), s, tt.id)
			if got := unical.ErrorCode(err); got != tt.want {
				t.Errorf("code = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestCreateUpdateDeleteCalendar(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := context.Background()
	ignoreID := cmpopts.IgnoreFields(unical.Calendar{}, "ID", "InviteEmail")

	created, err := f.p.CreateCalendar(ctx, s, &unical.CalendarParams{
		Name: unical.Some("Trips"), HexColor: unical.Some("#FF8800"), TimeZone: unical.Some("Asia/Tokyo"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &unical.Calendar{Name: "Trips", HexColor: "#ff8800", TimeZone: "Asia/Tokyo",
		AllowedOnlineMeetingProviders: []string{"googleMeet"}, DefaultOnlineMeetingProvider: "googleMeet"}
	if diff := cmp.Diff(want, created, ignoreID); diff != "" {
		t.Errorf("CreateCalendar (-want +got):\n%s", diff)
	}
	if created.ID == "" || created.InviteEmail != created.ID {
		t.Errorf("id %q, inviteEmail %q", created.ID, created.InviteEmail)
	}
	got, err := f.p.GetCalendar(ctx, s, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(created, got); diff != "" {
		t.Errorf("GetCalendar after create (-want +got):\n%s", diff)
	}

	// Without a colour or zone: the owner's zone and the default colour.
	plain, err := f.p.CreateCalendar(ctx, s, &unical.CalendarParams{Name: unical.Some("Plain")})
	if err != nil {
		t.Fatal(err)
	}
	if plain.TimeZone != "Europe/Paris" || plain.HexColor == "" {
		t.Errorf("plain calendar = %+v", plain)
	}

	updates := []struct {
		name   string
		params unical.CalendarParams
		want   func(c *unical.Calendar)
	}{
		{"name", unical.CalendarParams{Name: unical.Some("Travel")}, func(c *unical.Calendar) { c.Name = "Travel" }},
		{"colour", unical.CalendarParams{HexColor: unical.Some("#112233")}, func(c *unical.Calendar) { c.HexColor = "#112233" }},
		{"time zone", unical.CalendarParams{TimeZone: unical.Some("UTC")}, func(c *unical.Calendar) { c.TimeZone = "UTC" }},
		{"null time zone leaves it", unical.CalendarParams{TimeZone: unical.Null[string]()}, func(c *unical.Calendar) {}},
		{"null colour clears it", unical.CalendarParams{HexColor: unical.Null[string]()}, func(c *unical.Calendar) { c.HexColor = "" }},
		{"all", unical.CalendarParams{Name: unical.Some("Away"), HexColor: unical.Some("#abcdef"), TimeZone: unical.Some("Europe/London")},
			func(c *unical.Calendar) { c.Name, c.HexColor, c.TimeZone = "Away", "#abcdef", "Europe/London" }},
		{"nothing", unical.CalendarParams{}, func(c *unical.Calendar) {}},
	}
	cur := created
	for _, u := range updates {
		next := *cur
		u.want(&next)
		got, err := f.p.UpdateCalendar(ctx, s, created.ID, &u.params)
		if err != nil {
			t.Fatalf("%s: %v", u.name, err)
		}
		if diff := cmp.Diff(&next, got); diff != "" {
			t.Errorf("%s: UpdateCalendar (-want +got):\n%s", u.name, diff)
		}
		again, err := f.p.GetCalendar(ctx, s, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Errorf("%s: GetCalendar after update (-want +got):\n%s", u.name, diff)
		}
		cur = got
	}

	if err := f.p.DeleteCalendar(ctx, s, created.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.p.GetCalendar(ctx, s, created.ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetCalendar after delete: %v, want %s", err, unical.CodeNotFound)
	}
	if err := f.p.DeleteCalendar(ctx, s, created.ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("second delete: %v, want %s", err, unical.CodeNotFound)
	}
}

func TestUpdateSharedCalendar(t *testing.T) {
	f := newFixture(t)
	_, team := seedCalendars(t, f)
	s := f.session(t, alice)
	ctx := context.Background()

	// Renaming a calendar someone else owns renames it for this account
	// only, and a colour is the account's own.
	got, err := f.p.UpdateCalendar(ctx, s, team, &unical.CalendarParams{Name: unical.Some("Bob's team"), HexColor: unical.Some("#000000")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Bob's team" || got.HexColor != "#000000" || !got.ReadOnly || !got.IsShared {
		t.Errorf("updated shared calendar = %+v", got)
	}
	bobs, err := f.p.GetCalendar(ctx, f.session(t, bob), team)
	if err != nil {
		t.Fatal(err)
	}
	if bobs.Name != "Team" || bobs.HexColor != "#9fe1e7" {
		t.Errorf("owner's view changed: %+v", bobs)
	}

	// Its time zone belongs to the owner.
	if _, err := f.p.UpdateCalendar(ctx, s, team, &unical.CalendarParams{TimeZone: unical.Some("UTC")}); unical.ErrorCode(err) != unical.CodeConflict {
		t.Errorf("time zone of a shared calendar: %v, want %s", err, unical.CodeConflict)
	}
	if _, err := f.p.UpdateCalendar(ctx, s, "nope@group.calendar.google.com", &unical.CalendarParams{Name: unical.Some("x")}); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("unknown calendar: %v, want %s", err, unical.CodeNotFound)
	}
}

func TestDeleteCalendarRefused(t *testing.T) {
	f := newFixture(t)
	_, team := seedCalendars(t, f)
	s := f.session(t, alice)
	tests := []struct {
		name, id string
		want     unical.Code
	}{
		{"primary", alice, unical.CodeConflict},
		{"primary by alias", "primary", unical.CodeConflict},
		{"someone else's", team, unical.CodeConflict},
		{"unknown", "nope@group.calendar.google.com", unical.CodeNotFound},
		{"empty id", "", unical.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.p.DeleteCalendar(context.Background(), s, tt.id)
			if got := unical.ErrorCode(err); got != tt.want {
				t.Errorf("code = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestForegroundFor(t *testing.T) {
	tests := map[string]string{"#ffffff": "#000000", "#000000": "#ffffff", "#9fe1e7": "#000000", "#1a237e": "#ffffff", "bad": "#000000", "#zz0000": "#000000"}
	for in, want := range tests {
		if got := foregroundFor(in); got != want {
			t.Errorf("foregroundFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestType(t *testing.T) {
	if got := newProvider(t, Config{}).Type(); got != unical.ProviderGoogle {
		t.Errorf("Type = %q", got)
	}
}
