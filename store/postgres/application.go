package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
)

// application is the JSON document of an application in applications.data.
// Its names are the store's own, apart from the API's, so that the stored
// format changes only on purpose; it keeps the sealed fields the API types
// hide.
type application struct {
	ID                  string                                 `json:"id"`
	Name                string                                 `json:"name"`
	CreatedAt           time.Time                              `json:"createdAt"`
	UpdatedAt           time.Time                              `json:"updatedAt"`
	RedirectURLs        []string                               `json:"redirectUrls"`
	Providers           map[unical.ProviderType]providerConfig `json:"providers"`
	SealedSecrets       map[unical.ProviderType][]byte         `json:"sealedSecrets"`
	WebhookURL          string                                 `json:"webhookUrl"`
	SealedWebhookSecret []byte                                 `json:"sealedWebhookSecret"`
	WebhookState        endpointState                          `json:"webhookState"`
	WebhookStateURL     string                                 `json:"webhookStateUrl"`
}

// providerConfig is the stored form of [unical.ProviderSettings] without
// ClientSecret, which is only ever stored sealed, in SealedSecrets.
type providerConfig struct {
	ClientID    string   `json:"clientId"`
	AuthURL     string   `json:"authUrl"`
	TokenURL    string   `json:"tokenUrl"`
	UserInfoURL string   `json:"userInfoUrl"`
	APIBaseURL  string   `json:"apiBaseUrl"`
	ServerURL   string   `json:"serverUrl"`
	Tenant      string   `json:"tenant"`
	Scopes      []string `json:"scopes"`
}

// endpointState is the stored form of [unical.EndpointState].
type endpointState struct {
	FailingSince   *time.Time `json:"failingSince,omitempty"`
	DisabledAt     *time.Time `json:"disabledAt,omitempty"`
	DisabledReason string     `json:"disabledReason,omitempty"`
}

func toEndpointState(st unical.EndpointState) endpointState {
	return endpointState{FailingSince: utcPtr(st.FailingSince), DisabledAt: utcPtr(st.DisabledAt), DisabledReason: st.DisabledReason}
}

func (rec endpointState) toEndpointState() unical.EndpointState {
	return unical.EndpointState{FailingSince: rec.FailingSince, DisabledAt: rec.DisabledAt, DisabledReason: rec.DisabledReason}
}

// applicationDoc checks app and returns its stored JSON.
func applicationDoc(app *unical.Application) ([]byte, error) {
	if err := checkID("Application id", app.ID); err != nil {
		return nil, err
	}
	rec := &application{
		ID: app.ID, Name: app.Name, CreatedAt: utc(app.CreatedAt), UpdatedAt: utc(app.UpdatedAt),
		RedirectURLs: app.RedirectURLs, SealedSecrets: app.SealedSecrets,
		WebhookURL: app.WebhookURL, SealedWebhookSecret: app.SealedWebhookSecret,
		WebhookState: toEndpointState(app.WebhookState), WebhookStateURL: app.WebhookStateURL,
	}
	if app.Providers != nil {
		rec.Providers = make(map[unical.ProviderType]providerConfig, len(app.Providers))
		for t, p := range app.Providers {
			if p.ClientSecret != "" {
				// The contract says the Client seals it first; refusing a
				// plaintext secret keeps that promise for the database.
				return nil, unical.Errorf(unical.CodeInvalid, "The %s client secret must be sealed before it is stored.", t)
			}
			rec.Providers[t] = providerConfig{
				ClientID: p.ClientID, AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL,
				APIBaseURL: p.APIBaseURL, ServerURL: p.ServerURL, Tenant: p.Tenant, Scopes: p.Scopes,
			}
		}
	}
	return encode(rec)
}

func decodeApplication(data []byte) (*unical.Application, error) {
	var rec application
	if err := decode("application", data, &rec); err != nil {
		return nil, err
	}
	app := &unical.Application{
		ID: rec.ID, Name: rec.Name, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt,
		RedirectURLs: rec.RedirectURLs, SealedSecrets: rec.SealedSecrets,
		WebhookURL: rec.WebhookURL, SealedWebhookSecret: rec.SealedWebhookSecret,
		WebhookState: rec.WebhookState.toEndpointState(), WebhookStateURL: rec.WebhookStateURL,
	}
	if rec.Providers != nil {
		app.Providers = make(map[unical.ProviderType]unical.ProviderSettings, len(rec.Providers))
		for t, p := range rec.Providers {
			app.Providers[t] = unical.ProviderSettings{
				ClientID: p.ClientID, AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL,
				APIBaseURL: p.APIBaseURL, ServerURL: p.ServerURL, Tenant: p.Tenant, Scopes: p.Scopes,
			}
		}
	}
	return app, nil
}

// encode returns v's stored JSON.
func encode(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, internal(fmt.Errorf("postgres: encode: %w", err))
	}
	return data, nil
}

// decode decodes a stored JSON document of the given kind into v.
func decode(kind string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return internal(fmt.Errorf("postgres: decode %s: %w", kind, err))
	}
	return nil
}

// CreateApplication stores a new application; CodeConflict if the id is
// taken.
func (s *Store) CreateApplication(ctx context.Context, app *unical.Application) error {
	data, err := applicationDoc(app)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, "create application", "INSERT INTO applications (id, created_at, data) VALUES ($1, $2, $3)", app.ID, app.CreatedAt, data)
	return err
}

// GetApplication returns an application; CodeNotFound if there is none.
func (s *Store) GetApplication(ctx context.Context, id string) (*unical.Application, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM applications WHERE id = $1", []any{id}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("Application", id)
	}
	if err != nil {
		return nil, translate("get application", err)
	}
	return decodeApplication(data)
}

// UpdateApplication replaces a stored application; CodeNotFound if there
// is none.
func (s *Store) UpdateApplication(ctx context.Context, app *unical.Application) error {
	data, err := applicationDoc(app)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, "update application", "UPDATE applications SET created_at = $2, data = $3 WHERE id = $1", app.ID, app.CreatedAt, data)
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("Application", app.ID)
	}
	return nil
}

// ListApplications returns every application, oldest first: by creation
// time, then by id.
func (s *Store) ListApplications(ctx context.Context) ([]*unical.Application, error) {
	docs, err := queryAll(ctx, s, pgx.RowTo[[]byte], "SELECT data FROM applications ORDER BY created_at, id")
	if err != nil {
		return nil, translate("list applications", err)
	}
	apps := make([]*unical.Application, len(docs))
	for i, data := range docs {
		if apps[i], err = decodeApplication(data); err != nil {
			return nil, err
		}
	}
	return apps, nil
}

// CreateAPIKey stores a key; CodeConflict if the id is taken.
func (s *Store) CreateAPIKey(ctx context.Context, key *unical.APIKey) error {
	if err := checkID("API key id", key.ID); err != nil {
		return err
	}
	if err := checkID("Application id", key.ApplicationID); err != nil {
		return err
	}
	_, err := s.exec(ctx, "create API key", "INSERT INTO api_keys ("+apiKeyColumns+") VALUES ($1, $2, $3, $4, $5)",
		key.ID, key.ApplicationID, key.Hash, key.CreatedAt, key.LastUsedAt)
	return err
}

// apiKeyColumns are the columns scanAPIKey reads, in its order.
const apiKeyColumns = "id, application_id, hash, created_at, last_used_at"

// scanAPIKey reads the apiKeyColumns of a row.
func scanAPIKey(row pgx.CollectableRow) (*unical.APIKey, error) {
	var k unical.APIKey
	if err := row.Scan(&k.ID, &k.ApplicationID, &k.Hash, &k.CreatedAt, &k.LastUsedAt); err != nil {
		return nil, err
	}
	k.CreatedAt, k.LastUsedAt = utc(k.CreatedAt), utc(k.LastUsedAt)
	return &k, nil
}

// GetAPIKey returns a key by id, whatever its application; CodeNotFound if
// there is none.
func (s *Store) GetAPIKey(ctx context.Context, id string) (*unical.APIKey, error) {
	keys, err := queryAll(ctx, s, scanAPIKey, "SELECT "+apiKeyColumns+" FROM api_keys WHERE id = $1", id)
	if err == nil && len(keys) == 0 {
		return nil, notFound("API key", id)
	}
	if err != nil {
		return nil, translate("get API key", err)
	}
	return keys[0], nil
}

// ListAPIKeys returns an application's keys, oldest first: by creation
// time, then by id.
func (s *Store) ListAPIKeys(ctx context.Context, appID string) ([]*unical.APIKey, error) {
	keys, err := queryAll(ctx, s, scanAPIKey,
		"SELECT "+apiKeyColumns+" FROM api_keys WHERE application_id = $1 ORDER BY created_at, id", appID)
	if err != nil {
		return nil, translate("list API keys", err)
	}
	return keys, nil
}

// DeleteAPIKey removes one of an application's keys; CodeNotFound if the
// application has no such key.
func (s *Store) DeleteAPIKey(ctx context.Context, appID, id string) error {
	n, err := s.exec(ctx, "delete API key", "DELETE FROM api_keys WHERE id = $1 AND application_id = $2", id, appID)
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("API key", id)
	}
	return nil
}

// MarkAPIKeyUsed sets a key's LastUsedAt to at, unless it already holds a
// later time; CodeNotFound if there is no such key.
func (s *Store) MarkAPIKeyUsed(ctx context.Context, id string, at time.Time) error {
	return s.tx(ctx, "mark API key used", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND last_used_at < $2", id, at)
		if err != nil || tag.RowsAffected() > 0 {
			return err
		}
		var one int
		err = tx.QueryRow(ctx, "SELECT 1 FROM api_keys WHERE id = $1", id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("API key", id)
		}
		return err
	})
}

// DeleteApplication removes an application and its API keys in one
// transaction; CodeNotFound if there is none, CodeConflict while it has
// accounts.
func (s *Store) DeleteApplication(ctx context.Context, id string) error {
	return s.tx(ctx, "delete application", func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM applications WHERE id = $1 FOR UPDATE", id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("Application", id)
		}
		if err != nil {
			return err
		}
		var hasAccounts bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM accounts WHERE application_id = $1)", id).Scan(&hasAccounts); err != nil {
			return err
		}
		if hasAccounts {
			return conflict("Application %q still has accounts.", id)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM api_keys WHERE application_id = $1", id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM applications WHERE id = $1", id)
		return err
	})
}
