package dashboard

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// placed is what a test compares of a block: its day, text and place.
type placed struct {
	Day, Title, From, To string
	Recurring            bool
	Row, Rows, Col, Cols int
}

func blocksOf(g *weekGrid) (timed []placed, allDay map[string][]string) {
	allDay = map[string][]string{}
	for _, d := range g.Days {
		for _, b := range d.Timed {
			timed = append(timed, placed{d.Date, b.Title, b.From, b.To, b.Recurring, b.Row, b.Rows, b.Col, b.Cols})
		}
		for _, e := range d.AllDay {
			allDay[d.Date] = append(allDay[d.Date], e.Title)
		}
	}
	return timed, allDay
}

func timed(title, start, end string) *unical.Event {
	return &unical.Event{Title: title, Start: &unical.EventDateTime{DateTime: start}, End: &unical.EventDateTime{DateTime: end}}
}

// TestLayoutWeek checks where events land in the week grid: in the
// chosen zone, split at midnight, side by side when they overlap, all-day
// events on their dates, occurrences marked, parts outside the week left
// out.
func TestLayoutWeek(t *testing.T) {
	berlin, err := unical.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	standup := timed("Standup", "2030-01-07T09:00:00+01:00", "2030-01-07T09:15:00+01:00")
	standup.RecurringEventID = "evt_series"
	planning := timed("Planning", "2030-01-07T14:00:00+01:00", "2030-01-07T15:00:00+01:00")
	for _, c := range []struct {
		name       string
		loc        *time.Location
		events     []*unical.Event
		wantTimed  []placed
		wantAllDay map[string][]string
	}{{
		name:   "the Quickstart's Monday in Berlin",
		loc:    berlin,
		events: []*unical.Event{standup, planning},
		wantTimed: []placed{
			{"2030-01-07", "Standup", "09:00", "09:15", true, 37, 1, 1, 12},
			{"2030-01-07", "Planning", "14:00", "15:00", false, 57, 4, 1, 12},
		},
		wantAllDay: map[string][]string{},
	}, {
		name:   "the same events in UTC, an hour earlier",
		loc:    time.UTC,
		events: []*unical.Event{standup, planning},
		wantTimed: []placed{
			{"2030-01-07", "Standup", "08:00", "08:15", true, 33, 1, 1, 12},
			{"2030-01-07", "Planning", "13:00", "14:00", false, 53, 4, 1, 12},
		},
		wantAllDay: map[string][]string{},
	}, {
		name: "overlapping events share the day in lanes; the next one has it whole",
		loc:  time.UTC,
		events: []*unical.Event{
			timed("A", "2030-01-08T10:00:00Z", "2030-01-08T12:00:00Z"),
			timed("B", "2030-01-08T10:30:00Z", "2030-01-08T11:00:00Z"),
			timed("C", "2030-01-08T11:00:00Z", "2030-01-08T11:30:00Z"),
			timed("D", "2030-01-08T13:00:00Z", "2030-01-08T13:10:00Z"),
		},
		wantTimed: []placed{
			{"2030-01-08", "A", "10:00", "12:00", false, 41, 8, 1, 6},
			{"2030-01-08", "B", "10:30", "11:00", false, 43, 2, 7, 6},
			{"2030-01-08", "C", "11:00", "11:30", false, 45, 2, 7, 6},
			{"2030-01-08", "D", "13:00", "13:10", false, 53, 1, 1, 12},
		},
		wantAllDay: map[string][]string{},
	}, {
		name: "a night is split at midnight; a part before the week is left out",
		loc:  time.UTC,
		events: []*unical.Event{
			timed("Night", "2030-01-09T22:00:00Z", "2030-01-10T02:00:00Z"),
			timed("Weekend", "2030-01-06T20:00:00Z", "2030-01-07T01:00:00Z"),
		},
		wantTimed: []placed{
			{"2030-01-07", "Weekend", "00:00", "01:00", false, 1, 4, 1, 12},
			{"2030-01-09", "Night", "22:00", "24:00", false, 89, 8, 1, 12},
			{"2030-01-10", "Night", "00:00", "02:00", false, 1, 8, 1, 12},
		},
		wantAllDay: map[string][]string{},
	}, {
		name: "all-day events keep their dates in any zone; the end date is exclusive",
		loc:  berlin,
		events: []*unical.Event{
			{Title: "Trip", Start: &unical.EventDateTime{Date: "2030-01-11"}, End: &unical.EventDateTime{Date: "2030-01-15"}},
			{Title: "Holiday", Start: &unical.EventDateTime{DateTime: "2030-01-07T00:00:00"}, End: &unical.EventDateTime{DateTime: "2030-01-08T00:00:00"}},
		},
		wantAllDay: map[string][]string{"2030-01-07": {"Holiday"}, "2030-01-11": {"Trip"}, "2030-01-12": {"Trip"}, "2030-01-13": {"Trip"}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			g := layoutWeek(c.events, time.Date(2030, 1, 7, 0, 0, 0, 0, c.loc), c.loc)
			gotTimed, gotAllDay := blocksOf(g)
			if diff := cmp.Diff(c.wantTimed, gotTimed); diff != "" {
				t.Errorf("timed blocks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wantAllDay, gotAllDay); diff != "" {
				t.Errorf("all-day events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWeekOf checks which Monday a date, or today, opens in a zone.
func TestWeekOf(t *testing.T) {
	tokyo, _ := unical.LoadLocation("Asia/Tokyo")
	now := time.Date(2026, 6, 7, 20, 0, 0, 0, time.UTC) // Sunday in UTC, Monday in Tokyo
	for _, c := range []struct {
		param string
		loc   *time.Location
		want  string
	}{
		{"", time.UTC, "2026-06-01T00:00:00Z"},
		{"", tokyo, "2026-06-08T00:00:00+09:00"},
		{"2030-01-09", tokyo, "2030-01-07T00:00:00+09:00"},
		{"2030-01-07", time.UTC, "2030-01-07T00:00:00Z"},
		{"2030-01-13", time.UTC, "2030-01-07T00:00:00Z"},
	} {
		got, err := weekOf(c.param, now, c.loc)
		if err != nil || got.Format(time.RFC3339) != c.want {
			t.Errorf("weekOf(%q, %s) = %v, %v; want %s", c.param, c.loc, got, err, c.want)
		}
	}
	var e *unical.Error
	if _, err := weekOf("7 Jan", now, time.UTC); !errors.As(err, &e) || e.Field != "week" {
		t.Errorf("weekOf of a bad date: %v, want an error naming week", err)
	}
}
