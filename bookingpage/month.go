package bookingpage

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
)

// maxSlotQueries bounds the slot queries of one month: each answers at
// most availability.MaxResults slots.
const maxSlotQueries = 5

// daySlots are the slot starts of each day of a month, by date in the
// guest's zone.
type daySlots map[string][]time.Time

// monthSlots asks the booking layer for the free slots from the start of
// month (or now, if later) to its end, in loc.
func monthSlots(ctx context.Context, svc *booking.Service, t *booking.BookingType, month time.Time, now time.Time, loc *time.Location) (daySlots, error) {
	out := daySlots{}
	from, end := month, month.AddDate(0, 1, 0)
	if now.After(from) {
		from = now.Truncate(time.Minute).Add(time.Minute)
	}
	for range maxSlotQueries {
		if !end.After(from.Add(time.Duration(t.DurationMinutes) * time.Minute)) {
			break
		}
		res, err := svc.ListSlots(ctx, t.ID, &booking.SlotParams{StartDateTime: from.Format(time.RFC3339), EndDateTime: end.Format(time.RFC3339), TimeZone: loc.String()})
		if err != nil {
			return nil, err
		}
		for _, s := range res.Data {
			start, err := time.Parse(time.RFC3339, s.Start.DateTime)
			if err != nil {
				continue
			}
			start = start.In(loc)
			d := start.Format(time.DateOnly)
			out[d] = append(out[d], start)
			from = start.Add(time.Minute)
		}
		if len(res.Data) < availability.MaxResults {
			break
		}
	}
	return out, nil
}

// monthView is the month grid of the pick page.
type monthView struct {
	Label      string
	Prev, Next string
	Weeks      [][]dayCell
}

// dayCell is one day of the grid; Link is set on days with free slots.
type dayCell struct {
	Day      int
	Label    string
	Link     string
	Selected bool
	Blank    bool
}

// pickQuery is where the pick page is: the month shown, the day chosen
// and the guest's zone.
type pickQuery struct {
	base  string
	month time.Time
	date  string
	loc   *time.Location
}

func (q pickQuery) link(month time.Time, date string) string {
	v := url.Values{"month": {month.Format("2006-01")}, "tz": {q.loc.String()}}
	if date != "" {
		v.Set("date", date)
	}
	return q.base + "?" + v.Encode()
}

// buildMonth lays the days of q.month out in weeks from Monday.
func buildMonth(q pickQuery, slots daySlots, first, last time.Time) monthView {
	m := monthView{Label: q.month.Format("January 2006")}
	if q.month.After(first) {
		m.Prev = q.link(q.month.AddDate(0, -1, 0), "")
	}
	if next := q.month.AddDate(0, 1, 0); !next.After(last) {
		m.Next = q.link(next, "")
	}
	var week []dayCell
	for range (int(q.month.Weekday()) + 6) % 7 {
		week = append(week, dayCell{Blank: true})
	}
	for d := q.month; d.Month() == q.month.Month(); d = d.AddDate(0, 0, 1) {
		date := d.Format(time.DateOnly)
		c := dayCell{Day: d.Day(), Label: d.Format("Monday 2 January"), Selected: date == q.date}
		if len(slots[date]) > 0 {
			c.Link = q.link(q.month, date)
		}
		week = append(week, c)
		if len(week) == 7 {
			m.Weeks = append(m.Weeks, week)
			week = nil
		}
	}
	if len(week) > 0 {
		for len(week) < 7 {
			week = append(week, dayCell{Blank: true})
		}
		m.Weeks = append(m.Weeks, week)
	}
	return m
}

// firstDay is the first date of the month with slots, "" when none.
func (s daySlots) firstDay() string {
	var dates []string
	for d := range s {
		dates = append(dates, d)
	}
	slices.Sort(dates)
	if len(dates) == 0 {
		return ""
	}
	return dates[0]
}

// zones are the time zones the guest can choose from, besides the
// detected one and the type's.
var zones = []string{
	"Pacific/Honolulu", "America/Anchorage", "America/Los_Angeles", "America/Vancouver", "America/Denver",
	"America/Phoenix", "America/Chicago", "America/Mexico_City", "America/New_York", "America/Toronto",
	"America/Bogota", "America/Lima", "America/Caracas", "America/Halifax", "America/Santiago",
	"America/Sao_Paulo", "America/Argentina/Buenos_Aires", "America/St_Johns", "Atlantic/Azores", "UTC",
	"Europe/London", "Europe/Dublin", "Europe/Lisbon", "Africa/Lagos", "Europe/Paris", "Europe/Berlin",
	"Europe/Madrid", "Europe/Rome", "Europe/Amsterdam", "Europe/Stockholm", "Europe/Warsaw", "Africa/Johannesburg",
	"Africa/Cairo", "Europe/Athens", "Europe/Helsinki", "Europe/Kyiv", "Europe/Istanbul", "Europe/Moscow",
	"Africa/Nairobi", "Asia/Riyadh", "Asia/Tehran", "Asia/Dubai", "Asia/Kabul", "Asia/Karachi", "Asia/Kolkata",
	"Asia/Kathmandu", "Asia/Dhaka", "Asia/Yangon", "Asia/Bangkok", "Asia/Jakarta", "Asia/Singapore",
	"Asia/Shanghai", "Asia/Hong_Kong", "Asia/Manila", "Australia/Perth", "Asia/Seoul", "Asia/Tokyo",
	"Australia/Adelaide", "Australia/Darwin", "Australia/Brisbane", "Australia/Sydney", "Pacific/Noumea",
	"Pacific/Auckland", "Pacific/Chatham", "Pacific/Tongatapu", "Pacific/Kiritimati",
}

// zoneChoices is zones with the current and the type's zones added.
func zoneChoices(current, typeZone string) []string {
	out := slices.Clone(zones)
	for _, z := range []string{typeZone, current} {
		if !slices.Contains(out, z) {
			out = append([]string{z}, out...)
		}
	}
	return out
}
