package slots_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/slots"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// at reads "2006-01-02 15:04" in loc.
func at(t *testing.T, loc *time.Location, s string) time.Time {
	t.Helper()
	v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// weekdays is 09:00 to 17:00 Monday to Friday.
func weekdays(loc *time.Location) *slots.WorkingHours {
	wh := &slots.WorkingHours{Location: loc}
	for d := time.Monday; d <= time.Friday; d++ {
		wh.Intervals = append(wh.Intervals, slots.WeeklyInterval{Day: d, Start: 9 * 60, End: 17 * 60})
	}
	return wh
}

func TestFind(t *testing.T) {
	utc := time.UTC
	berlin, newYork, kathmandu := zone(t, "Europe/Berlin"), zone(t, "America/New_York"), zone(t, "Asia/Kathmandu")
	u := func(s string) time.Time { return at(t, utc, s) }
	slot := func(start, end string, ids ...string) slots.Slot {
		return slots.Slot{Start: u(start), End: u(end), Participants: ids}
	}
	busy := func(pairs ...string) []slots.Interval {
		var out []slots.Interval
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, slots.Interval{Start: u(pairs[i]), End: u(pairs[i+1])})
		}
		return out
	}
	tests := []struct {
		name string
		req  slots.Request
		want []slots.Slot
	}{{
		name: "busy time of two required participants",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 12:00"),
			Duration: time.Hour, Interval: 30 * time.Minute, Location: utc,
			Participants: []slots.Participant{
				{ID: "a", Required: true, Busy: busy("2026-05-04 09:30", "2026-05-04 10:00")},
				// Overlapping and out-of-order busy time merges.
				{ID: "b", Required: true, Busy: busy("2026-05-04 11:15", "2026-05-04 11:30", "2026-05-04 11:00", "2026-05-04 11:20")},
			},
		},
		want: []slots.Slot{slot("2026-05-04 10:00", "2026-05-04 11:00", "a", "b")},
	}, {
		// The United States leave standard time on 8 March 2026, Europe
		// on 29 March: between them New York is five hours behind Berlin,
		// otherwise six, and the common hours (in UTC) move with it.
		name: "working hours across DST in two zones, United States change",
		req: slots.Request{
			Start: u("2026-03-06 00:00"), End: u("2026-03-10 00:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Participants: []slots.Participant{
				{ID: "berlin", Required: true, WorkingHours: weekdays(berlin)},
				{ID: "ny", Required: true, WorkingHours: weekdays(newYork)},
			},
		},
		want: []slots.Slot{
			// Friday: Berlin 08-16 UTC, New York 14-22 UTC.
			slot("2026-03-06 14:00", "2026-03-06 15:00", "berlin", "ny"),
			slot("2026-03-06 15:00", "2026-03-06 16:00", "berlin", "ny"),
			// Monday: New York 13-21 UTC.
			slot("2026-03-09 13:00", "2026-03-09 14:00", "berlin", "ny"),
			slot("2026-03-09 14:00", "2026-03-09 15:00", "berlin", "ny"),
			slot("2026-03-09 15:00", "2026-03-09 16:00", "berlin", "ny"),
		},
	}, {
		name: "working hours across DST in two zones, European change",
		req: slots.Request{
			Start: u("2026-03-27 00:00"), End: u("2026-03-31 00:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Participants: []slots.Participant{
				{ID: "berlin", Required: true, WorkingHours: weekdays(berlin)},
				{ID: "ny", Required: true, WorkingHours: weekdays(newYork)},
			},
		},
		want: []slots.Slot{
			// Friday: Berlin 08-16 UTC, New York 13-21 UTC.
			slot("2026-03-27 13:00", "2026-03-27 14:00", "berlin", "ny"),
			slot("2026-03-27 14:00", "2026-03-27 15:00", "berlin", "ny"),
			slot("2026-03-27 15:00", "2026-03-27 16:00", "berlin", "ny"),
			// Monday: Berlin 07-15 UTC.
			slot("2026-03-30 13:00", "2026-03-30 14:00", "berlin", "ny"),
			slot("2026-03-30 14:00", "2026-03-30 15:00", "berlin", "ny"),
		},
	}, {
		// A slot needs 15 free minutes before it and 10 after; the busy
		// hour 10-11 rules out starts from 09:30 to 11:00.
		name: "buffers",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 12:30"),
			Duration: 30 * time.Minute, Interval: 15 * time.Minute, Location: utc,
			BufferBefore: 15 * time.Minute, BufferAfter: 10 * time.Minute,
			Participants: []slots.Participant{{ID: "a", Required: true, Busy: busy("2026-05-04 10:00", "2026-05-04 11:00")}},
		},
		want: []slots.Slot{
			slot("2026-05-04 09:00", "2026-05-04 09:30", "a"),
			slot("2026-05-04 09:15", "2026-05-04 09:45", "a"),
			slot("2026-05-04 11:15", "2026-05-04 11:45", "a"),
			slot("2026-05-04 11:30", "2026-05-04 12:00", "a"),
			slot("2026-05-04 11:45", "2026-05-04 12:15", "a"),
			slot("2026-05-04 12:00", "2026-05-04 12:30", "a"),
		},
	}, {
		// Buffers may fall outside working hours: the slot at 09:00 stays.
		name: "buffers outside working hours",
		req: slots.Request{
			Start: u("2026-05-04 08:00"), End: u("2026-05-04 10:00"),
			Duration: 30 * time.Minute, Interval: 30 * time.Minute, Location: utc,
			BufferBefore: 30 * time.Minute,
			Participants: []slots.Participant{{ID: "a", Required: true, WorkingHours: &slots.WorkingHours{Location: utc, Intervals: []slots.WeeklyInterval{{Day: time.Monday, Start: 9 * 60, End: 10 * 60}}}}},
		},
		want: []slots.Slot{
			slot("2026-05-04 09:00", "2026-05-04 09:30", "a"),
			slot("2026-05-04 09:30", "2026-05-04 10:00", "a"),
		},
	}, {
		// Now is 09:07 with no notice: the first start is the next
		// quarter hour, not 09:07.
		name: "minimum notice",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 10:00"),
			Duration: 30 * time.Minute, Interval: 15 * time.Minute, Location: utc,
			Earliest:     u("2026-05-04 09:07"),
			Participants: []slots.Participant{{ID: "a", Required: true}},
		},
		want: []slots.Slot{
			slot("2026-05-04 09:15", "2026-05-04 09:45", "a"),
			slot("2026-05-04 09:30", "2026-05-04 10:00", "a"),
		},
	}, {
		// Kathmandu is UTC+05:45: half hours of its clock are :15 and :45
		// in UTC, and a window starting at 08:55 there starts at 09:00.
		name: "interval alignment in the answer's zone",
		req: slots.Request{
			Start: at(t, kathmandu, "2026-05-04 08:55"), End: at(t, kathmandu, "2026-05-04 10:30"),
			Duration: 30 * time.Minute, Interval: 30 * time.Minute, Location: kathmandu,
			Participants: []slots.Participant{{ID: "a", Required: true}},
		},
		want: []slots.Slot{
			slot("2026-05-04 03:15", "2026-05-04 03:45", "a"),
			slot("2026-05-04 03:45", "2026-05-04 04:15", "a"),
			slot("2026-05-04 04:15", "2026-05-04 04:45", "a"),
		},
	}, {
		// Berlin's clock goes back at 03:00 on 25 October 2026: 02:00 to
		// 03:00 happens twice, and hourly starts from midnight take both.
		name: "a 25-hour day in the answer's zone",
		req: slots.Request{
			Start: at(t, berlin, "2026-10-25 01:00"), End: at(t, berlin, "2026-10-25 04:00"),
			Duration: time.Hour, Interval: time.Hour, Location: berlin,
			Participants: []slots.Participant{{ID: "a", Required: true}},
		},
		want: []slots.Slot{
			slot("2026-10-24 23:00", "2026-10-25 00:00", "a"),
			slot("2026-10-25 00:00", "2026-10-25 01:00", "a"),
			slot("2026-10-25 01:00", "2026-10-25 02:00", "a"),
			slot("2026-10-25 02:00", "2026-10-25 03:00", "a"),
		},
	}, {
		// Round robin: "a" must come, and "b" or "c"; each slot lists who
		// is free.
		name: "optional participants",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 13:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Participants: []slots.Participant{
				{ID: "a", Required: true, Busy: busy("2026-05-04 12:00", "2026-05-04 13:00")},
				{ID: "b", Busy: busy("2026-05-04 09:00", "2026-05-04 10:00", "2026-05-04 11:00", "2026-05-04 12:00")},
				{ID: "c", Busy: busy("2026-05-04 10:00", "2026-05-04 12:00")},
			},
		},
		want: []slots.Slot{
			slot("2026-05-04 09:00", "2026-05-04 10:00", "a", "c"),
			slot("2026-05-04 10:00", "2026-05-04 11:00", "a", "b"),
		},
	}, {
		name: "maxResults, and working hours that run to midnight join the next day's",
		req: slots.Request{
			Start: u("2026-05-04 20:00"), End: u("2026-05-05 06:00"),
			Duration: 2 * time.Hour, Interval: time.Hour, Location: utc, MaxResults: 2,
			Participants: []slots.Participant{{ID: "a", Required: true, WorkingHours: &slots.WorkingHours{Location: utc, Intervals: []slots.WeeklyInterval{
				{Day: time.Monday, Start: 22 * 60, End: 24 * 60}, {Day: time.Tuesday, Start: 0, End: 2 * 60},
			}}}},
		},
		want: []slots.Slot{
			slot("2026-05-04 22:00", "2026-05-05 00:00", "a"),
			slot("2026-05-04 23:00", "2026-05-05 01:00", "a"),
		},
	}, {
		// Busy time as free/busy gives it for an all-day event in Berlin
		// (its whole local day, 22:00 to 22:00 UTC in summer) and for the
		// instances of a daily series (10:00 to 11:00 UTC each day): the
		// search sees only intervals, so both are spans of busy time. The
		// HTTP tests (httpapi/availability_test.go) start from the events.
		name: "all-day and recurring busy time",
		req: slots.Request{
			Start: u("2026-06-01 08:00"), End: u("2026-06-03 13:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Participants: []slots.Participant{
				{ID: "a", Required: true, WorkingHours: &slots.WorkingHours{Location: utc, Intervals: []slots.WeeklyInterval{
					{Day: time.Monday, Start: 8 * 60, End: 13 * 60}, {Day: time.Tuesday, Start: 8 * 60, End: 13 * 60}, {Day: time.Wednesday, Start: 8 * 60, End: 13 * 60},
				}}},
				{ID: "b", Required: true, Busy: append(
					busy("2026-06-01 22:00", "2026-06-02 22:00"), // all day on Tuesday 2 June in Berlin
					busy("2026-06-01 10:00", "2026-06-01 11:00", "2026-06-02 10:00", "2026-06-02 11:00", "2026-06-03 10:00", "2026-06-03 11:00")...)},
			},
		},
		want: []slots.Slot{
			slot("2026-06-01 08:00", "2026-06-01 09:00", "a", "b"),
			slot("2026-06-01 09:00", "2026-06-01 10:00", "a", "b"),
			slot("2026-06-01 11:00", "2026-06-01 12:00", "a", "b"),
			slot("2026-06-01 12:00", "2026-06-01 13:00", "a", "b"),
			slot("2026-06-03 08:00", "2026-06-03 09:00", "a", "b"),
			slot("2026-06-03 09:00", "2026-06-03 10:00", "a", "b"),
			slot("2026-06-03 11:00", "2026-06-03 12:00", "a", "b"),
			slot("2026-06-03 12:00", "2026-06-03 13:00", "a", "b"),
		},
	}, {
		// Three rooms of which one is needed: a slot is offered while any
		// room is free, and names the free ones beside the person.
		name: "a group of three rooms with one required",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 13:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Groups: []slots.Group{{Name: "rooms", Required: 1}},
			Participants: []slots.Participant{
				{ID: "ada", Required: true, Busy: busy("2026-05-04 12:00", "2026-05-04 13:00")},
				{ID: "room1", Group: "rooms", Busy: busy("2026-05-04 09:00", "2026-05-04 11:00")},
				{ID: "room2", Group: "rooms", Busy: busy("2026-05-04 09:00", "2026-05-04 10:00", "2026-05-04 11:00", "2026-05-04 12:00")},
				// Required is ignored inside a group: room3 busy all day
				// does not close the search.
				{ID: "room3", Group: "rooms", Required: true, Busy: busy("2026-05-04 00:00", "2026-05-05 00:00")},
			},
		},
		want: []slots.Slot{
			slot("2026-05-04 10:00", "2026-05-04 11:00", "ada", "room2"),
			slot("2026-05-04 11:00", "2026-05-04 12:00", "ada", "room1"),
		},
	}, {
		name: "a group needing two of three, beside an optional participant",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 12:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Groups: []slots.Group{{Name: "reviewers", Required: 2}},
			Participants: []slots.Participant{
				{ID: "r1", Group: "reviewers", Busy: busy("2026-05-04 09:00", "2026-05-04 10:00")},
				{ID: "r2", Group: "reviewers", Busy: busy("2026-05-04 10:00", "2026-05-04 11:00")},
				{ID: "r3", Group: "reviewers", Busy: busy("2026-05-04 09:00", "2026-05-04 12:00")},
				{ID: "guest", Required: false, Busy: busy("2026-05-04 09:00", "2026-05-04 10:00")},
			},
		},
		// 09:00 has r2 only and 10:00 r1 only.
		want: []slots.Slot{slot("2026-05-04 11:00", "2026-05-04 12:00", "r1", "r2", "guest")},
	}, {
		name: "a complete group still needs one optional participant",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 10:00"),
			Duration: time.Hour, Interval: time.Hour, Location: utc,
			Groups: []slots.Group{{Name: "rooms", Required: 1}},
			Participants: []slots.Participant{
				{ID: "room", Group: "rooms"},
				{ID: "guest", Required: false, Busy: busy("2026-05-04 09:00", "2026-05-04 10:00")},
			},
		},
		want: nil,
	}, {
		// New York leaves standard time on Sunday 14 March 2027. Working
		// hours 08:00-16:00 on weekdays; Monday 15 is closed by an
		// override and Tuesday 16 shortened to 12:00-16:00, both in New
		// York's clock after the change, Friday 12 before it.
		name: "date overrides close one day and shorten another across DST",
		req: slots.Request{
			Start: at(t, newYork, "2027-03-12 00:00"), End: at(t, newYork, "2027-03-18 00:00"),
			Duration: 4 * time.Hour, Interval: 4 * time.Hour, Location: newYork,
			Participants: []slots.Participant{{ID: "ny", Required: true, WorkingHours: &slots.WorkingHours{
				Location: newYork,
				Intervals: []slots.WeeklyInterval{
					{Day: time.Monday, Start: 8 * 60, End: 16 * 60}, {Day: time.Tuesday, Start: 8 * 60, End: 16 * 60},
					{Day: time.Wednesday, Start: 8 * 60, End: 16 * 60}, {Day: time.Friday, Start: 8 * 60, End: 16 * 60},
				},
				Overrides: []slots.DateOverride{
					{Year: 2027, Month: time.March, Day: 15},
					{Year: 2027, Month: time.March, Day: 16, Intervals: []slots.DayInterval{{Start: 12 * 60, End: 16 * 60}}},
				},
			}}},
		},
		want: []slots.Slot{
			slot("2027-03-12 13:00", "2027-03-12 17:00", "ny"), // 08:00 EST
			slot("2027-03-12 17:00", "2027-03-12 21:00", "ny"),
			slot("2027-03-16 16:00", "2027-03-16 20:00", "ny"), // 12:00 EDT
			slot("2027-03-17 12:00", "2027-03-17 16:00", "ny"), // 08:00 EDT
			slot("2027-03-17 16:00", "2027-03-17 20:00", "ny"),
		},
	}, {
		name: "no slot when a required participant is busy throughout",
		req: slots.Request{
			Start: u("2026-05-04 09:00"), End: u("2026-05-04 12:00"),
			Duration: time.Hour, Interval: 15 * time.Minute, Location: utc,
			Participants: []slots.Participant{
				{ID: "a", Required: true},
				{ID: "b", Required: true, Busy: busy("2026-05-04 00:00", "2026-05-05 00:00")},
			},
		},
		want: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slots.Find(&tt.req)
			for i := range got {
				got[i].Start, got[i].End = got[i].Start.UTC(), got[i].End.UTC()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("slots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverlaps(t *testing.T) {
	ivs := []slots.WeeklyInterval{
		{Day: time.Monday, Start: 9 * 60, End: 12 * 60},
		{Day: time.Monday, Start: 12 * 60, End: 17 * 60}, // touches: fine
		{Day: time.Tuesday, Start: 10 * 60, End: 11 * 60},
		{Day: time.Monday, Start: 16 * 60, End: 18 * 60}, // overlaps the second
	}
	i, j := slots.Overlaps(ivs)
	if i != 1 || j != 3 {
		t.Errorf("Overlaps = %d, %d; want 1, 3", i, j)
	}
	if i, j := slots.Overlaps(ivs[:3]); i != -1 || j != -1 {
		t.Errorf("Overlaps without the last = %d, %d; want -1, -1", i, j)
	}
}

// TestFind_WorkingHoursInGap reads working hours that start at a time the
// day's DST change skips by RFC 5545 §3.3.5: 02:30 on 10 March 2030 in New
// York (clocks jump from 02:00 to 03:00) is 03:30 EDT, so hours from 02:30
// to 04:00 leave half an hour.
func TestFind_WorkingHoursInGap(t *testing.T) {
	newYork := zone(t, "America/New_York")
	u := func(s string) time.Time { return at(t, time.UTC, s) }
	wh := &slots.WorkingHours{Location: newYork, Intervals: []slots.WeeklyInterval{{Day: time.Sunday, Start: 2*60 + 30, End: 4 * 60}}}
	got := slots.Find(&slots.Request{
		Start: u("2030-03-10 04:00"), End: u("2030-03-10 10:00"),
		Duration: 30 * time.Minute, Interval: 30 * time.Minute, Location: time.UTC,
		Participants: []slots.Participant{{ID: "ny", Required: true, WorkingHours: wh}},
	})
	want := []slots.Slot{{Start: u("2030-03-10 07:30"), End: u("2030-03-10 08:00"), Participants: []string{"ny"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slots in working hours from 02:30 on the gap day (-want +got):\n%s", diff)
	}
}
