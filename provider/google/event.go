package google

import (
	"context"

	"github.com/unical/unical"
)

// The event methods are not written yet: they answer CodeNotImplemented so
// that the Provider satisfies the interface while calendars and OAuth are
// in use.

func errEventsNotImplemented() error {
	return unical.Errorf(unical.CodeNotImplemented, "Google Calendar events are not supported by this server yet.")
}

// ListEvents implements [unical.Provider]. Not implemented yet.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	return nil, errEventsNotImplemented()
}

// GetEvent implements [unical.Provider]. Not implemented yet.
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	return nil, errEventsNotImplemented()
}

// CreateEvent implements [unical.Provider]. Not implemented yet.
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	return nil, errEventsNotImplemented()
}

// UpdateEvent implements [unical.Provider]. Not implemented yet.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	return nil, errEventsNotImplemented()
}

// DeleteEvent implements [unical.Provider]. Not implemented yet.
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) error {
	return errEventsNotImplemented()
}

// RespondToEvent implements [unical.Provider]. Not implemented yet.
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	return errEventsNotImplemented()
}
