package kit_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/provider/kit/captable"
	"github.com/unical/unical/provider/providertest"
	"github.com/unical/unical/store/bolt"
)

// notebook is a provider written outside the module's packages, as a
// third party would: a read-only calendar of events kept in memory, one
// per account, built on the root package and the kit alone.
type notebook struct {
	mu      sync.Mutex
	events  []*unical.Event
	version int
}

const notebookType unical.ProviderType = "NOTEBOOK"

func (n *notebook) Type() unical.ProviderType { return notebookType }
func (n *notebook) Info() kit.ProviderInfo    { return kit.ProviderInfo{DisplayName: "Notebook"} }
func (n *notebook) Capabilities() unical.Capabilities {
	return captable.ReadOnly(notebookType, "The notebook is read-only.")
}

func (n *notebook) Connect(context.Context, unical.ProviderSettings, unical.ConnectParams) (*unical.Connection, error) {
	return &unical.Connection{}, nil
}

func (n *notebook) calendar() *unical.Calendar {
	return &unical.Calendar{ID: "notes", Name: "Notes", ReadOnly: true, TimeZone: "UTC"}
}

func (n *notebook) ListCalendars(context.Context, *unical.Session) ([]*unical.Calendar, error) {
	return []*unical.Calendar{n.calendar()}, nil
}

func (n *notebook) GetCalendar(_ context.Context, _ *unical.Session, id string) (*unical.Calendar, error) {
	if id != "notes" {
		return nil, unical.Errorf(unical.CodeNotFound, "No such calendar.")
	}
	return n.calendar(), nil
}

func readOnly() error { return unical.Errorf(unical.CodeNotImplemented, "The notebook is read-only.") }

func (n *notebook) CreateCalendar(context.Context, *unical.Session, *unical.CalendarParams) (*unical.Calendar, error) {
	return nil, readOnly()
}
func (n *notebook) UpdateCalendar(context.Context, *unical.Session, string, *unical.CalendarParams) (*unical.Calendar, error) {
	return nil, readOnly()
}
func (n *notebook) DeleteCalendar(context.Context, *unical.Session, string) error { return readOnly() }
func (n *notebook) CreateEvent(context.Context, *unical.Session, string, *unical.EventParams) (*unical.Event, error) {
	return nil, readOnly()
}
func (n *notebook) UpdateEvent(context.Context, *unical.Session, string, string, *unical.EventParams) (*unical.Event, error) {
	return nil, readOnly()
}
func (n *notebook) DeleteEvent(context.Context, *unical.Session, string, string) error {
	return readOnly()
}
func (n *notebook) RespondToEvent(context.Context, *unical.Session, string, string, unical.ResponseStatus) error {
	return readOnly()
}

func (n *notebook) GetEvent(_ context.Context, _ *unical.Session, _, id string) (*unical.Event, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if i := slices.IndexFunc(n.events, func(e *unical.Event) bool { return e.ID == id }); i >= 0 {
		return n.events[i], nil
	}
	return nil, unical.Errorf(unical.CodeNotFound, "No such event.")
}

// ListEvents keeps the events with an instance in the window; a sync
// cursor is the map of ids to ETags it was issued with.
func (n *notebook) ListEvents(_ context.Context, _ *unical.Session, _ string, q *unical.EventQuery) (*unical.EventBatch, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	tags := map[string]string{}
	for _, e := range n.events {
		tags[e.ID] = e.ETag
	}
	cursor, _ := json.Marshal(tags)
	batch := &unical.EventBatch{NextSyncCursor: base64.RawURLEncoding.EncodeToString(cursor)}
	if q.SyncCursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.SyncCursor)
		var before map[string]string
		if err != nil || json.Unmarshal(raw, &before) != nil {
			return nil, unical.Errorf(unical.CodeGone, "Unknown cursor.")
		}
		for _, e := range n.events {
			if before[e.ID] != e.ETag {
				batch.Events = append(batch.Events, e)
			}
		}
		for id := range before {
			if _, ok := tags[id]; !ok {
				batch.Events = append(batch.Events, &unical.Event{ID: id, IsCancelled: true})
			}
		}
		return batch, nil
	}
	for _, e := range n.events {
		if !q.TimeMin.IsZero() && !q.TimeMax.IsZero() {
			in, err := unical.ExpandEvents([]*unical.Event{e}, q.TimeMin, q.TimeMax)
			if err != nil {
				return nil, err
			}
			start, _ := e.Start.Time("start")
			end, _ := e.End.Time("end")
			if len(in) == 0 || !e.IsRecurring && (!start.Before(q.TimeMax) || !end.After(q.TimeMin)) {
				continue
			}
		}
		batch.Events = append(batch.Events, e)
	}
	return batch, nil
}

// publish replaces the notebook's events, as its owner writes them.
func (n *notebook) publish(events []*unical.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.version++
	n.events = nil
	for _, e := range events {
		c := *e
		c.ID = "n-" + e.ICalUID
		c.IsRecurring = len(e.Recurrence) > 0
		if e.Start.Date != "" {
			c.IsAllDay = true
		}
		body, _ := json.Marshal(&c)
		c.ETag = fmt.Sprintf(`"%x"`, len(body)*31+int(body[len(body)/2]))
		if prev := slices.IndexFunc(n.events, func(x *unical.Event) bool { return x.ID == c.ID }); prev >= 0 {
			n.events[prev] = &c
			continue
		}
		n.events = append(n.events, &c)
	}
}

// TestThirdPartyProvider: a provider defined outside the module's
// packages registers with unical.New under a type of its own, is
// described to tools by kit.Providers, takes accounts with the email
// alone (it implements no credential interface), and passes the
// read-only conformance cases it claims.
func TestThirdPartyProvider(t *testing.T) {
	t.Parallel()
	providertest.RunReadOnly(t, func(t *testing.T) *providertest.ReadOnlyHarness {
		n := &notebook{}
		return &providertest.ReadOnlyHarness{Provider: n, Session: &unical.Session{Email: "ada@example.com"}, CalendarID: "notes",
			Publish: func(t *testing.T, events []*unical.Event) { n.publish(events) }}
	})

	store, err := bolt.Open(bolt.Config{Path: t.TempDir() + "/unical.db"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	n := &notebook{}
	n.publish([]*unical.Event{{ICalUID: "one", Title: "One", Start: &unical.EventDateTime{DateTime: "2030-01-01T10:00:00Z"}, End: &unical.EventDateTime{DateTime: "2030-01-01T11:00:00Z"}}})
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{n}, MasterKey: [32]byte{9}})
	if err != nil {
		t.Fatalf("unical.New with a provider of a new type: %v", err)
	}
	t.Cleanup(func() { client.Close() })
	want := []kit.ProviderInfo{{Type: notebookType, DisplayName: "Notebook", Settings: []string{}, Credential: unical.CredentialNone}}
	if d := cmp.Diff(want, kit.Providers(client)); d != "" {
		t.Errorf("kit.Providers() (-want +got):\n%s", d)
	}
	app := mustApp(t, client)
	if _, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: notebookType, Password: unical.Some("x")}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("CreateAccount with a password = %v, want invalid_request: the notebook takes none", err)
	}
	acct, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: notebookType})
	if err != nil {
		t.Fatal(err)
	}
	list, err := app.ListEvents(t.Context(), acct.ID, "notes", &unical.EventListParams{
		Start: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(list.Data) != 1 || list.Data[0].Title != "One" {
		t.Errorf("ListEvents() = %+v, %v; want the notebook's event", list, err)
	}
	if _, err := app.CreateEvent(t.Context(), acct.ID, "notes", &unical.EventParams{Title: unical.Some("Mine")}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("CreateEvent() = %v, want invalid_request from the capability table", err)
	}
}

func mustApp(t *testing.T, c *unical.Client) *unical.App {
	t.Helper()
	created, err := admin.Of(c).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("notes")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	return app
}
