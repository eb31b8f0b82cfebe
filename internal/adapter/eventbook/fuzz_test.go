package eventbook_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
)

// FuzzList builds a calendar from a recurrence rule and a few edits of
// single occurrences and events, then lists it with a window and pages
// through the listing. Whatever the rule (FREQ=SECONDLY included), a
// listing holds at most the calendar's entries, never instances; its pages
// together are the listing, each event once; every event is in the window,
// a series, or an override of a listed series; and with singleEvents every
// override of a listed series comes along, for the Client to expand.
func FuzzList(f *testing.F) {
	f.Add("RRULE:FREQ=SECONDLY", int64(0), uint32(1), int64(0), uint32(366*86400), uint8(5), []byte{1, 5, 2, 7, 3})
	f.Add("RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10", int64(86400), uint32(3600), int64(-86400), uint32(30*86400), uint8(2), []byte{1, 0, 1, 2, 2, 4, 4})
	f.Add("RRULE:FREQ=DAILY;UNTIL=20260110T000000Z", int64(0), uint32(0), int64(5*86400), uint32(86400), uint8(0), []byte{3, 1, 5, 0})
	f.Add("EXDATE:20260102T000000Z", int64(0), uint32(60), int64(0), uint32(0), uint8(1), []byte{0, 1, 1, 1})
	// Near the ends of the years the API reads: a weekly series in the
	// year 1, a secondly one in the last hour of 9999.
	toYear1 := time.Date(1, 1, 8, 9, 0, 0, 0, time.UTC).Unix() - time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	toLastHour := time.Date(9999, 12, 31, 23, 0, 0, 0, time.UTC).Unix() - time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	f.Add("RRULE:FREQ=WEEKLY;BYDAY=MO,SU", toYear1, uint32(3600), int64(-3*86400), uint32(60*86400), uint8(3), []byte{1, 0, 2, 3})
	f.Add("RRULE:FREQ=SECONDLY;INTERVAL=97", toLastHour, uint32(59), int64(0), uint32(3600), uint8(4), []byte{1, 2, 2, 9, 0, 4})
	f.Fuzz(func(t *testing.T, rule string, startSec int64, durSec uint32, fromSec int64, windowSec uint32, pageSize uint8, ops []byte) {
		if len(ops) > 64 || len(rule) > 256 {
			return
		}
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		// A series may start in any year the API reads (1 to 9999) and
		// last up to the end of 9999; starts near base stay the most
		// likely, as the fuzzer's small numbers land there.
		first, last := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
		sec := base.Unix() + startSec%(last-first+1)
		switch {
		case sec > last:
			sec -= last - first + 1
		case sec < first:
			sec += last - first + 1
		}
		start := time.Unix(sec, 0).UTC()
		dur := time.Duration(durSec) * time.Second
		if start.Add(dur).Unix() > last {
			return
		}
		at := func(t time.Time) unical.EventDateTime {
			return unical.EventDateTime{DateTime: t.Format(time.RFC3339), TimeZone: "UTC"}
		}
		b := eventbook.New()
		version := int64(1)
		series := b.Create("evt0", version, &unical.EventParams{
			Title: unical.Some("series"), Start: unical.Some(at(start)), End: unical.Some(at(start.Add(dur))),
			Recurrence: unical.Some([]string{rule}),
		}, self, t0)
		for i := 0; i+1 < len(ops); i += 2 {
			version++
			n := time.Duration(ops[i+1]) * time.Second * 37
			switch ops[i] % 5 {
			case 0: // a single event
				b.Create(fmt.Sprintf("evt%d", i+1), version, &unical.EventParams{
					Title: unical.Some("single"), Start: unical.Some(at(start.Add(n))), End: unical.Some(at(start.Add(n + dur))),
				}, self, t0)
			case 1: // move an occurrence (or fail: it may not exist)
				id := series.ID + "_" + start.Add(n).UTC().Format("20060102T150405Z")
				b.UpdateInstance(id, version, &unical.EventParams{Start: unical.Some(at(start.Add(n * 3))), End: unical.Some(at(start.Add(n*3 + dur)))}, self, t0)
			case 2: // cancel an occurrence
				b.DeleteInstance(series.ID+"_"+start.Add(n).UTC().Format("20060102T150405Z"), version, t0)
			case 3: // answer the series
				b.Respond(series.ID, version, self, unical.ResponseTentative, t0)
			case 4: // delete a single event
				b.Delete(fmt.Sprintf("evt%d", int(ops[i+1])%len(ops)), version)
			}
		}
		q := &unical.EventQuery{SingleEvents: ops == nil || len(ops)%2 == 1}
		if windowSec > 0 {
			q.TimeMin = start.Add(time.Duration(fromSec%(800*86400)) * time.Second)
			q.TimeMax = q.TimeMin.Add(time.Duration(windowSec) * time.Second)
			if q.TimeMax.Unix() > last+1 {
				return // past what the API reads
			}
		}
		all, err := b.List(q, -1)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if len(all) > len(b.Events) {
			t.Fatalf("List returned %d events from a calendar of %d entries", len(all), len(b.Events))
		}
		listed := map[string]bool{}
		for _, e := range all {
			listed[e.ID] = true
		}
		for _, e := range all {
			isOverride := e.RecurringEventID != "" && e.OriginalStart != nil && listed[e.RecurringEventID]
			if !e.IsRecurring && !isOverride && !eventbook.InWindow(e, q.TimeMin, q.TimeMax) {
				t.Errorf("List returned %s outside the window", e.ID)
			}
		}
		if q.SingleEvents {
			for id, st := range b.Events {
				if !st.Deleted && st.Event.RecurringEventID != "" && st.Event.OriginalStart != nil && listed[st.Event.RecurringEventID] && !listed[id] {
					t.Errorf("List with singleEvents left out override %s of a listed series", id)
				}
			}
		}
		var paged []*unical.Event
		cursor := ""
		for range len(all) + 2 {
			page, next := eventbook.Page(all, cursor, int(pageSize%7))
			paged = append(paged, page...)
			if next == "" {
				break
			}
			cursor = next
		}
		if diff := cmp.Diff(all, paged); diff != "" {
			t.Errorf("pages together mismatch the listing (-want +got):\n%s", diff)
		}
	})
}
