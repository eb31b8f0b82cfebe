package dashboard

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/unical/unical"
)

// This file lays out a week of events as a grid: days as columns, the
// day cut into slotsPerDay rows of slotMinutes, each timed event a block
// over the rows it covers, all-day events in a row of their own.
//
// The page's Content-Security-Policy allows no style attribute, so a
// block is placed by classes (row, rows spanned, lane column, lanes
// spanned) that weekCSS defines, one rule per value.

const (
	slotMinutes = 15
	slotsPerDay = 24 * 60 / slotMinutes
	// laneColumns is the number of columns of a day: overlapping events
	// share it in 1, 2, 3 or 4 lanes (12 is divisible by each).
	laneColumns = 12
	maxLanes    = 4
)

// weekGrid is one week in a time zone.
type weekGrid struct {
	// ID is the grid's heading's id, Caption its text.
	ID, Caption string
	// Free marks a grid of free slots (the availability explorer's):
	// no all-day row.
	Free  bool
	Days  []*gridDay
	Hours []string
}

// gridDay is one day column.
type gridDay struct {
	// Date is the day as YYYY-MM-DD; Name and Label say it for people
	// ("Monday 7 January 2030", "Mon 7").
	Date, Name, Label string
	AllDay            []gridEvent
	Timed             []*gridBlock
}

// gridEvent is what a block says about its event.
type gridEvent struct {
	Title string
	// Recurring marks an occurrence of a recurring event.
	Recurring bool
}

// gridBlock is a timed event's part on one day.
type gridBlock struct {
	gridEvent
	// From and To are the wall-clock times shown ("09:00"); Span is the
	// full extent in words for screen readers.
	From, To string
	Span     string
	// Row is the first slot (1-based) and Rows the slots covered; Col is
	// the first lane column (1-based) and Cols the columns covered.
	Row, Rows, Col, Cols int
	lane                 int
}

// Classes places the block in its day's grid (see weekCSS).
func (b *gridBlock) Classes() string {
	return fmt.Sprintf("r%d h%d c%d w%d", b.Row, b.Rows, b.Col, b.Cols)
}

// weekStart is the Monday 00:00 in loc of the week holding day.
func weekStart(day time.Time, loc *time.Location) time.Time {
	day = day.In(loc)
	d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// layoutWeek lays out events over the seven days from start (a midnight
// in loc). Timed events are shown in loc; all-day events keep their dates.
// An event's parts outside the week are left out.
func layoutWeek(events []*unical.Event, start time.Time, loc *time.Location) *weekGrid {
	g := &weekGrid{}
	for h := range 24 {
		g.Hours = append(g.Hours, fmt.Sprintf("%02d:00", h))
	}
	for i := range 7 {
		d := start.AddDate(0, 0, i)
		g.Days = append(g.Days, &gridDay{Date: d.Format(unical.DateLayout), Name: d.Format("Monday 2 January 2006"), Label: d.Format("Mon 2")})
	}
	for _, ev := range events {
		if ev.Start == nil || ev.End == nil {
			continue
		}
		e := gridEvent{Title: ev.Title, Recurring: ev.RecurringEventID != ""}
		if e.Title == "" {
			e.Title = "(no title)"
		}
		if ev.Start.IsDateOnly() {
			placeAllDay(g, e, ev, start)
			continue
		}
		from, err1 := ev.Start.Time("start")
		to, err2 := ev.End.Time("end")
		if err1 != nil || err2 != nil {
			continue
		}
		placeTimed(g, e, from.In(loc), to.In(loc), start)
	}
	for _, d := range g.Days {
		assignLanes(d.Timed)
	}
	return g
}

// placeAllDay adds an all-day event to each day of the week it covers;
// its end date is exclusive, as in the API.
func placeAllDay(g *weekGrid, e gridEvent, ev *unical.Event, start time.Time) {
	first, err := ev.Start.Day("start")
	if err != nil {
		return
	}
	last, err := ev.End.Day("end")
	if err != nil || !last.After(first) {
		last = first.AddDate(0, 0, 1)
	}
	for _, d := range g.Days {
		day, _ := time.Parse(unical.DateLayout, d.Date)
		if !day.Before(first) && day.Before(last) {
			d.AllDay = append(d.AllDay, e)
		}
	}
}

// placeTimed adds a block for each day of the week the event [from, to)
// touches; an event without duration gets one slot.
func placeTimed(g *weekGrid, e gridEvent, from, to time.Time, start time.Time) {
	if to.Before(from) {
		to = from
	}
	for i, d := range g.Days {
		dayStart, dayEnd := start.AddDate(0, 0, i), start.AddDate(0, 0, i+1)
		s, t := from, to
		if s.Before(dayStart) {
			s = dayStart
		}
		if t.After(dayEnd) {
			t = dayEnd
		}
		instant := from.Equal(to) && !from.Before(dayStart) && from.Before(dayEnd)
		if !t.After(s) && !instant {
			continue
		}
		startMin := s.Hour()*60 + s.Minute()
		endMin := t.Hour()*60 + t.Minute()
		if t.Equal(dayEnd) || endMin < startMin {
			endMin = 24 * 60
		}
		row := startMin / slotMinutes
		rows := max(1, (endMin+slotMinutes-1)/slotMinutes-row)
		rows = min(rows, slotsPerDay-row)
		b := &gridBlock{gridEvent: e, From: s.Format("15:04"), To: t.Format("15:04"), Row: row + 1, Rows: rows}
		if t.Equal(dayEnd) {
			b.To = "24:00"
		}
		b.Span = fmt.Sprintf("%s, %s to %s", d.Name, b.From, b.To)
		if from.Before(dayStart) {
			b.Span += ", continued from the day before"
		}
		if to.After(dayEnd) {
			b.Span += ", continues the next day"
		}
		d.Timed = append(d.Timed, b)
	}
}

// assignLanes puts overlapping blocks side by side: each group of blocks
// that overlap one another (directly or through others) is split into as
// many lanes as it needs at once, at most maxLanes (further blocks share
// the last lane).
func assignLanes(blocks []*gridBlock) {
	sort.SliceStable(blocks, func(i, j int) bool {
		if blocks[i].Row != blocks[j].Row {
			return blocks[i].Row < blocks[j].Row
		}
		return blocks[i].Rows > blocks[j].Rows
	})
	var group []*gridBlock
	var laneEnds []int // the row after the last block of each lane
	groupEnd := 0
	finish := func() {
		n := min(len(laneEnds), maxLanes)
		for _, b := range group {
			lane := min(b.lane, n-1)
			b.Cols = laneColumns / n
			b.Col = lane*b.Cols + 1
		}
		group, laneEnds, groupEnd = nil, nil, 0
	}
	for _, b := range blocks {
		if len(group) > 0 && b.Row >= groupEnd {
			finish()
		}
		b.lane = -1
		for i, end := range laneEnds {
			if end <= b.Row {
				b.lane, laneEnds[i] = i, b.Row+b.Rows
				break
			}
		}
		if b.lane < 0 {
			b.lane = len(laneEnds)
			laneEnds = append(laneEnds, b.Row+b.Rows)
		}
		group = append(group, b)
		groupEnd = max(groupEnd, b.Row+b.Rows)
	}
	if len(group) > 0 {
		finish()
	}
}

// weekCSS defines the placement classes of gridBlock.Classes.
var weekCSS = func() string {
	var b strings.Builder
	b.WriteString("/* Generated by package dashboard (week.go): where a block sits in its day. */\n")
	for i := 1; i <= slotsPerDay; i++ {
		fmt.Fprintf(&b, ".wk-day .r%d{grid-row-start:%d}.wk-day .h%d{grid-row-end:span %d}\n", i, i, i, i)
	}
	for i := 1; i <= laneColumns; i++ {
		fmt.Fprintf(&b, ".wk-day .c%d{grid-column-start:%d}.wk-day .w%d{grid-column-end:span %d}\n", i, i, i, i)
	}
	return b.String()
}()

// weekStyle serves weekCSS.
func weekStyle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Write([]byte(weekCSS))
}
