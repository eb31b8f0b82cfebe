package recur

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustLoad(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

// collect formats the occurrences of seq, so diffs show zones too.
func collect(seq func(func(Occurrence) bool)) []string {
	var out []string
	for o := range seq {
		s := o.Start.Format(time.RFC3339) + "/" + o.End.Format(time.RFC3339)
		if o.OriginalStart != o.Start {
			s += " orig " + o.OriginalStart.Format(time.RFC3339)
		}
		out = append(out, s)
	}
	return out
}

// fullCopy returns a copy of s that never fast-forwards: every window is
// expanded by iterating from DTSTART, as plain rrule-go does.
func fullCopy(s *Set) *Set {
	c := *s
	c.noSkip = true
	return &c
}

type span struct{ offset, length time.Duration }

const day = 24 * time.Hour

// longWindows suit daily and slower rules; shortWindows sub-daily ones.
var (
	longWindows = []span{
		{-30 * day, 31 * day}, {0, day}, {17 * day, 7 * day}, {200*day + 5*time.Hour, 35 * day},
		{3*365*day + 45*day, 400 * day}, {9*365*day + 100*day, 31 * day}, {9*365*day + 101*day + 9*time.Hour, time.Hour},
	}
	shortWindows = []span{
		{-time.Hour, 3 * time.Hour}, {2*day + 90*time.Minute, day}, {40 * day, 3 * day}, {200*day + 7*time.Minute, 2 * day},
	}
)

func TestWindowEqualsFull(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	ny := mustLoad(t, "America/New_York")
	lordHowe := mustLoad(t, "Australia/Lord_Howe")
	apia := mustLoad(t, "Pacific/Apia")
	utc := func(y int, m time.Month, d, h, mi int) time.Time { return time.Date(y, m, d, h, mi, 0, 0, time.UTC) }
	be := func(y int, m time.Month, d, h, mi int) time.Time { return Date(y, m, d, h, mi, 0, berlin) }
	nyc := func(y int, m time.Month, d, h, mi int) time.Time { return Date(y, m, d, h, mi, 0, ny) }

	tests := []struct {
		name   string
		lines  []string
		start  time.Time
		allDay bool
		dur    time.Duration
		short  bool // sub-daily: use shortWindows
	}{
		{name: "Daily", lines: []string{"RRULE:FREQ=DAILY"}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "DailyInterval3", lines: []string{"RRULE:FREQ=DAILY;INTERVAL=3"}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "DailyCount", lines: []string{"RRULE:FREQ=DAILY;COUNT=500"}, start: utc(2026, 1, 5, 9, 0)},
		{name: "DailyInterval2CountExdate", lines: []string{"RRULE:FREQ=DAILY;INTERVAL=2;COUNT=300", "EXDATE:20260107T090000Z,20270101T090000Z"}, start: utc(2026, 1, 5, 9, 0), dur: 30 * time.Minute},
		{name: "DailyWeekdaysCount", lines: []string{"RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=400"}, start: be(2026, 1, 7, 8, 30), dur: time.Hour},
		{name: "DailyByMonth", lines: []string{"RRULE:FREQ=DAILY;BYMONTH=1,7"}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "DailyTimesCount", lines: []string{"RRULE:FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30;COUNT=1000"}, start: be(2026, 1, 5, 9, 0), dur: 15 * time.Minute},
		{name: "Weekly", lines: []string{"RRULE:FREQ=WEEKLY"}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "WeeklyInterval2", lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR"}, start: be(2026, 1, 7, 9, 0), dur: time.Hour},
		{name: "WeeklyInterval3WkstSU", lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=TU,SU;WKST=SU"}, start: nyc(2026, 1, 6, 18, 0), dur: 2 * time.Hour},
		{name: "WeeklyCount", lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO,TH;COUNT=200"}, start: be(2026, 1, 8, 9, 0), dur: time.Hour},
		{name: "WeeklyUnsyncedCount", lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=SA;COUNT=50;WKST=SU"}, start: be(2026, 1, 6, 9, 0), dur: time.Hour},
		{name: "WeeklySetposLastWeekday", lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"}, start: be(2026, 1, 5, 16, 0), dur: time.Hour},
		{name: "Monthly", lines: []string{"RRULE:FREQ=MONTHLY"}, start: be(2026, 1, 15, 9, 0), dur: time.Hour},
		{name: "Monthly31st", lines: []string{"RRULE:FREQ=MONTHLY"}, start: be(2026, 1, 31, 9, 0), dur: time.Hour},
		{name: "MonthlyLastDayCount", lines: []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=40"}, start: be(2026, 1, 31, 9, 0), dur: time.Hour},
		{name: "MonthlySecondThursdayCount", lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=2TH;COUNT=30"}, start: be(2026, 1, 8, 9, 0), dur: time.Hour},
		{name: "MonthlyLastFridayInterval2", lines: []string{"RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=-1FR"}, start: nyc(2026, 1, 30, 17, 0), dur: time.Hour},
		{name: "MonthlySetposFirstLastWeekday", lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1"}, start: be(2026, 1, 1, 9, 0), dur: time.Hour},
		{name: "MonthlyTwoDaysInterval3Count", lines: []string{"RRULE:FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=1,15;COUNT=25"}, start: be(2026, 1, 1, 9, 0), dur: time.Hour},
		{name: "MonthlyEveryMondayCount", lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=MO;COUNT=60"}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "Yearly", lines: []string{"RRULE:FREQ=YEARLY"}, start: be(2026, 6, 1, 9, 0), dur: time.Hour},
		{name: "YearlyLeapDay", lines: []string{"RRULE:FREQ=YEARLY"}, start: be(2024, 2, 29, 9, 0), dur: time.Hour},
		{name: "YearlyThanksgiving", lines: []string{"RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH"}, start: nyc(2026, 11, 26, 12, 0), dur: 3 * time.Hour},
		{name: "YearlyDSTSundaysCount", lines: []string{"RRULE:FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU;COUNT=20"}, start: be(2026, 3, 29, 10, 0), dur: time.Hour},
		{name: "YearlyWeekNo", lines: []string{"RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"}, start: be(2026, 5, 11, 9, 0), dur: time.Hour},
		{name: "YearlyYearDays", lines: []string{"RRULE:FREQ=YEARLY;BYYEARDAY=1,100,-1"}, start: be(2026, 1, 1, 9, 0), dur: time.Hour},
		{name: "YearlyInterval2Count", lines: []string{"RRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=6;BYMONTHDAY=15;COUNT=6"}, start: be(2026, 6, 15, 9, 0), dur: time.Hour},
		{name: "YearlySetposMonths", lines: []string{"RRULE:FREQ=YEARLY;BYMONTH=1,2,3;BYDAY=MO;BYSETPOS=2,-2"}, start: be(2026, 1, 12, 9, 0), dur: time.Hour},
		{name: "DailyUntilUTCBerlin", lines: []string{"RRULE:FREQ=DAILY;UNTIL=20320317T080000Z"}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "WeeklyUntilDateNY", lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20350410"}, start: nyc(2026, 1, 6, 9, 0), dur: time.Hour},
		{name: "AllDayYearly", lines: []string{"RRULE:FREQ=YEARLY"}, start: utc(2026, 4, 1, 0, 0), allDay: true},
		{name: "AllDayWeekendCount", lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=SA,SU;COUNT=100"}, start: utc(2026, 1, 3, 0, 0), allDay: true, dur: 24 * time.Hour},
		{name: "AllDayLastOfMonthExdate", lines: []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1", "EXDATE;VALUE=DATE:20260228,20300131"}, start: utc(2026, 1, 31, 0, 0), allDay: true, dur: 48 * time.Hour},
		{name: "NYGapDaily0230", lines: []string{"RRULE:FREQ=DAILY"}, start: nyc(2026, 3, 1, 2, 30), dur: time.Hour},
		{name: "BerlinFoldDaily0230Count", lines: []string{"RRULE:FREQ=DAILY;COUNT=800"}, start: be(2026, 10, 20, 2, 30), dur: time.Hour},
		{name: "LordHoweDaily0215", lines: []string{"RRULE:FREQ=DAILY"}, start: Date(2026, 1, 1, 2, 15, 0, lordHowe), dur: time.Hour},
		{name: "ApiaSkippedDay", lines: []string{"RRULE:FREQ=DAILY;COUNT=40"}, start: Date(2011, 12, 20, 10, 0, 0, apia), dur: time.Hour},
		{name: "UnionRdateExrule", lines: []string{
			"RRULE:FREQ=WEEKLY;BYDAY=MO", "RRULE:FREQ=MONTHLY;BYMONTHDAY=1", "EXRULE:FREQ=MONTHLY;BYDAY=1MO",
			"RDATE;TZID=Europe/Berlin:20260704T120000,20310101T090000", "RDATE;VALUE=PERIOD:20350101T080000Z/PT26H",
		}, start: be(2026, 1, 5, 9, 0), dur: time.Hour},
		{name: "HourlyInterval5NY", lines: []string{"RRULE:FREQ=HOURLY;INTERVAL=5"}, start: nyc(2026, 3, 1, 1, 0), dur: 30 * time.Minute, short: true},
		{name: "HourlyByHourCount", lines: []string{"RRULE:FREQ=HOURLY;BYHOUR=9,10;COUNT=100"}, start: be(2026, 3, 25, 9, 15), short: true},
		{name: "HourlyCount", lines: []string{"RRULE:FREQ=HOURLY;INTERVAL=7;COUNT=400"}, start: be(2026, 3, 25, 9, 15), short: true},
		{name: "MinutelyInterval45Count", lines: []string{"RRULE:FREQ=MINUTELY;INTERVAL=45;COUNT=5000"}, start: be(2026, 3, 28, 22, 0), dur: 10 * time.Minute, short: true},
		{name: "SecondlyInterval7777", lines: []string{"RRULE:FREQ=SECONDLY;INTERVAL=7777"}, start: be(2026, 3, 28, 22, 0), short: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse(tc.lines, tc.start, tc.allDay)
			if err != nil {
				t.Fatal(err)
			}
			full := fullCopy(s)
			windows := longWindows
			if tc.short {
				windows = shortWindows
			}
			for _, w := range windows {
				from := tc.start.Add(w.offset)
				if tc.allDay {
					from = from.In(berlin) // A display zone other than UTC.
				}
				to := from.Add(w.length)
				want := collect(full.Between(from, to, tc.dur))
				got := collect(s.Between(from, to, tc.dur))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Between(%v, %v) mismatch (-full +fast-forwarded):\n%s", from, to, diff)
				}
			}
		})
	}
}

// TestSkipTo checks that windows far from DTSTART really skip: the rule's
// anchor lands in the window's period, with COUNT reduced.
func TestSkipTo(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	start := Date(2026, 1, 5, 9, 0, 0, berlin)
	tests := []struct {
		name       string
		line       string
		from       time.Time
		wantAnchor string
		wantCount  int
		wantOK     bool
	}{
		{name: "Daily", line: "RRULE:FREQ=DAILY", from: Date(2034, 6, 10, 12, 0, 0, berlin), wantAnchor: "2034-06-10T00:00:00Z", wantOK: true},
		{name: "DailyInterval3", line: "RRULE:FREQ=DAILY;INTERVAL=3", from: Date(2026, 1, 20, 12, 0, 0, berlin), wantAnchor: "2026-01-20T00:00:00Z", wantOK: true},
		{name: "WeeklyCountArithmetic", line: "RRULE:FREQ=WEEKLY;BYDAY=MO,TH;COUNT=100", from: Date(2026, 3, 4, 0, 0, 0, berlin), wantAnchor: "2026-03-02T00:00:00Z", wantCount: 100 - 16, wantOK: true},
		{name: "MonthlyCountUsedUp", line: "RRULE:FREQ=MONTHLY;COUNT=3", from: Date(2027, 1, 1, 0, 0, 0, berlin), wantOK: false},
		{name: "BeforeStartNoSkip", line: "RRULE:FREQ=DAILY", from: Date(2025, 1, 1, 0, 0, 0, berlin), wantAnchor: "2026-01-05T09:00:00Z", wantOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse([]string{tc.line}, start, false)
			if err != nil {
				t.Fatal(err)
			}
			opt, ok := s.skipTo(s.rules[0], tc.from.Unix())
			got := struct {
				Anchor string
				Count  int
				OK     bool
			}{OK: ok}
			if ok {
				got.Anchor, got.Count = opt.Dtstart.Format(time.RFC3339), opt.Count
			}
			want := struct {
				Anchor string
				Count  int
				OK     bool
			}{tc.wantAnchor, tc.wantCount, tc.wantOK}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("skipTo() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// fuzzZones are the series zones the fuzz target picks from: no DST, the
// two DST directions, a 30-minute DST and a southern-hemisphere zone.
var fuzzZones = []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Asia/Kolkata"}

// fuzzRule builds a recurrence line from fuzz inputs.
func fuzzRule(freq, interval, bydays uint8, monthday, setpos int8, end uint16, allDay bool) string {
	freqs := []string{"YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY"}
	f := freqs[int(freq)%len(freqs)]
	if allDay && f == "HOURLY" {
		f = "DAILY"
	}
	parts := []string{"FREQ=" + f}
	if n := int(interval) % 5; n > 1 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", n))
	}
	var days []string
	ord := ""
	if (f == "MONTHLY" || f == "YEARLY") && bydays&0x80 != 0 {
		ord = fmt.Sprint(int(bydays>>5&3) - 1) // -1, 0, 1 or 2 (0 means none).
		if ord == "0" {
			ord = ""
		}
	}
	for i, d := range []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"} {
		if bydays&(1<<i) != 0 && i < 5 || bydays&0x60 == 0x60 && i >= 5 {
			days = append(days, ord+d)
		}
	}
	if len(days) > 0 && f != "HOURLY" {
		parts = append(parts, "BYDAY="+strings.Join(days, ","))
	}
	if monthday != 0 && (f == "MONTHLY" || f == "YEARLY") {
		parts = append(parts, fmt.Sprintf("BYMONTHDAY=%d", int(monthday)%28))
	}
	if setpos != 0 && len(parts) > 1 && f != "HOURLY" {
		parts = append(parts, fmt.Sprintf("BYSETPOS=%d", int(setpos)%4))
	}
	switch end % 3 {
	case 1:
		parts = append(parts, fmt.Sprintf("COUNT=%d", 1+int(end)%700))
	case 2:
		u := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(end) * 4 * time.Hour)
		if allDay {
			parts = append(parts, "UNTIL="+u.Format("20060102"))
		} else {
			parts = append(parts, "UNTIL="+u.Format("20060102T150405Z"))
		}
	}
	return "RRULE:" + strings.Join(parts, ";")
}

// fuzzExtras returns the other recurrence lines picked by the bits of x:
// an EXDATE and an RDATE near the start and late in the series, a second
// RRULE and an EXRULE.
func fuzzExtras(x uint8, start time.Time, allDay bool) []string {
	param, layout := "TZID="+start.Location().String(), "20060102T150405"
	if allDay {
		param, layout = "VALUE=DATE", "20060102"
	}
	values := func(ts ...time.Time) string {
		var vs []string
		for _, t := range ts {
			vs = append(vs, t.Format(layout))
		}
		return param + ":" + strings.Join(vs, ",")
	}
	var out []string
	if x&1 != 0 {
		out = append(out, "EXDATE;"+values(start.AddDate(0, 0, 10), start.AddDate(8, 0, 0)))
	}
	if x&2 != 0 {
		out = append(out, "RDATE;"+values(start.AddDate(0, 0, 100).Add(3*time.Hour), start.AddDate(7, 5, 3)))
	}
	if x&4 != 0 {
		out = append(out, "RRULE:FREQ=WEEKLY;BYDAY=SU;INTERVAL=3")
	}
	if x&8 != 0 {
		out = append(out, "EXRULE:FREQ=MONTHLY;BYMONTHDAY=1,2,3")
	}
	if x&16 != 0 && !allDay {
		out = append(out, "RDATE;VALUE=PERIOD:"+start.AddDate(5, 0, 0).UTC().Format("20060102T150405Z")+"/P2DT3H")
	}
	return out
}

// FuzzWindowEqualsFull checks that fast-forwarded window expansion yields
// exactly what expansion from DTSTART yields, for generated rules, zones
// and windows. Invalid rules are skipped.
func FuzzWindowEqualsFull(f *testing.F) {
	f.Add(uint8(3), uint8(0), uint8(0), int8(0), int8(0), uint16(0), uint8(1), false, uint16(10), uint16(3000), uint8(30), uint16(9*60), uint8(0))
	f.Add(uint8(2), uint8(2), uint8(0x15), int8(0), int8(0), uint16(301), uint8(2), false, uint16(0), uint16(700), uint8(20), uint16(2*60+30), uint8(0))
	f.Add(uint8(1), uint8(0), uint8(0x9f), int8(0), int8(-1), uint16(0), uint8(3), false, uint16(100), uint16(1200), uint8(60), uint16(23*60+45), uint8(0))
	f.Add(uint8(0), uint8(3), uint8(0), int8(-1), int8(0), uint16(2), uint8(4), false, uint16(59), uint16(2000), uint8(90), uint16(0), uint8(0))
	f.Add(uint8(1), uint8(0), uint8(0), int8(31), int8(0), uint16(100), uint8(0), true, uint16(30), uint16(400), uint8(40), uint16(0), uint8(0))
	f.Add(uint8(4), uint8(3), uint8(0), int8(0), int8(0), uint16(0), uint8(2), false, uint16(66), uint16(20), uint8(2), uint16(90), uint8(0))
	f.Add(uint8(0), uint8(1), uint8(0xff), int8(5), int8(2), uint16(4), uint8(5), false, uint16(200), uint16(900), uint8(200), uint16(12*60), uint8(0))
	f.Add(uint8(3), uint8(0), uint8(0), int8(0), int8(0), uint16(0), uint8(1), false, uint16(10), uint16(2900), uint8(250), uint16(9*60), uint8(31))
	f.Add(uint8(2), uint8(0), uint8(0x60), int8(0), int8(0), uint16(0), uint8(3), true, uint16(10), uint16(2700), uint8(250), uint16(0), uint8(15))
	f.Fuzz(func(t *testing.T, freq, interval, bydays uint8, monthday, setpos int8, end uint16,
		zone uint8, allDay bool, startDay, winDay uint16, winLen uint8, minuteOfDay uint16, extras uint8) {
		loc, err := time.LoadLocation(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		line := fuzzRule(freq, interval, bydays, monthday, setpos, end, allDay)
		mod := int(minuteOfDay) % (24 * 60)
		start := Date(2026, 1, 1+int(startDay)%366, mod/60, mod%60, 0, loc)
		lines := append([]string{line}, fuzzExtras(extras, start, allDay)...)
		s, err := Parse(lines, start, allDay)
		if err != nil {
			return
		}
		from := start.Add(time.Duration(int(winDay)%3650) * day)
		to := from.Add(time.Duration(1+int(winLen)) * day / 4)
		if strings.Contains(line, "HOURLY") {
			from = start.Add(time.Duration(int(winDay)%120) * time.Hour)
			to = from.Add(time.Duration(1+int(winLen)%48) * time.Hour)
		}
		want := collect(fullCopy(s).Between(from, to, 90*time.Minute))
		got := collect(s.Between(from, to, 90*time.Minute))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q from %v, Between(%v, %v) mismatch (-full +fast-forwarded):\n%s", lines, start, from, to, diff)
		}
	})
}
