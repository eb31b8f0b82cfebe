package unical_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

func TestExpandEvents(t *testing.T) {
	t.Parallel()
	weekly := &unical.Event{
		ID: "s1", Title: "Weekly", IsRecurring: true,
		Start:      &unical.EventDateTime{DateTime: "2026-03-16T09:00:00+01:00", TimeZone: "Europe/Berlin"},
		End:        &unical.EventDateTime{DateTime: "2026-03-16T10:00:00+01:00", TimeZone: "Europe/Berlin"},
		Recurrence: []string{"RRULE:FREQ=WEEKLY;COUNT=5", "EXDATE;TZID=Europe/Berlin:20260406T090000"},
	}
	moved := &unical.Event{ID: "s1-moved", Title: "Weekly (moved)", RecurringEventID: "s1",
		OriginalStart: &unical.EventDateTime{DateTime: "2026-03-23T09:00:00+01:00", TimeZone: "Europe/Berlin"},
		Start:         &unical.EventDateTime{DateTime: "2026-03-24T14:00:00+01:00", TimeZone: "Europe/Berlin"},
		End:           &unical.EventDateTime{DateTime: "2026-03-24T15:00:00+01:00", TimeZone: "Europe/Berlin"}}
	cancelled := &unical.Event{ID: "s1-x", RecurringEventID: "s1", IsCancelled: true,
		OriginalStart: &unical.EventDateTime{DateTime: "2026-04-13T09:00:00+02:00", TimeZone: "Europe/Berlin"}}
	single := &unical.Event{ID: "one", Title: "One-off", Start: &unical.EventDateTime{DateTime: "2026-03-20T12:00:00Z"}}
	allDay := &unical.Event{ID: "bday", IsAllDay: true, IsRecurring: true,
		Start: &unical.EventDateTime{DateTime: "2026-03-18T00:00:00"}, End: &unical.EventDateTime{DateTime: "2026-03-19T00:00:00"},
		Recurrence: []string{"RRULE:FREQ=WEEKLY;COUNT=2"}}

	got, err := unical.ExpandEvents([]*unical.Event{weekly, moved, cancelled, single, allDay},
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Start, OriginalStart, Series string }
	var rows []row
	for _, e := range got {
		os := ""
		if e.OriginalStart != nil {
			os = e.OriginalStart.DateTime + e.OriginalStart.Date
		}
		rows = append(rows, row{e.ID, e.Start.DateTime, os, e.RecurringEventID})
	}
	want := []row{
		// 09:00 Berlin is kept across the DST change of 29 March.
		{"s1_20260316T080000Z", "2026-03-16T09:00:00+01:00", "2026-03-16T09:00:00+01:00", "s1"},
		{"s1-moved", "2026-03-24T14:00:00+01:00", "2026-03-23T09:00:00+01:00", "s1"},
		{"s1_20260330T070000Z", "2026-03-30T09:00:00+02:00", "2026-03-30T09:00:00+02:00", "s1"},
		// 6 April is an EXDATE and 13 April is cancelled.
		{"one", "2026-03-20T12:00:00Z", "", ""},
		{"bday_20260318", "2026-03-18T00:00:00", "2026-03-18", "bday"},
		{"bday_20260325", "2026-03-25T00:00:00", "2026-03-25", "bday"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("ExpandEvents() mismatch (-want +got):\n%s", diff)
	}
	for _, e := range got {
		if e.RecurringEventID != "" && (e.IsRecurring || !e.IsException || e.Recurrence != nil) {
			t.Errorf("instance %s: isRecurring=%v isException=%v recurrence=%v, want false, true, null", e.ID, e.IsRecurring, e.IsException, e.Recurrence)
		}
	}
}
