package eventbook_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
)

const self = "room@example.com"

var t0 = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

func meeting(recurrence ...string) *unical.EventParams {
	p := &unical.EventParams{
		Title:     unical.Some("Review"),
		Start:     unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z", TimeZone: "UTC"}),
		End:       unical.Some(unical.EventDateTime{DateTime: "2026-05-04T10:00:00Z", TimeZone: "UTC"}),
		Attendees: unical.Some([]unical.Attendee{{Email: self}}),
	}
	if recurrence != nil {
		p.Recurrence = unical.Some(recurrence)
	}
	return p
}

// stamp is what a change moves: the version-derived ETag and updatedAt.
type stamp struct{ ETag, UpdatedAt string }

func stampOf(e *unical.Event) stamp { return stamp{e.ETag, e.UpdatedAt} }

// TestBook_Respond shows that an answer is a change like any other: the
// event's ETag and updatedAt move, on the series and on its overridden
// instances, which carry attendee lists of their own.
func TestBook_Respond(t *testing.T) {
	t.Parallel()
	b := eventbook.New()
	series := b.Create("evt1", 1, meeting("RRULE:FREQ=DAILY;COUNT=5"), self, t0)
	instanceID := series.ID + "_20260505T090000Z"
	if _, ok, err := b.UpdateInstance(instanceID, 2, &unical.EventParams{Title: unical.Some("Moved review")}, self, t0.Add(time.Minute)); !ok || err != nil {
		t.Fatalf("UpdateInstance: ok %v, %v", ok, err)
	}
	answered := t0.Add(time.Hour)
	if err := b.Respond(series.ID, 3, self, unical.ResponseAccepted, answered); err != nil {
		t.Fatal(err)
	}
	want := stamp{ETag: `"3"`, UpdatedAt: unical.FormatTimestamp(answered)}
	for _, id := range []string{series.ID, instanceID} {
		got, _ := b.Get(id)
		if got == nil {
			t.Fatalf("Get(%q) found nothing", id)
		}
		if diff := cmp.Diff(want, stampOf(got)); diff != "" {
			t.Errorf("%s after Respond mismatch (-want +got):\n%s", id, diff)
		}
		if got.MyResponseStatus != unical.ResponseAccepted {
			t.Errorf("%s: myResponseStatus %q, want %q", id, got.MyResponseStatus, unical.ResponseAccepted)
		}
	}
}

// TestBook_ListSecondly shows that a listing holds the calendar's events,
// never a window's instances: a FREQ=SECONDLY series is one event, with
// every one of its overrides when the Client is to expand it (cancelled
// ones and ones moved out of the window too, which the expansion needs),
// and with the overrides inside the window otherwise.
func TestBook_ListSecondly(t *testing.T) {
	t.Parallel()
	b := eventbook.New()
	series := b.Create("evt1", 1, &unical.EventParams{
		Title:      unical.Some("tick"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:00Z", TimeZone: "UTC"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:01Z", TimeZone: "UTC"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=SECONDLY"}),
	}, self, t0)
	moved := series.ID + "_20260101T000005Z"
	if _, ok, err := b.UpdateInstance(moved, 2, &unical.EventParams{
		Start: unical.Some(unical.EventDateTime{DateTime: "2027-06-01T00:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2027-06-01T00:00:01Z", TimeZone: "UTC"}),
	}, self, t0); !ok || err != nil {
		t.Fatalf("UpdateInstance: ok %v, %v", ok, err)
	}
	cancelled := series.ID + "_20260101T000007Z"
	if ok, err := b.DeleteInstance(cancelled, 3, t0); !ok || err != nil {
		t.Fatalf("DeleteInstance: ok %v, %v", ok, err)
	}
	year := unical.EventQuery{TimeMin: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name   string
		expand bool
		want   []string
	}{
		{"ForTheClientToExpand", true, []string{series.ID, moved, cancelled}},
		{"Unexpanded", false, []string{series.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := year
			q.SingleEvents = tc.expand
			events, err := b.List(&q, -1)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range events {
				got = append(got, e.ID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("List() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBook_Instance reads one occurrence of a FREQ=SECONDLY series of
// day-long events, 86,400 of which overlap any second: it comes with the
// series' length, and a moved one with its own.
func TestBook_Instance(t *testing.T) {
	t.Parallel()
	b := eventbook.New()
	series := b.Create("evt1", 1, &unical.EventParams{
		Title:      unical.Some("tick"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:00Z", TimeZone: "UTC"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-02T00:00:00Z", TimeZone: "UTC"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=SECONDLY"}),
	}, self, t0)
	moved := series.ID + "_20260301T000005Z"
	if _, ok, err := b.UpdateInstance(moved, 2, &unical.EventParams{
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-03-02T00:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-03-02T00:30:00Z", TimeZone: "UTC"}),
	}, self, t0); !ok || err != nil {
		t.Fatalf("UpdateInstance: ok %v, %v", ok, err)
	}
	type span struct{ Start, End string }
	for _, tc := range []struct {
		id   string
		want span
	}{
		{series.ID + "_20260301T000004Z", span{"2026-03-01T00:00:04Z", "2026-03-02T00:00:04Z"}},
		{moved, span{"2026-03-02T00:00:00Z", "2026-03-02T00:30:00Z"}},
	} {
		ev, ok, err := b.Instance(tc.id)
		if !ok || err != nil {
			t.Fatalf("Instance(%q): ok %v, %v", tc.id, ok, err)
		}
		if diff := cmp.Diff(tc.want, span{ev.Start.DateTime, ev.End.DateTime}); diff != "" {
			t.Errorf("Instance(%q) mismatch (-want +got):\n%s", tc.id, diff)
		}
	}
}

// Normalize adds the zone's offset to a timed value written without
// one, fractional seconds included, leaves every value that has one as it
// is, and answers all-day values as a dateTime at midnight without a zone.
func TestNormalize(t *testing.T) {
	tests := []struct {
		in, zone, want string
	}{
		{"2026-01-05T09:00:00", "Europe/Berlin", "2026-01-05T09:00:00+01:00"},
		{"2026-07-06T09:00:00", "Europe/Berlin", "2026-07-06T09:00:00+02:00"},
		{"2026-07-06T09:00:00", "", "2026-07-06T09:00:00Z"},
		{"2026-07-06T09:00:00.5", "America/New_York", "2026-07-06T09:00:00-04:00"},
		{"2026-07-06T09:00:00Z", "Europe/Berlin", "2026-07-06T09:00:00Z"},
		{"2026-07-06T09:00:00+05:30", "Europe/Berlin", "2026-07-06T09:00:00+05:30"},
		{"2026-07-06T09:00:00.250-03:00", "", "2026-07-06T09:00:00.250-03:00"},
	}
	for _, tt := range tests {
		ev := &unical.Event{Start: &unical.EventDateTime{DateTime: tt.in, TimeZone: tt.zone}}
		eventbook.Normalize(ev)
		if ev.Start.DateTime != tt.want || ev.Start.TimeZone != tt.zone {
			t.Errorf("Normalize(%q in %q) = %+v, want %q", tt.in, tt.zone, ev.Start, tt.want)
		}
	}
	allDay := &unical.Event{IsAllDay: true, Start: &unical.EventDateTime{Date: "2026-07-06"}}
	eventbook.Normalize(allDay)
	if diff := cmp.Diff(&unical.EventDateTime{DateTime: "2026-07-06T00:00:00"}, allDay.Start); diff != "" {
		t.Errorf("all-day start (-want +got):\n%s", diff)
	}
}
