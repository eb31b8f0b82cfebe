package recur

import (
	"fmt"
	"strings"
	"time"
)

// InstanceID returns the id of one instance of a series, in the form
// Google Calendar uses for its instances: "<seriesID>_<YYYYMMDDTHHMMSSZ>"
// with the original start in UTC for timed series, "<seriesID>_<YYYYMMDD>"
// with the original date for all-day series (reference §1.5). The original
// start is the instance's RECURRENCE-ID, so the id survives the instance
// being moved. Sub-second parts are dropped, as iCalendar has none.
func InstanceID(seriesID string, originalStart time.Time, allDay bool) string {
	if allDay {
		return seriesID + "_" + originalStart.Format("20060102")
	}
	return seriesID + "_" + originalStart.UTC().Format("20060102T150405Z")
}

// ParseInstanceID splits an id made by InstanceID. The series id may itself
// contain underscores: the suffix after the last one is the original start,
// returned in UTC (for all-day ids, the date at midnight UTC). An id
// without a valid suffix is not an instance id and yields an error.
func ParseInstanceID(id string) (seriesID string, originalStart time.Time, allDay bool, err error) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", time.Time{}, false, fmt.Errorf("recur: %q is not an instance id", id)
	}
	seriesID, suffix := id[:i], id[i+1:]
	switch len(suffix) {
	case len("20060102"):
		originalStart, err = time.ParseInLocation("20060102", suffix, time.UTC)
		allDay = true
	case len("20060102T150405Z"):
		originalStart, err = time.ParseInLocation("20060102T150405Z", suffix, time.UTC)
	default:
		err = fmt.Errorf("bad length")
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("recur: %q is not an instance id", id)
	}
	return seriesID, originalStart, allDay, nil
}
