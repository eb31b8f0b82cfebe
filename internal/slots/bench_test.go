package slots_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/unical/unical/internal/slots"
)

// BenchmarkFind10x14Days is issue 15's bound for the computation alone: 10
// participants in five zones, each with working hours and four meetings a
// day, over 14 days in 15-minute steps (issue 15 asks for under 1 ms).
func BenchmarkFind10x14Days(b *testing.B) {
	zones := []string{"Europe/Berlin", "America/New_York", "Asia/Kolkata", "Europe/London", "America/Los_Angeles"}
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	req := &slots.Request{
		Start: start, End: start.AddDate(0, 0, 14),
		Duration: 30 * time.Minute, Interval: 15 * time.Minute, Location: time.UTC,
		BufferBefore: 5 * time.Minute, BufferAfter: 5 * time.Minute,
	}
	for i := range 10 {
		loc, err := time.LoadLocation(zones[i%len(zones)])
		if err != nil {
			b.Fatal(err)
		}
		p := slots.Participant{ID: fmt.Sprintf("p%d", i), Required: i < 7, WorkingHours: weekdays(loc)}
		for d := range 14 {
			for m := range 4 {
				s := start.AddDate(0, 0, d).Add(time.Duration(6+4*m+i%3) * time.Hour)
				p.Busy = append(p.Busy, slots.Interval{Start: s, End: s.Add(45 * time.Minute)})
			}
		}
		req.Participants = append(req.Participants, p)
	}
	b.ReportAllocs()
	for b.Loop() {
		slots.Find(req)
	}
}
