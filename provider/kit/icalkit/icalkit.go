// Package icalkit is the iCalendar (RFC 5545) mapping of unical events,
// the one the CalDAV provider uses, for providers that read or write
// iCalendar data: [Decode] reads a VCALENDAR without trusting it,
// [Objects] splits a whole calendar (a feed, an export) into calendar
// objects of one UID each, [ObjectEvents] reads one object as unical
// events (the series master with its overrides, which the Client
// expands), [ToEvent] reads one VEVENT and [Apply] writes an event into
// one, keeping what unical does not map. internal/adapter/icalmap documents the
// field mapping.
package icalkit

import (
	"io"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
	"github.com/unical/unical/internal/recur"
)

// Options tune how a VEVENT is read: the account's own address, the zone
// of floating times and the object's own time zones.
type Options = icalmap.Options

// Decode reads one VCALENDAR; malformed input is an error, never a panic.
func Decode(r io.Reader) (*ical.Calendar, error) { return icalmap.Decode(r) }

// ObjectEvents reads every VEVENT of one calendar object (one UID): the
// master gets id, an override the instance id of its original start
// with RecurringEventID id. opts may be nil.
func ObjectEvents(cal *ical.Calendar, id string, opts *Options) ([]*unical.Event, error) {
	return icalmap.ObjectEvents(cal, id, opts)
}

// ToEvent reads one VEVENT, leaving ID, ETag and RecurringEventID to the
// caller. opts may be nil.
func ToEvent(comp *ical.Component, opts *Options) (*unical.Event, error) {
	return icalmap.ToEvent(comp, opts)
}

// Apply writes e into the VEVENT comp, keeping the properties unical does
// not map; self is the account's own address.
func Apply(comp *ical.Component, e *unical.Event, now time.Time, self string) error {
	return icalmap.Apply(comp, e, now, self)
}

// Objects splits cal into calendar objects, keyed by UID, each with cal's properties and every VTIMEZONE it
// defines; a VEVENT without a UID is left out, as nothing could name it
// again.
func Objects(cal *ical.Calendar) map[string]*ical.Calendar {
	var zones []*ical.Component
	for _, c := range cal.Children {
		if c.Name == ical.CompTimezone {
			zones = append(zones, c)
		}
	}
	objects := map[string]*ical.Calendar{}
	for _, c := range cal.Children {
		if c.Name != ical.CompEvent {
			continue
		}
		uid, err := c.Props.Text(ical.PropUID)
		if err != nil || uid == "" {
			continue
		}
		obj, ok := objects[uid]
		if !ok {
			obj = ical.NewCalendar()
			obj.Props = cal.Props
			obj.Children = append(obj.Children, zones...)
			objects[uid] = obj
		}
		obj.Children = append(obj.Children, c)
	}
	return objects
}

// InstanceID is the id of the instance of series seriesID that starts at
// originalStart (a date for all-day series), as the Client and the
// bundled providers name instances.
func InstanceID(seriesID string, originalStart time.Time, allDay bool) string {
	return recur.InstanceID(seriesID, originalStart, allDay)
}

// ParseInstanceID splits an id made by InstanceID; an id without a valid
// suffix is not an instance id and yields an error.
func ParseInstanceID(id string) (seriesID string, originalStart time.Time, allDay bool, err error) {
	return recur.ParseInstanceID(id)
}
