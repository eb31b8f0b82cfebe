package icalkit_test

import (
	"fmt"
	"log"
	"sort"
	"strings"

	"github.com/unical/unical/provider/kit/icalkit"
)

// ExampleObjects reads a published calendar (a feed or an export) as
// unical events: one calendar object per UID, each read with its series
// and overrides.
func ExampleObjects() {
	const feed = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//example//feed//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:standup@example.com\r\nDTSTAMP:20300101T000000Z\r\n" +
		"DTSTART;TZID=Europe/Berlin:20300603T093000\r\nDTEND;TZID=Europe/Berlin:20300603T094500\r\n" +
		"RRULE:FREQ=WEEKLY;BYDAY=MO\r\nSUMMARY:Stand-up\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:holiday@example.com\r\nDTSTAMP:20300101T000000Z\r\n" +
		"DTSTART;VALUE=DATE:20300609\r\nDTEND;VALUE=DATE:20300610\r\nSUMMARY:Whit Monday\r\nEND:VEVENT\r\n" +
		"END:VCALENDAR\r\n"
	cal, err := icalkit.Decode(strings.NewReader(feed))
	if err != nil {
		log.Fatal(err)
	}
	objects := icalkit.Objects(cal)
	uids := make([]string, 0, len(objects))
	for uid := range objects {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	for _, uid := range uids {
		events, err := icalkit.ObjectEvents(objects[uid], uid, nil)
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range events {
			fmt.Println(e.Title, e.Start.DateTime, "all day:", e.IsAllDay, e.Recurrence)
		}
	}
	// Output:
	// Whit Monday 2030-06-09T00:00:00 all day: true []
	// Stand-up 2030-06-03T09:30:00+02:00 all day: false [RRULE:FREQ=WEEKLY;BYDAY=MO]
}
