package unical

import (
	"context"
	"time"
)

// Provider turns the unified operations into calls to one provider type and
// maps fields both ways. A Provider is shared by every account and
// application, so it must be safe for concurrent use and keep no
// per-account state: everything it needs arrives in the [Session].
//
// Every method returns *Error values: CodeNotFound for unknown calendars and
// events, CodeAccountExpired when the credentials no longer work (the Client
// then marks the account EXPIRED), CodePrecondition when an ETag-conditional
// write loses a race, CodeGone when a sync cursor is no longer accepted,
// CodeRateLimited and CodeUnavailable (with RetryAfter where known) after the
// provider's own bounded retries, CodeNotImplemented for what the provider
// cannot do, and CodeUpstream for other provider failures.
type Provider interface {
	// Type returns the provider type the Provider serves.
	Type() ProviderType

	// Connect checks credentials before anything is stored: a refresh token
	// is refreshed once, a password is tried against the server. It returns
	// the identity behind them. A wrong password or a revoked refresh token
	// is CodeUnauthorized.
	Connect(ctx context.Context, settings ProviderSettings, params ConnectParams) (*Connection, error)

	// ListCalendars returns every calendar of the account.
	ListCalendars(ctx context.Context, s *Session) ([]*Calendar, error)
	// GetCalendar returns one calendar.
	GetCalendar(ctx context.Context, s *Session, calendarID string) (*Calendar, error)
	// CreateCalendar creates a calendar; params has been validated.
	CreateCalendar(ctx context.Context, s *Session, params *CalendarParams) (*Calendar, error)
	// UpdateCalendar changes the fields params sets; params has been validated.
	UpdateCalendar(ctx context.Context, s *Session, calendarID string, params *CalendarParams) (*Calendar, error)
	// DeleteCalendar deletes a calendar and its events.
	DeleteCalendar(ctx context.Context, s *Session, calendarID string) error

	// ListEvents returns one page of the events that q asks for. See
	// [EventQuery] for what a provider must honour and what it may leave to
	// the Client.
	ListEvents(ctx context.Context, s *Session, calendarID string, q *EventQuery) (*EventBatch, error)
	// GetEvent returns one event, or one instance of a series by its
	// instance id.
	GetEvent(ctx context.Context, s *Session, calendarID, eventID string) (*Event, error)
	// CreateEvent creates an event; params has been validated.
	CreateEvent(ctx context.Context, s *Session, calendarID string, params *EventParams) (*Event, error)
	// UpdateEvent changes the fields params sets, conditionally on the
	// version the provider last returned where the provider supports it;
	// params has been validated.
	UpdateEvent(ctx context.Context, s *Session, calendarID, eventID string, params *EventParams) (*Event, error)
	// DeleteEvent deletes an event (a whole series when given a series id).
	DeleteEvent(ctx context.Context, s *Session, calendarID, eventID string) error
	// RespondToEvent sets the response of the account's own attendee entry.
	// An event without the account among its attendees is CodeInvalid.
	RespondToEvent(ctx context.Context, s *Session, calendarID, eventID string, status ResponseStatus) error
}

// OAuthProvider is a Provider whose accounts connect through the OAuth 2.0
// authorization code flow with PKCE.
type OAuthProvider interface {
	Provider
	// AuthCodeURL returns the provider's authorization URL for req.
	AuthCodeURL(settings ProviderSettings, req *AuthCodeRequest) (string, error)
	// Exchange redeems an authorization code and returns the identity and
	// tokens behind it.
	Exchange(ctx context.Context, settings ProviderSettings, req *CodeExchange) (*Connection, error)
}

// TokenRefresher is an OAuthProvider that can refresh an access token on
// demand; the credentials endpoint uses it to hand out a valid token.
type TokenRefresher interface {
	// RefreshToken returns a fresh token set and has called
	// s.OnTokenRefresh with it. A revoked grant is CodeAccountExpired.
	RefreshToken(ctx context.Context, s *Session) (Token, error)
}

// GrantRevoker is a Provider with a revocation endpoint: deleting an
// account revokes its grant there, so that the application's access ends
// (see App.DeleteAccount).
type GrantRevoker interface {
	// RevokeGrant revokes the grant behind s's refresh token. It returns
	// nil when the grant is gone, also when the provider says it already
	// was; CodeUnavailable (no answer, a timeout, a 5xx) or
	// CodeRateLimited when a later try may succeed (see
	// grants.Retryable); another code when it cannot.
	RevokeGrant(ctx context.Context, s *Session) error
}

// FreeBusyQuerier is a Provider with native free/busy. Without it the
// Client computes busy time from expanded events.
type FreeBusyQuerier interface {
	// QueryFreeBusy returns the busy intervals of each calendar in
	// [q.Start, q.End). Intervals may overlap; the Client merges them.
	QueryFreeBusy(ctx context.Context, s *Session, q *FreeBusyQuery) (map[string][]Interval, error)
}

// Watcher is a Provider with push notifications (Google channels, Graph
// subscriptions). Without it the webhook engine polls with sync tokens.
type Watcher interface {
	// Watch asks the provider to notify req.Address of changes to a
	// calendar's events.
	Watch(ctx context.Context, s *Session, req *WatchRequest) (*Watch, error)
	// RenewWatch extends a watch before it expires; it may return a new one.
	RenewWatch(ctx context.Context, s *Session, w *Watch, req *WatchRequest) (*Watch, error)
	// StopWatch ends a watch. Stopping one the provider no longer knows is
	// not an error.
	StopWatch(ctx context.Context, s *Session, w *Watch) error
	// ParseNotification checks an incoming push request and says what to
	// answer and which watches it concerns. It must not trust the request:
	// the Client compares each change's token with the stored one.
	ParseNotification(n *Notification) (*NotificationResult, error)
}

// ProviderSettings are an application's settings for one provider type.
// Every URL has the provider's public default when empty, so tests and
// national clouds can point them elsewhere.
type ProviderSettings struct {
	// ClientID is the OAuth client id (Google, Microsoft).
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret is the OAuth client secret; sealed at rest.
	ClientSecret string `json:"clientSecret,omitempty"`
	// AuthURL overrides the authorization endpoint.
	AuthURL string `json:"authUrl,omitempty"`
	// TokenURL overrides the token endpoint.
	TokenURL string `json:"tokenUrl,omitempty"`
	// UserInfoURL overrides the endpoint that names the signed-in user.
	UserInfoURL string `json:"userInfoUrl,omitempty"`
	// APIBaseURL overrides the calendar API base URL.
	APIBaseURL string `json:"apiBaseUrl,omitempty"`
	// RevokeURL overrides the token revocation endpoint (Google).
	RevokeURL string `json:"revokeUrl,omitempty"`
	// ServerURL is the CalDAV server (default https://caldav.icloud.com).
	ServerURL string `json:"serverUrl,omitempty"`
	// Tenant is the Microsoft tenant (default "common").
	Tenant string `json:"tenant,omitempty"`
	// Scopes overrides the OAuth scopes requested.
	Scopes []string `json:"scopes,omitempty"`
}

// ConnectParams are the credentials handed to [Provider.Connect].
type ConnectParams struct {
	Email        string
	RefreshToken string
	Password     string
	// Username is the CalDAV login when it is not the email ("" means
	// the email).
	Username string
	// ServerURL is the CalDAV server the user named; it wins over
	// [ProviderSettings.ServerURL] and discovery.
	ServerURL string
	// Delegation is the application's delegation credential; only
	// [DelegatedConnector.ConnectDelegated] is given one.
	Delegation *DelegationGrant
}

// DelegatedConnector is a Provider that connects a user of a Google
// Workspace domain or Microsoft 365 tenant through the application's
// delegation credential (params.Delegation), without a token of the
// user's: an unknown user is CodeInvalid naming email, a refused
// credential CodeInvalid naming providerType.
type DelegatedConnector interface {
	ConnectDelegated(ctx context.Context, settings ProviderSettings, params ConnectParams) (*Connection, error)
}

// Connection is what a successful connect or code exchange learned.
type Connection struct {
	// Email is the account's address as the provider knows it.
	Email string
	// ProviderAccountID (Google sub, Microsoft object id; "" for CalDAV) and
	// TenantID (Microsoft tid) are whom an OAuth account is bound to.
	ProviderAccountID, TenantID string
	// VerifiedNames are the sign-in names the provider vouches for, which
	// loginHint is compared with (internal/identity).
	VerifiedNames []string
	// Scopes are the granted OAuth scopes.
	Scopes []string
	// Token holds the OAuth tokens (zero for CalDAV).
	Token Token
	// State is provider data kept with the account and handed back in every
	// Session (for example a CalDAV calendar-home URL found by discovery).
	State []byte
	// ServerURL is the server the account was connected at (CalDAV),
	// shown as [Account.ServerURL].
	ServerURL string
	// Delegated marks a connection through the application's delegation
	// credential; the Client sets it.
	Delegated bool
}

// Token is an OAuth 2.0 token set. It mirrors oauth2.Token without
// importing it, so that the root package stays free of net/http.
type Token struct {
	AccessToken  string
	RefreshToken string
	Expiry       time.Time
	Scopes       []string
}

// Session is what a Provider gets for one call on behalf of one account.
type Session struct {
	AccountID         string
	ApplicationID     string
	Email             string
	ProviderAccountID string
	Settings          ProviderSettings
	// Token holds the decrypted OAuth tokens.
	Token Token
	// Password is the decrypted CalDAV app-specific password, or the
	// address a [URLConnector]'s account connected with.
	Password string
	// State is the provider data from Connection.State.
	State []byte
	// RefreshIssued is when Token's refresh token was handed to unical
	// (the connection, or the refresh that rotated it); zero when not
	// known. Its age tells Google's seven-day expiry of Testing-mode
	// grants from a revocation (provider/google).
	RefreshIssued time.Time
	// OnTokenRefresh persists tokens the provider refreshed. Providers call
	// it before using a new access token.
	OnTokenRefresh func(ctx context.Context, tok Token) error
	// Delegation is set for an account connected through the
	// application's delegation credential: Token is empty, and the
	// provider mints the user's tokens from it (a refusal is
	// CodeAccountExpired with StatusReasonDelegationRevoked).
	Delegation *DelegationGrant

	// NotifyAttendees is the caller's notifyAttendees choice for the
	// event writes of this call (WriteOptions.NotifyAttendees): email the
	// attendees (true) or not (false); nil is the provider's default.
	NotifyAttendees *bool
	// IfMatch is the etag the caller's event update or delete is
	// conditional on (WriteOptions.IfMatch); "" is none. A provider
	// refuses a write to an event no longer at it with CodePrecondition
	// naming If-Match (ifmatch.Matches compares etags).
	IfMatch string
}

// DelegationGrant is an application's delegation credential for one
// provider type, with its sealed part opened (the JSON package admin
// sealed: Google's service account key or Microsoft's client secret).
type DelegationGrant struct {
	Credential Delegation
	Secret     []byte
}

// AuthCodeRequest is the input of [OAuthProvider.AuthCodeURL].
type AuthCodeRequest struct {
	RedirectURI   string
	State         string
	CodeChallenge string // PKCE S256 challenge
	Prompt        string
	LoginHint     string
}

// CodeExchange is the input of [OAuthProvider.Exchange].
type CodeExchange struct {
	Code         string
	RedirectURI  string
	CodeVerifier string
}

// EventQuery is what [Provider.ListEvents] is asked for.
//
// A provider must honour TimeMin/TimeMax (events overlapping the window),
// SeriesID, SyncCursor and PageCursor. SingleEvents asks for expanded
// instances: a provider that can expand sets EventBatch.Expanded and returns
// instances; one that cannot returns series masters (with Recurrence) and
// their overridden or cancelled instances (with RecurringEventID and
// OriginalStart), and the Client expands them. Search, Metadata, OrderBy and
// TimeZone are hints: the Client applies them again to what comes back.
type EventQuery struct {
	TimeMin, TimeMax time.Time
	SingleEvents     bool
	// SeriesID restricts the listing to one recurring series (occurrences).
	SeriesID string
	OrderBy  string
	Search   string
	Metadata *MetadataFilters
	TimeZone string
	// SyncCursor is the provider cursor of a previous EventBatch; the
	// provider returns what changed since, with deleted events as
	// isCancelled, or CodeGone when the cursor is no longer accepted.
	SyncCursor string
	// WantSync asks for a NextSyncCursor on the last page.
	WantSync bool
	// PageCursor is the NextPageCursor of the previous page.
	PageCursor string
	// PageSize is a hint for the page size.
	PageSize int
}

// EventBatch is one page of events from a provider.
type EventBatch struct {
	Events []*Event
	// Expanded reports that recurring series were expanded into instances.
	Expanded bool
	// Ordered reports that Events are in the requested OrderBy order across
	// pages.
	Ordered bool
	// NextPageCursor is set when more pages follow.
	NextPageCursor string
	// NextSyncCursor is set on the last page when the query asked for one.
	NextSyncCursor string
}

// FreeBusyQuery is the input of [FreeBusyQuerier.QueryFreeBusy].
type FreeBusyQuery struct {
	Start, End  time.Time
	TimeZone    string
	CalendarIDs []string
}

// WatchRequest describes a provider watch to create or renew.
type WatchRequest struct {
	CalendarID string
	// Address is the HTTPS URL the provider posts notifications to.
	Address string
	// Token is a secret the provider echoes in each notification (Google
	// channel token, Graph clientState).
	Token string
	// Expiration is the wanted end of the watch; the provider may shorten it.
	Expiration time.Time
}

// Watch is a provider-side watch.
type Watch struct {
	ID         string    `json:"id"`
	ResourceID string    `json:"resourceId,omitempty"`
	Expiration time.Time `json:"expiration"`
	Token      string    `json:"token,omitempty"`
}

// Notification is an incoming push request from a provider.
type Notification struct {
	Method string
	Header map[string][]string
	Query  map[string][]string
	Body   []byte
}

// NotificationResult is a provider's reading of a [Notification].
type NotificationResult struct {
	// Status, ContentType and Body are the answer to send back (Graph's
	// validation handshake echoes a token; pushes get 202 or 200).
	Status      int
	ContentType string
	Body        []byte
	// Changes lists the watches the notification concerns.
	Changes []WatchChange
}

// WatchChange is one change reported by a notification.
type WatchChange struct {
	WatchID string
	Token   string
	Kind    WatchChangeKind
}

// WatchChangeKind says what a provider notification reports about a watch.
type WatchChangeKind string

// The kinds of [WatchChange].
const (
	// WatchChanged: something in the watched calendar changed.
	WatchChanged WatchChangeKind = "changed"
	// WatchSync: a new watch says hello; nothing changed.
	WatchSync WatchChangeKind = "sync"
	// WatchMissed: the provider dropped notifications; anything may have
	// changed.
	WatchMissed WatchChangeKind = "missed"
	// WatchReauthorize: the watch must be renewed to go on.
	WatchReauthorize WatchChangeKind = "reauthorize"
	// WatchRemoved: the provider ended the watch.
	WatchRemoved WatchChangeKind = "removed"
)

// SeriesSplitter is a Provider that writes a "this and following" split
// of a recurring series itself, in fewer and conditional writes (CalDAV:
// one resource for each half). The Client has already read the series and
// computed both halves; without SeriesSplitter it writes the split with
// CreateEvent, UpdateEvent and DeleteEvent (Google and Graph, whose APIs
// have no other way).
type SeriesSplitter interface {
	// SplitSeries ends the series req.SeriesID before req.At and, when
	// req.New is set, creates the new series with req.Exceptions on it,
	// and returns it (nil for a delete).
	SplitSeries(ctx context.Context, s *Session, calendarID string, req *SeriesSplit) (*Event, error)
}

// SeriesSplit is the input of [SeriesSplitter.SplitSeries].
type SeriesSplit struct {
	SeriesID string
	// At is the original start of the occurrence split at: an instant, or
	// a date label at midnight UTC for all-day series.
	At     time.Time
	AllDay bool
	// Before is the old series' recurrence, ending before At (see
	// [SplitRecurrence]). Overrides from At on are dropped from it.
	Before []string
	// New creates the new series (validated; Recurrence holds its lines
	// without EXDATE), or is nil for a delete.
	New *EventParams
	// Shift is how far the new series moved from the old slots: the new
	// series' occurrence of an old one at t starts at t+Shift.
	Shift time.Duration
	// Exceptions are the old series' overridden and cancelled occurrences
	// after At, to carry over to the new series.
	Exceptions []SplitException
}

// SplitException is an overridden or cancelled occurrence carried over by
// a split.
type SplitException struct {
	// OriginalStart is its original start in the old series.
	OriginalStart time.Time
	Cancelled     bool
	// Changes are the fields the override changed, to apply onto the new
	// series' occurrence; Start and End only when it had moved.
	Changes *EventParams
}
