// Package memory is an in-memory calendar provider: a [unical.Provider]
// (and, as [WatchProvider], a [unical.Watcher]) that keeps its users,
// calendars and events in the process. It is meant for anyone testing code
// that embeds unical, where a real calendar server would make tests slow,
// flaky or impossible to run offline; it is not a provider type to ship.
//
// It keeps just enough behaviour to exercise every code path of the core:
// credentials that can be revoked ([Provider.Revoke]), OAuth sign-in
// ([Provider.AuthHandler]), calendars, events with recurrence and RSVP,
// paging, sync cursors that can expire ([Provider.ExpireSyncCursors]) and,
// with [NewWatcher], provider watches whose notifications a test sends
// itself ([NotificationHeader]). It passes provider/providertest.
//
// Use it like any provider:
//
//	calendars := memory.New(memory.Config{Type: unical.ProviderCalDAV})
//	calendarID := calendars.AddUser("alan@example.com", "", "password")
//	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{calendars}, MasterKey: key})
package memory

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
)

// Provider is the in-memory provider. Its ids contain the reserved
// characters '/', '@', '=' and '+' on purpose, so tests prove that ids
// round-trip through URL paths.
type Provider struct {
	typ unical.ProviderType

	mu        sync.Mutex
	users     map[string]*user  // by email
	refresh   map[string]string // refresh token -> email
	passwords map[string]string // email -> password
	codes     map[string]string // authorization code -> email
	revoked   map[string]bool   // email -> credentials revoked
	version   int64
	minSync   int64 // cursors below this answer CodeGone
	nextID    int
	calls     int
}

type user struct {
	calendars map[string]*calendar
	order     []string
}

// calendar is a calendar with its events; the event semantics are
// internal/adapter/eventbook's, shared with the VIRTUAL provider.
type calendar struct {
	cal  unical.Calendar
	book *eventbook.Book
}

var _ unical.OAuthProvider = (*Provider)(nil)

var _ unical.CapabilityReporter = (*Provider)(nil)

// Capabilities implements [unical.CapabilityReporter] with the table of
// internal/adapter/eventbook, whatever provider type p poses as.
func (p *Provider) Capabilities() unical.Capabilities { return eventbook.Capabilities() }

// Config configures New and NewWatcher.
type Config struct {
	// Type is the provider type the provider poses as (its accounts'
	// providerType), such as unical.ProviderGoogle.
	Type unical.ProviderType
}

// New returns a provider of type cfg.Type with no users.
func New(cfg Config) *Provider {
	return &Provider{
		typ: cfg.Type, users: map[string]*user{}, refresh: map[string]string{},
		passwords: map[string]string{}, codes: map[string]string{}, revoked: map[string]bool{},
	}
}

// AddUser adds a user with a primary calendar and returns its calendar id.
// OAuth users sign in with refreshToken; CalDAV users with password.
func (p *Provider) AddUser(email, refreshToken, password string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := &user{calendars: map[string]*calendar{}}
	p.users[email] = u
	if refreshToken != "" {
		p.refresh[refreshToken] = email
	}
	if password != "" {
		p.passwords[email] = password
	}
	id := "primary/" + email
	u.calendars[id] = &calendar{cal: unical.Calendar{ID: id, Name: email, IsPrimary: p.typ != unical.ProviderCalDAV, TimeZone: "UTC", HexColor: "#3366ff"}, book: eventbook.New()}
	u.order = append(u.order, id)
	return id
}

// Revoke makes a user's credentials stop working, as a provider does when
// the user withdraws access.
func (p *Provider) Revoke(email string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.revoked[email] = true
}

// Restore undoes Revoke and registers a new refresh token.
func (p *Provider) Restore(email, refreshToken string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.revoked, email)
	p.refresh[refreshToken] = email
}

// ExpireSyncCursors makes every cursor issued so far answer CodeGone.
func (p *Provider) ExpireSyncCursors() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.version++
	p.minSync = p.version
}

// Calls returns how many provider calls were made.
func (p *Provider) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// Type implements unical.Provider.
func (p *Provider) Type() unical.ProviderType { return p.typ }

// ConnectsWithPassword implements [unical.PasswordConnector]: accounts of
// the CalDAV type connect with a password, the others through OAuth.
func (p *Provider) ConnectsWithPassword() bool { return p.typ == unical.ProviderCalDAV }

// Connect implements unical.Provider.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.typ == unical.ProviderCalDAV {
		if pw, ok := p.passwords[params.Email]; !ok || pw != params.Password || p.revoked[params.Email] {
			return nil, &unical.Error{Code: unical.CodeUnauthorized, Field: "password", Message: "The server refused the email and password."}
		}
		// The server is the one named, else the settings', as the CalDAV
		// provider chooses (it would discover one where neither is set).
		server := params.ServerURL
		if server == "" {
			server = settings.ServerURL
		}
		return &unical.Connection{Email: params.Email, State: []byte("home:" + params.Email), ServerURL: server}, nil
	}
	email, ok := p.refresh[params.RefreshToken]
	if !ok || p.revoked[email] {
		return nil, &unical.Error{Code: unical.CodeUnauthorized, Field: "refreshToken", Message: "The provider refused the refresh token (invalid_grant)."}
	}
	return p.connection(email, params.RefreshToken), nil
}

func (p *Provider) connection(email, refreshToken string) *unical.Connection {
	return &unical.Connection{
		Email: email, ProviderAccountID: "uid-" + email, VerifiedNames: []string{email}, Scopes: []string{"calendar"},
		Token: unical.Token{AccessToken: "access-" + strconv.Itoa(p.nextID) + "-" + email, RefreshToken: refreshToken, Expiry: time.Now().Add(time.Hour)},
	}
}

// AuthCodeURL implements unical.OAuthProvider: the URL points at
// settings.AuthURL, which a test serves with AuthHandler.
func (p *Provider) AuthCodeURL(settings unical.ProviderSettings, req *unical.AuthCodeRequest) (string, error) {
	v := url.Values{"redirect_uri": {req.RedirectURI}, "state": {req.State}, "code_challenge": {req.CodeChallenge},
		"code_challenge_method": {"S256"}, "client_id": {settings.ClientID}}
	if req.LoginHint != "" {
		v.Set("login_hint", req.LoginHint)
	}
	if req.Prompt != "" {
		v.Set("prompt", req.Prompt)
	}
	return settings.AuthURL + "?" + v.Encode(), nil
}

// AuthHandler approves every authorization request for email by
// redirecting to redirect_uri with a fresh code, or denies it when email is
// "". It stands in for the provider's consent page.
func (p *Provider) AuthHandler(email string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		back, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		v := back.Query()
		v.Set("state", q.Get("state"))
		if email == "" {
			v.Set("error", "access_denied")
		} else {
			p.mu.Lock()
			p.nextID++
			code := "code-" + strconv.Itoa(p.nextID)
			p.codes[code] = email
			p.mu.Unlock()
			v.Set("code", code)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
}

// Exchange implements unical.OAuthProvider; codes work once.
func (p *Provider) Exchange(ctx context.Context, settings unical.ProviderSettings, req *unical.CodeExchange) (*unical.Connection, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	email, ok := p.codes[req.Code]
	if !ok || req.CodeVerifier == "" {
		return nil, unical.Errorf(unical.CodeUnauthorized, "invalid_grant")
	}
	delete(p.codes, req.Code)
	tok := "refresh-for-" + email + "-" + strconv.Itoa(p.nextID)
	p.refresh[tok] = email
	delete(p.revoked, email)
	return p.connection(email, tok), nil
}

// account returns the user behind a session, or CodeAccountExpired.
func (p *Provider) account(s *unical.Session) (*user, error) {
	p.calls++
	if p.revoked[s.Email] {
		return nil, unical.Errorf(unical.CodeAccountExpired, "The provider revoked the account's credentials.")
	}
	u, ok := p.users[s.Email]
	if !ok {
		return nil, unical.Errorf(unical.CodeAccountExpired, "unknown user")
	}
	return u, nil
}

func (p *Provider) calendar(s *unical.Session, id string) (*user, *calendar, error) {
	u, err := p.account(s)
	if err != nil {
		return nil, nil, err
	}
	if id == "primary" {
		// The alias of the primary calendar, as on Google and Graph; a
		// CalDAV user's calendars have none.
		for _, cid := range u.order {
			if c, ok := u.calendars[cid]; ok && c.cal.IsPrimary {
				return u, c, nil
			}
		}
		return nil, nil, unical.FieldError("calendarId", `The account has no primary calendar, so "primary" names none.`)
	}
	c, ok := u.calendars[id]
	if !ok {
		return nil, nil, unical.Errorf(unical.CodeNotFound, "No calendar %q.", id)
	}
	return u, c, nil
}

// ListCalendars implements unical.Provider.
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u, err := p.account(s)
	if err != nil {
		return nil, err
	}
	out := []*unical.Calendar{}
	for _, id := range u.order {
		if c, ok := u.calendars[id]; ok {
			cal := c.cal
			out = append(out, &cal)
		}
	}
	return out, nil
}

// GetCalendar implements unical.Provider.
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, id string) (*unical.Calendar, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, id)
	if err != nil {
		return nil, err
	}
	cal := c.cal
	return &cal, nil
}

// CreateCalendar implements unical.Provider.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u, err := p.account(s)
	if err != nil {
		return nil, err
	}
	p.nextID++
	id := fmt.Sprintf("cal/%d@%s=+", p.nextID, s.Email)
	c := &calendar{cal: unical.Calendar{ID: id}, book: eventbook.New()}
	params.Apply(&c.cal)
	u.calendars[id] = c
	u.order = append(u.order, id)
	cal := c.cal
	return &cal, nil
}

// UpdateCalendar implements unical.Provider.
func (p *Provider) UpdateCalendar(ctx context.Context, s *unical.Session, id string, params *unical.CalendarParams) (*unical.Calendar, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, id)
	if err != nil {
		return nil, err
	}
	params.Apply(&c.cal)
	cal := c.cal
	return &cal, nil
}

// DeleteCalendar implements unical.Provider.
func (p *Provider) DeleteCalendar(ctx context.Context, s *unical.Session, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	u, c, err := p.calendar(s, id)
	if err != nil {
		return err
	}
	if c.cal.IsPrimary {
		return unical.Errorf(unical.CodeConflict, "The primary calendar cannot be deleted.")
	}
	delete(u.calendars, id)
	return nil
}

// ListEvents implements unical.Provider. It returns recurring series
// unexpanded, as CalDAV does, for the Client to expand page by page (see
// eventbook.Book.List), pages by offset, and issues version cursors.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, calendarID)
	if err != nil {
		return nil, err
	}
	var since int64 = -1
	if q.SyncCursor != "" {
		v, err := strconv.ParseInt(strings.TrimPrefix(q.SyncCursor, "v:"), 10, 64)
		if err != nil || v < p.minSync {
			return nil, unical.Errorf(unical.CodeGone, "The sync cursor expired.")
		}
		since = v
	}
	all, err := c.book.List(q, since)
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{}
	batch.Events, batch.NextPageCursor = eventbook.Page(all, q.PageCursor, q.PageSize)
	if batch.NextPageCursor == "" {
		batch.NextSyncCursor = "v:" + strconv.FormatInt(p.version, 10)
	}
	return batch, nil
}

// GetEvent implements unical.Provider, for series and instance ids (the
// instance methods edit single occurrences as the VIRTUAL provider does).
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, calendarID)
	if err != nil {
		return nil, err
	}
	return c.book.Lookup(eventID)
}

// CreateEvent implements unical.Provider.
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, calendarID)
	if err != nil {
		return nil, err
	}
	if err := eventbook.CheckWrite(params, nil, s.Email); err != nil {
		return nil, err
	}
	p.nextID++
	p.version++
	return c.book.Create(fmt.Sprintf("ev/%d@mem=+", p.nextID), p.version, params, s.Email, time.Now()), nil
}

// UpdateEvent implements unical.Provider.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, calendarID)
	if err != nil {
		return nil, err
	}
	if err := c.book.CheckIfMatch(s.IfMatch, eventID); err != nil {
		return nil, err
	}
	ev, ok, err := c.book.UpdateInstance(eventID, p.version+1, params, s.Email, time.Now())
	if !ok {
		ev, err = c.book.Update(eventID, p.version+1, params, s.Email, time.Now())
	}
	if err != nil {
		return nil, err
	}
	p.version++
	return ev, nil
}

// DeleteEvent implements unical.Provider.
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, calendarID)
	if err != nil {
		return err
	}
	if err := c.book.CheckIfMatch(s.IfMatch, eventID); err != nil {
		return err
	}
	ok, err := c.book.DeleteInstance(eventID, p.version+1, time.Now())
	if !ok {
		err = c.book.Delete(eventID, p.version+1)
	}
	if err != nil {
		return err
	}
	p.version++
	return nil
}

// RespondToEvent implements unical.Provider.
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, c, err := p.calendar(s, calendarID)
	if err != nil {
		return err
	}
	ok, err := c.book.RespondInstance(eventID, p.version+1, s.Email, status, time.Now())
	if !ok {
		err = c.book.Respond(eventID, p.version+1, s.Email, status, time.Now())
	}
	if err != nil {
		return err
	}
	p.version++
	return nil
}

// Writes returns a number that changes with every write to the provider's
// data, so tests can assert that nothing was written.
func (p *Provider) Writes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.version*1_000_000 + int64(p.nextID)
}
