package booking

import (
	"context"
	"sync"

	"github.com/unical/unical"
)

// memoAPI is the App for the reads of one booking or hold: it reads each
// participant's account and first page of calendars once, where the
// availability check, the choice of calendars and the attendees would
// each read them again (on PostgreSQL and at Google each read is a round
// trip). Everything else, writes included, goes to the App.
type memoAPI struct {
	unical.API
	mu        sync.Mutex // availability reads participants concurrently
	accounts  map[string]*unical.Account
	calendars map[string]*unical.SyncPage[*unical.Calendar]
}

// memoized is s for one booking or hold: its App reads each account
// once (the free/busy, the calendar listing and the event writes would
// each read it again), and its reads go through a new memoAPI.
func (s *Service) memoized() *Service {
	m := *s
	m.app = s.app.ReadingAccountsOnce()
	m.reads = &memoAPI{API: m.app, accounts: map[string]*unical.Account{}, calendars: map[string]*unical.SyncPage[*unical.Calendar]{}}
	return &m
}

func (m *memoAPI) GetAccount(ctx context.Context, id string) (*unical.Account, error) {
	m.mu.Lock()
	a, ok := m.accounts[id]
	m.mu.Unlock()
	if ok {
		return a, nil
	}
	a, err := m.API.GetAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.accounts[id] = a
	m.mu.Unlock()
	return a, nil
}

// ListCalendars keeps the first page of a listing without parameters,
// the one unical.AllCalendars asks for first.
func (m *memoAPI) ListCalendars(ctx context.Context, accountID string, params *unical.CalendarListParams) (*unical.SyncPage[*unical.Calendar], error) {
	if params != nil && *params != (unical.CalendarListParams{}) {
		return m.API.ListCalendars(ctx, accountID, params)
	}
	m.mu.Lock()
	page, ok := m.calendars[accountID]
	m.mu.Unlock()
	if ok {
		return page, nil
	}
	page, err := m.API.ListCalendars(ctx, accountID, params)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.calendars[accountID] = page
	m.mu.Unlock()
	return page, nil
}
