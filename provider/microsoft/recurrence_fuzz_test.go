package microsoft

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
)

// FuzzRecurrenceToGraph converts recurrence lines as a client sends them
// for a Microsoft account, from a series start in any year the API reads.
// It never panics; a line Graph cannot express is a 400 naming the
// recurrence; and what it accepts Graph reads back as a recurrence.
func FuzzRecurrenceToGraph(f *testing.F) {
	for _, rule := range []string{
		"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU",
		"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12",
		"RRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=11;BYDAY=4TH",
		"RRULE:FREQ=DAILY;UNTIL=20260131",
		"RRULE:FREQ=MONTHLY;BYMONTHDAY=31;UNTIL=99991231T235959Z",
		"EXDATE:20260105T090000Z",
	} {
		f.Add(rule, false, int64(0))
		f.Add(rule, true, int64(-2025*365*86400))
	}
	base := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	first, last := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, line string, allDay bool, startSec int64) {
		sec := base.Unix() + startSec%(last-first+1)
		if sec < first || sec > last {
			return
		}
		start := time.Unix(sec, 0).UTC()
		if allDay {
			start = start.Truncate(24 * time.Hour)
		}
		g, err := recurrenceToGraph([]string{line}, start, "UTC", allDay)
		if err != nil {
			var e *unical.Error
			if !errors.As(err, &e) || e.Code != unical.CodeInvalid || !strings.HasPrefix(e.Field, "recurrence") {
				t.Fatalf("refusal %#v is not a 400 naming the recurrence", err)
			}
			return
		}
		if g == nil {
			t.Fatalf("%q accepted as no recurrence", line)
		}
		if _, err := recurrenceFromGraph(g, allDay, time.UTC); err != nil {
			t.Fatalf("%q became %+v, which does not read back: %v", line, g, err)
		}
	})
}
