package storedoc

import (
	"bytes"
	"slices"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// Application is the stored form of [unical.Application]. Its JSON names
// are the store's own, apart from the API's, so that the stored format
// changes only on purpose; it keeps the sealed fields the API types hide
// with json:"-".
type Application struct {
	ID                  string                                 `json:"id"`
	Name                string                                 `json:"name"`
	CreatedAt           time.Time                              `json:"createdAt"`
	UpdatedAt           time.Time                              `json:"updatedAt"`
	RedirectURLs        []string                               `json:"redirectUrls"`
	Providers           map[unical.ProviderType]ProviderConfig `json:"providers"`
	SealedSecrets       map[unical.ProviderType][]byte         `json:"sealedSecrets"`
	WebhookURL          string                                 `json:"webhookUrl"`
	SealedWebhookSecret []byte                                 `json:"sealedWebhookSecret"`
	WebhookState        EndpointState                          `json:"webhookState"`
	WebhookStateURL     string                                 `json:"webhookStateUrl"`
	Delegations         map[unical.ProviderType]Delegation     `json:"delegations,omitempty"`
	SealedMail          []byte                                 `json:"sealedMail,omitempty"`
}

// Delegation is the stored form of [unical.Delegation].
type Delegation struct {
	ClientID     string    `json:"clientId"`
	TenantID     string    `json:"tenantId"`
	Domains      []string  `json:"domains"`
	TokenURL     string    `json:"tokenUrl"`
	APIBaseURL   string    `json:"apiBaseUrl"`
	DirectoryURL string    `json:"directoryUrl"`
	AdminEmail   string    `json:"adminEmail,omitempty"`
	Status       string    `json:"status"`
	StatusReason string    `json:"statusReason"`
	UpdatedAt    time.Time `json:"updatedAt"`
	Sealed       []byte    `json:"sealed"`
}

// ProviderConfig is the stored form of [unical.ProviderSettings], without
// ClientSecret: that is only ever stored sealed, in SealedSecrets.
type ProviderConfig struct {
	ClientID    string   `json:"clientId"`
	AuthURL     string   `json:"authUrl"`
	TokenURL    string   `json:"tokenUrl"`
	UserInfoURL string   `json:"userInfoUrl"`
	APIBaseURL  string   `json:"apiBaseUrl"`
	RevokeURL   string   `json:"revokeUrl,omitempty"`
	ServerURL   string   `json:"serverUrl"`
	Tenant      string   `json:"tenant"`
	Scopes      []string `json:"scopes"`
}

// EndpointState is the stored form of [outbox.EndpointState].
type EndpointState struct {
	FailingSince   *time.Time `json:"failingSince,omitempty"`
	DisabledAt     *time.Time `json:"disabledAt,omitempty"`
	DisabledReason string     `json:"disabledReason,omitempty"`
}

// FromEndpointState returns the stored form of st.
func FromEndpointState(st outbox.EndpointState) EndpointState {
	return EndpointState{FailingSince: UTCPtr(st.FailingSince), DisabledAt: UTCPtr(st.DisabledAt), DisabledReason: st.DisabledReason}
}

// ToEndpointState returns the API form of rec.
func (rec EndpointState) ToEndpointState() outbox.EndpointState {
	return outbox.EndpointState{FailingSince: rec.FailingSince, DisabledAt: rec.DisabledAt, DisabledReason: rec.DisabledReason}
}

// FromApplication checks app and returns its stored form. It refuses a
// plaintext provider client secret.
func FromApplication(app *unical.Application) (*Application, error) {
	if err := CheckID("Application id", app.ID); err != nil {
		return nil, err
	}
	rec := &Application{
		ID: app.ID, Name: app.Name, CreatedAt: UTC(app.CreatedAt), UpdatedAt: UTC(app.UpdatedAt),
		RedirectURLs: app.RedirectURLs, SealedSecrets: app.SealedSecrets,
		WebhookURL: app.WebhookURL, SealedWebhookSecret: app.SealedWebhookSecret,
		WebhookState: FromEndpointState(app.WebhookState), WebhookStateURL: app.WebhookStateURL, SealedMail: app.SealedMail,
	}
	if app.Delegations != nil {
		rec.Delegations = make(map[unical.ProviderType]Delegation, len(app.Delegations))
		for t, d := range app.Delegations {
			rec.Delegations[t] = Delegation{
				ClientID: d.ClientID, TenantID: d.TenantID, Domains: d.Domains, TokenURL: d.TokenURL, APIBaseURL: d.APIBaseURL,
				DirectoryURL: d.DirectoryURL, Status: d.Status, StatusReason: d.StatusReason, UpdatedAt: UTC(d.UpdatedAt), Sealed: d.Sealed,
				AdminEmail: d.AdminEmail,
			}
		}
	}
	if app.Providers != nil {
		rec.Providers = make(map[unical.ProviderType]ProviderConfig, len(app.Providers))
		for t, p := range app.Providers {
			if p.ClientSecret != "" {
				// The contract says the Client seals it first; refusing a
				// plaintext secret keeps that promise for the store.
				return nil, unical.Errorf(unical.CodeInvalid, "The %s client secret must be sealed before it is stored.", t)
			}
			rec.Providers[t] = ProviderConfig{
				ClientID: p.ClientID, AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL,
				APIBaseURL: p.APIBaseURL, RevokeURL: p.RevokeURL, ServerURL: p.ServerURL, Tenant: p.Tenant, Scopes: p.Scopes,
			}
		}
	}
	return rec, nil
}

// ToApplication returns the API form of rec.
func (rec *Application) ToApplication() *unical.Application {
	app := &unical.Application{
		ID: rec.ID, Name: rec.Name, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt,
		RedirectURLs: rec.RedirectURLs, SealedSecrets: rec.SealedSecrets,
		WebhookURL: rec.WebhookURL, SealedWebhookSecret: rec.SealedWebhookSecret,
		WebhookState: rec.WebhookState.ToEndpointState(), WebhookStateURL: rec.WebhookStateURL, SealedMail: rec.SealedMail,
	}
	if rec.Delegations != nil {
		app.Delegations = make(map[unical.ProviderType]unical.Delegation, len(rec.Delegations))
		for t, d := range rec.Delegations {
			app.Delegations[t] = unical.Delegation{
				ClientID: d.ClientID, TenantID: d.TenantID, Domains: d.Domains, TokenURL: d.TokenURL, APIBaseURL: d.APIBaseURL,
				DirectoryURL: d.DirectoryURL, Status: d.Status, StatusReason: d.StatusReason, UpdatedAt: d.UpdatedAt, Sealed: d.Sealed,
				AdminEmail: d.AdminEmail,
			}
		}
	}
	if rec.Providers != nil {
		app.Providers = make(map[unical.ProviderType]unical.ProviderSettings, len(rec.Providers))
		for t, p := range rec.Providers {
			app.Providers[t] = unical.ProviderSettings{
				ClientID: p.ClientID, AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL,
				APIBaseURL: p.APIBaseURL, RevokeURL: p.RevokeURL, ServerURL: p.ServerURL, Tenant: p.Tenant, Scopes: p.Scopes,
			}
		}
	}
	return app
}

// Account is the stored form of [unical.AccountRecord].
type Account struct {
	ID                   string               `json:"id"`
	ApplicationID        string               `json:"applicationId"`
	CreatedAt            time.Time            `json:"createdAt"`
	UpdatedAt            time.Time            `json:"updatedAt"`
	Email                string               `json:"email"`
	ExternalID           string               `json:"externalId"`
	AuthorizedScopes     []string             `json:"authorizedScopes"`
	ProviderAccountID    *string              `json:"providerAccountId"`
	ProviderID           string               `json:"providerId"`
	Status               unical.AccountStatus `json:"status"`
	StatusReason         unical.StatusReason  `json:"statusReason,omitempty"`
	ProviderType         unical.ProviderType  `json:"providerType"`
	SealedSecrets        []byte               `json:"sealedSecrets"`
	TokenExpiry          time.Time            `json:"tokenExpiry"`
	CredentialsID        string               `json:"credentialsId"`
	CredentialsCreatedAt time.Time            `json:"credentialsCreatedAt"`
	CredentialsUpdatedAt time.Time            `json:"credentialsUpdatedAt"`
	ProviderState        []byte               `json:"providerState"`
	ServerURL            string               `json:"serverUrl,omitempty"`
	Delegated            bool                 `json:"delegated,omitempty"`
	Room                 *unical.RoomDetails  `json:"room,omitempty"`
	ProviderTenantID     string               `json:"providerTenantId,omitempty"`
}

// FromAccount checks a and returns its stored form.
func FromAccount(a *unical.AccountRecord) (*Account, error) {
	if err := CheckID("Account id", a.ID); err != nil {
		return nil, err
	}
	if err := CheckID("Application id", a.ApplicationID); err != nil {
		return nil, err
	}
	return &Account{
		ID: a.ID, ApplicationID: a.ApplicationID, CreatedAt: UTC(a.CreatedAt), UpdatedAt: UTC(a.UpdatedAt),
		Email: a.Email, ExternalID: a.ExternalID, AuthorizedScopes: a.AuthorizedScopes,
		ProviderAccountID: a.ProviderAccountID, ProviderID: a.ProviderID, Status: a.Status, StatusReason: a.StatusReason,
		ProviderType: a.ProviderType, SealedSecrets: a.SealedSecrets, TokenExpiry: UTC(a.TokenExpiry),
		CredentialsID: a.CredentialsID, CredentialsCreatedAt: UTC(a.CredentialsCreatedAt),
		CredentialsUpdatedAt: UTC(a.CredentialsUpdatedAt), ProviderState: a.ProviderState, ServerURL: a.ServerURL,
		Delegated: a.Delegated,
		Room:      a.Room, ProviderTenantID: a.ProviderTenantID,
	}, nil
}

// ToAccountRecord returns a copy of rec that shares nothing with it, so
// that rec may be a cached record (the bolt store's account cache) the
// caller cannot change.
func (rec *Account) ToAccountRecord() *unical.AccountRecord {
	var providerAccountID *string
	if rec.ProviderAccountID != nil {
		v := *rec.ProviderAccountID
		providerAccountID = &v
	}
	return &unical.AccountRecord{
		Account: unical.Account{
			ID: rec.ID, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, Email: rec.Email,
			ExternalID: rec.ExternalID, AuthorizedScopes: slices.Clone(rec.AuthorizedScopes),
			ProviderAccountID: providerAccountID, ProviderID: rec.ProviderID,
			ApplicationID: rec.ApplicationID, Status: rec.Status, StatusReason: rec.StatusReason, ProviderType: rec.ProviderType,
			ServerURL: rec.ServerURL, Delegated: rec.Delegated, Room: cloneRoom(rec.Room),
		},
		SealedSecrets: bytes.Clone(rec.SealedSecrets), TokenExpiry: rec.TokenExpiry, CredentialsID: rec.CredentialsID,
		CredentialsCreatedAt: rec.CredentialsCreatedAt, CredentialsUpdatedAt: rec.CredentialsUpdatedAt,
		ProviderState: bytes.Clone(rec.ProviderState), ProviderTenantID: rec.ProviderTenantID,
	}
}

func cloneRoom(r *unical.RoomDetails) *unical.RoomDetails {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

// Subscription is the stored form of [unical.SubscriptionRecord]. The
// field order is the bolt file's; PostgreSQL's jsonb keeps keys in its
// own order, so the order matters only to bbolt.
type Subscription struct {
	ID               string              `json:"id"`
	ApplicationID    string              `json:"applicationId"`
	EndUserAccountID string              `json:"endUserAccountId"`
	Provider         unical.ProviderType `json:"provider"`
	URL              string              `json:"url"`
	CalendarID       string              `json:"calendarId"`
	Expiration       *time.Time          `json:"expiration"`
	SubscriptionID   string              `json:"subscriptionId"`
	ResourceID       string              `json:"resourceId"`
	CreatedAt        time.Time           `json:"createdAt"`
	UpdatedAt        time.Time           `json:"updatedAt"`
	RateLimit        int                 `json:"rateLimit"`
	SealedSecret     []byte              `json:"sealedSecret"`
	Watch            *Watch              `json:"watch"`
	Cursor           string              `json:"cursor"`
	CursorAt         time.Time           `json:"cursorAt,omitzero"`
	IncludeEvents    bool                `json:"includeEvents,omitempty"`
	ReconciledAt     time.Time           `json:"reconciledAt,omitzero"`
	Endpoint         EndpointState       `json:"endpoint"`
	NextCheckAt      time.Time           `json:"nextCheckAt,omitzero"`
	NextSendAt       time.Time           `json:"nextSendAt,omitzero"`
}

// Watch is the stored form of [unical.Watch].
type Watch struct {
	ID         string    `json:"id"`
	ResourceID string    `json:"resourceId"`
	Expiration time.Time `json:"expiration"`
	Token      string    `json:"token"`
}

// FromSubscription checks sub and returns its stored form.
func FromSubscription(sub *unical.SubscriptionRecord) (*Subscription, error) {
	if err := CheckID("Subscription id", sub.ID); err != nil {
		return nil, err
	}
	if err := CheckID("Application id", sub.ApplicationID); err != nil {
		return nil, err
	}
	if err := CheckID("Account id", sub.EndUserAccountID); err != nil {
		return nil, err
	}
	rec := &Subscription{
		ID: sub.ID, ApplicationID: sub.ApplicationID, EndUserAccountID: sub.EndUserAccountID,
		Provider: sub.Provider, URL: sub.URL, CalendarID: sub.CalendarID, Expiration: UTCPtr(sub.Expiration),
		SubscriptionID: sub.SubscriptionID, ResourceID: sub.ResourceID,
		CreatedAt: UTC(sub.CreatedAt), UpdatedAt: UTC(sub.UpdatedAt),
		RateLimit: sub.RateLimit, SealedSecret: sub.SealedSecret, Cursor: sub.Cursor, CursorAt: UTC(sub.CursorAt),
		IncludeEvents: sub.IncludeEvents, ReconciledAt: UTC(sub.ReconciledAt), Endpoint: FromEndpointState(sub.EndpointState),
		NextCheckAt: UTC(sub.NextCheckAt), NextSendAt: UTC(sub.NextSendAt),
	}
	if w := sub.Watch; w != nil {
		rec.Watch = &Watch{ID: w.ID, ResourceID: w.ResourceID, Expiration: UTC(w.Expiration), Token: w.Token}
	}
	return rec, nil
}

// ToSubscriptionRecord returns the API form of rec.
func (rec *Subscription) ToSubscriptionRecord() *unical.SubscriptionRecord {
	sub := &unical.SubscriptionRecord{
		Subscription: unical.Subscription{
			ID: rec.ID, Provider: rec.Provider, URL: rec.URL, CalendarID: rec.CalendarID,
			Expiration: rec.Expiration, SubscriptionID: rec.SubscriptionID, ResourceID: rec.ResourceID,
			EndUserAccountID: rec.EndUserAccountID, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt,
			EndpointState: rec.Endpoint.ToEndpointState(), IncludeEvents: rec.IncludeEvents,
		},
		ApplicationID: rec.ApplicationID, RateLimit: rec.RateLimit, SealedSecret: rec.SealedSecret,
		Cursor: rec.Cursor, CursorAt: rec.CursorAt, ReconciledAt: rec.ReconciledAt,
		NextCheckAt: rec.NextCheckAt, NextSendAt: rec.NextSendAt,
	}
	if w := rec.Watch; w != nil {
		sub.Watch = &unical.Watch{ID: w.ID, ResourceID: w.ResourceID, Expiration: w.Expiration, Token: w.Token}
	}
	return sub
}

// Flow is the stored form of [unical.OAuthFlow]. The Client stores used
// flows with only the id, application, provider type and times, so the
// fields only flows of earlier versions carry are left out when empty:
// each record stays near 150 bytes.
type Flow struct {
	ID             string              `json:"id"`
	ApplicationID  string              `json:"applicationId"`
	ProviderType   unical.ProviderType `json:"providerType"`
	RedirectURL    string              `json:"redirectUrl,omitempty"`
	State          string              `json:"state,omitempty"`
	LoginHint      string              `json:"loginHint,omitempty"`
	SealedVerifier []byte              `json:"sealedVerifier,omitempty"`
	CreatedAt      time.Time           `json:"createdAt"`
	ExpiresAt      time.Time           `json:"expiresAt"`
}

// FromFlow checks f and returns its stored form.
func FromFlow(f *unical.OAuthFlow) (*Flow, error) {
	if err := CheckID("Flow id", f.ID); err != nil {
		return nil, err
	}
	return &Flow{
		ID: f.ID, ApplicationID: f.ApplicationID, ProviderType: f.ProviderType, RedirectURL: f.RedirectURL,
		State: f.State, LoginHint: f.LoginHint, SealedVerifier: f.SealedVerifier,
		CreatedAt: UTC(f.CreatedAt), ExpiresAt: UTC(f.ExpiresAt),
	}, nil
}

// ToFlow returns the API form of rec.
func (rec *Flow) ToFlow() *unical.OAuthFlow {
	return &unical.OAuthFlow{
		ID: rec.ID, ApplicationID: rec.ApplicationID, ProviderType: rec.ProviderType, RedirectURL: rec.RedirectURL,
		State: rec.State, LoginHint: rec.LoginHint, SealedVerifier: rec.SealedVerifier,
		CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt,
	}
}
