package providertest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/store/bolt"
)

// maxHeapGrowth is how far the heap may grow over what it held before
// testSecondlyBounded started: 64 MB, while an unbounded expansion of its
// series holds gigabytes.
const maxHeapGrowth = 64 << 20

// abortHeapGrowth stops the test binary before an unbounded expansion
// takes the machine down with it.
const abortHeapGrowth = 1 << 30

// testSecondlyBounded checks that a FREQ=SECONDLY series, 31.6 million
// instances over a year, costs the caller what it asks for and not the
// window: listed expanded and paged, asked for its occurrences with a
// small limit, and asked for free/busy (and availability, which uses the
// same path), through a Client over the provider, with the heap sampled
// throughout. A provider that cannot hold such a series refuses it with
// CodeInvalid, which bounds it as well.
func testSecondlyBounded(t *testing.T, h *Harness) {
	if h.lacks(t, "secondlySeries") {
		t.Skip("the server cannot hold a FREQ=SECONDLY series")
	}
	ctx := ctxOf(t)
	cal := h.NewCalendar(t)
	series, err := h.Provider.CreateEvent(ctx, h.Session, cal, &unical.EventParams{
		Title:      unical.Some("tick"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:00Z", TimeZone: "UTC"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:01Z", TimeZone: "UTC"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=SECONDLY"}),
	})
	if unical.ErrorCode(err) == unical.CodeInvalid {
		t.Logf("the provider refuses FREQ=SECONDLY: %v", err)
		return
	}
	if err != nil {
		t.Fatalf("CreateEvent: %v", err)
	}
	app, accountID := clientOver(t, h)

	w := watchHeap(t)
	yearStart := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	yearEnd := yearStart.AddDate(1, 0, 0)

	// Three pages of the year, expanded.
	params := &unical.EventListParams{Start: yearStart, End: yearEnd, ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, Limit: 50}
	var got []string
	for page := range 3 {
		res, err := app.ListEvents(ctx, accountID, cal, params)
		if err != nil {
			t.Fatalf("ListEvents page %d: %v", page+1, err)
		}
		got = append(got, starts(t, res.Data)...)
		if res.NextPageToken == "" {
			t.Fatalf("ListEvents page %d has no nextPageToken", page+1)
		}
		params = &unical.EventListParams{PageToken: res.NextPageToken, Limit: 50}
	}
	if diff := cmp.Diff(seconds(yearStart, 150), got); diff != "" {
		t.Errorf("expanded pages mismatch (-want +got):\n%s", diff)
	}

	// Two pages of occurrences with limit 5.
	got = nil
	occParams := &unical.OccurrenceListParams{Start: yearStart, End: yearEnd, Limit: 5}
	for page := range 2 {
		res, err := app.ListOccurrences(ctx, accountID, cal, series.ID, occParams)
		if err != nil {
			t.Fatalf("ListOccurrences page %d: %v", page+1, err)
		}
		got = append(got, starts(t, res.Data)...)
		if res.NextPageToken == "" {
			t.Fatalf("ListOccurrences page %d has no nextPageToken", page+1)
		}
		occParams = &unical.OccurrenceListParams{PageToken: res.NextPageToken, Limit: 5}
	}
	if diff := cmp.Diff(seconds(yearStart, 10), got); diff != "" {
		t.Errorf("occurrence pages mismatch (-want +got):\n%s", diff)
	}

	// Twelve hours of free/busy computed from events, 43,200 instances,
	// are one busy slot: the seconds touch. (The windows start with the series: servers that
	// filter by time themselves, Radicale and the Google fake, walk a
	// series from its start.)
	fb, err := app.QueryFreeBusy(ctx, accountID, &unical.FreeBusyParams{
		StartDateTime: "2026-01-01T00:00:00Z", EndDateTime: "2026-01-01T12:00:00Z", TimeZone: "UTC", CalendarIDs: []string{cal},
	})
	if err != nil {
		t.Fatalf("QueryFreeBusy (12 hours): %v", err)
	}
	wantBusy := []*unical.FreeBusyResult{{CalendarID: cal, BusySlots: []unical.BusySlot{{
		Start: unical.EventDateTime{DateTime: "2026-01-01T00:00:00Z", TimeZone: "UTC"},
		End:   unical.EventDateTime{DateTime: "2026-01-01T12:00:00Z", TimeZone: "UTC"},
	}}}}
	if _, native := h.Provider.(unical.FreeBusyQuerier); native {
		// What a provider's own free/busy answers is its business (the
		// Google fake, as Google, stops at a number of busy periods).
		t.Logf("the provider's own free/busy answered %d slots", len(fb[0].BusySlots))
	} else if diff := cmp.Diff(wantBusy, fb); diff != "" {
		t.Errorf("QueryFreeBusy (12 hours) mismatch (-want +got):\n%s", diff)
	}
	// A year of it is answered, or refused as too busy with a 400 naming
	// the window's end; never anything else.
	_, err = app.QueryFreeBusy(ctx, accountID, &unical.FreeBusyParams{
		StartDateTime: "2026-01-01T00:00:00Z", EndDateTime: "2027-01-01T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{cal},
	})
	checkTooBusy(t, "QueryFreeBusy (one year)", err)
	_, err = availability.Find(ctx, app, time.Now(), &availability.Params{
		Participants:  []availability.Participant{{EndUserAccountID: accountID, CalendarIDs: []string{cal}}},
		StartDateTime: "2026-01-01T00:00:00Z", EndDateTime: "2026-01-03T00:00:00Z", DurationMinutes: 30, TimeZone: "UTC",
	})
	checkTooBusy(t, "Availability (two days)", err)

	grown := w.stop()
	t.Logf("the heap grew by at most %d KB", grown>>10)
	if grown > maxHeapGrowth {
		t.Errorf("the heap grew by %d MB; want at most %d MB", grown>>20, maxHeapGrowth>>20)
	}
}

// checkTooBusy accepts an answer or a 400 naming endDateTime.
func checkTooBusy(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ue *unical.Error
	if unical.ErrorCode(err) != unical.CodeInvalid || !errors.As(err, &ue) || ue.Field != "endDateTime" {
		t.Errorf("%s: %v; want an answer or a 400 naming endDateTime", what, err)
	}
}

// starts returns the start instants of events, in UTC.
func starts(t *testing.T, events []*unical.Event) []string {
	t.Helper()
	out := make([]string, 0, len(events))
	for _, e := range events {
		out = append(out, instant(t, e.Start).UTC().Format(time.RFC3339))
	}
	return out
}

// seconds returns the n instants one second apart from t.
func seconds(t time.Time, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = t.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
	}
	return out
}

// heapWatch samples the heap in the background and keeps the largest
// growth over the heap it started from.
type heapWatch struct {
	base uint64
	peak atomic.Uint64
	done chan struct{}
	quit chan struct{}
}

func watchHeap(t *testing.T) *heapWatch {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w := &heapWatch{base: ms.HeapAlloc, done: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			w.sample()
			select {
			case <-w.quit:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { w.stop() })
	return w
}

func (w *heapWatch) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc <= w.base {
		return
	}
	grown := ms.HeapAlloc - w.base
	for {
		old := w.peak.Load()
		if grown <= old || w.peak.CompareAndSwap(old, grown) {
			break
		}
	}
	if grown > abortHeapGrowth {
		panic(fmt.Sprintf("providertest: the heap grew by %d MB during the FREQ=SECONDLY case; stopping before the machine runs out of memory", grown>>20))
	}
}

// stop ends the sampling and returns the largest growth seen.
func (w *heapWatch) stop() uint64 {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
	w.sample()
	return w.peak.Load()
}

// clientOver returns an application of a Client, on a bolt Store in a
// temporary folder, with one account whose calls reach h's provider with
// h's session: the case can then check what the Client makes of the
// provider's answers, which is what a caller of the API sees.
func clientOver(t *testing.T, h *Harness) (*unical.App, string) {
	t.Helper()
	ctx := ctxOf(t)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var key [32]byte
	rand.Read(key[:])
	var p unical.Provider = &sessionProvider{p: h.Provider, s: h.Session}
	if fb, ok := h.Provider.(unical.FreeBusyQuerier); ok {
		p = &sessionFreeBusy{sessionProvider{p: h.Provider, s: h.Session}, fb}
	}
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{p}, MasterKey: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	operator, err := admin.New(admin.Config{Store: store, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	created, err := operator.CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("providertest")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "conformance@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	return app, acct.ID
}

// sessionProvider presents the provider under test to a Client as a
// VIRTUAL one, which needs no credentials, and replaces the Client's
// session with the harness's on every call.
type sessionProvider struct {
	p unical.Provider
	s *unical.Session
}

func (sp *sessionProvider) Type() unical.ProviderType { return unical.ProviderVirtual }

// session is the harness's session carrying the Client's per-call
// choices, which reach a provider as Session fields (WriteOptions'
// NotifyAttendees and IfMatch).
func (sp *sessionProvider) session(from *unical.Session) *unical.Session {
	s := *sp.s
	if from != nil {
		s.NotifyAttendees, s.IfMatch = from.NotifyAttendees, from.IfMatch
	}
	return &s
}

func (sp *sessionProvider) Connect(ctx context.Context, _ unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	return &unical.Connection{Email: params.Email}, nil
}

func (sp *sessionProvider) ListCalendars(ctx context.Context, cs *unical.Session) ([]*unical.Calendar, error) {
	return sp.p.ListCalendars(ctx, sp.session(cs))
}

func (sp *sessionProvider) GetCalendar(ctx context.Context, cs *unical.Session, calendarID string) (*unical.Calendar, error) {
	return sp.p.GetCalendar(ctx, sp.session(cs), calendarID)
}

func (sp *sessionProvider) CreateCalendar(ctx context.Context, cs *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	return sp.p.CreateCalendar(ctx, sp.session(cs), params)
}

func (sp *sessionProvider) UpdateCalendar(ctx context.Context, cs *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	return sp.p.UpdateCalendar(ctx, sp.session(cs), calendarID, params)
}

func (sp *sessionProvider) DeleteCalendar(ctx context.Context, cs *unical.Session, calendarID string) error {
	return sp.p.DeleteCalendar(ctx, sp.session(cs), calendarID)
}

func (sp *sessionProvider) ListEvents(ctx context.Context, cs *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	return sp.p.ListEvents(ctx, sp.session(cs), calendarID, q)
}

func (sp *sessionProvider) GetEvent(ctx context.Context, cs *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	return sp.p.GetEvent(ctx, sp.session(cs), calendarID, eventID)
}

func (sp *sessionProvider) CreateEvent(ctx context.Context, cs *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	return sp.p.CreateEvent(ctx, sp.session(cs), calendarID, params)
}

func (sp *sessionProvider) UpdateEvent(ctx context.Context, cs *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	return sp.p.UpdateEvent(ctx, sp.session(cs), calendarID, eventID, params)
}

func (sp *sessionProvider) DeleteEvent(ctx context.Context, cs *unical.Session, calendarID, eventID string) error {
	return sp.p.DeleteEvent(ctx, sp.session(cs), calendarID, eventID)
}

func (sp *sessionProvider) RespondToEvent(ctx context.Context, cs *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	return sp.p.RespondToEvent(ctx, sp.session(cs), calendarID, eventID, status)
}

// sessionFreeBusy is a sessionProvider for a provider with a free/busy
// query of its own, which the Client then uses.
type sessionFreeBusy struct {
	sessionProvider
	fb unical.FreeBusyQuerier
}

func (sf *sessionFreeBusy) QueryFreeBusy(ctx context.Context, cs *unical.Session, q *unical.FreeBusyQuery) (map[string][]unical.Interval, error) {
	return sf.fb.QueryFreeBusy(ctx, sf.session(cs), q)
}
