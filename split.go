package unical

import (
	"fmt"
	"strings"
	"time"

	"github.com/unical/unical/internal/recur"
)

// SplitRecurrence splits the recurrence lines of a series that starts at
// start (a date label at midnight UTC for all-day series) at the occurrence
// that originally starts at `at`, for "this and following" edits:
//
//   - before holds the lines of the series cut short just before `at`. An
//     RRULE with COUNT stays counted: when the rule made k-1 occurrences
//     before `at`, before gets COUNT=k-1. Any other RRULE gets UNTIL set to
//     the start of its last occurrence before `at`, rather than to just
//     before `at`, so that a provider whose series end is a date (Graph's
//     endDate, inclusive, in the series zone) reads the same end. A rule
//     with no occurrence before `at` is left out. RDATE and EXDATE values
//     before `at` stay; the others go to after.
//   - after holds the lines of a series that starts at at+shift: an RRULE
//     with COUNT=n gets COUNT=n-k+1 (left out when nothing is left), one
//     with UNTIL keeps its bound moved by shift (left out when it ended
//     before `at`), and the RDATE and EXDATE values from `at` on are moved
//     by shift, as the whole series is.
//
// The lines must have passed validation; an RRULE that cannot be read is an
// error naming the line as recurrence[i].
func SplitRecurrence(lines []string, start time.Time, allDay bool, at time.Time, shift time.Duration) (before, after []string, err error) {
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		l, err := recur.ReadLine(line)
		if err != nil {
			return nil, nil, invalidf(fmt.Sprintf("recurrence[%d]", i), "%q is not a recurrence line.", raw)
		}
		switch l.Name {
		case "RRULE", "EXRULE":
			b, a, err := recur.SplitRule(l.Name, l.Value, start, allDay, at, shift)
			if err != nil {
				return nil, nil, recurrenceError(err)
			}
			if b != "" {
				before = append(before, b)
			}
			if a != "" {
				after = append(after, a)
			}
		case "RDATE", "EXDATE":
			b, a, err := recur.SplitDates(l, start, allDay, at, shift)
			if err != nil {
				return nil, nil, invalidf(fmt.Sprintf("recurrence[%d]", i), "%q: %v", raw, err)
			}
			if b != "" {
				before = append(before, b)
			}
			if a != "" {
				after = append(after, a)
			}
		default:
			before, after = append(before, line), append(after, line)
		}
	}
	return before, after, nil
}
