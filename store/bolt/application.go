package bolt

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/unical/unical"
	bbolt "go.etcd.io/bbolt"
)

// application is the stored form of [unical.Application]. The stored
// records have their own JSON names, apart from the API's, so that the file
// format changes only on purpose; they also keep the sealed fields that the
// API types hide with json:"-".
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

// providerConfig is the stored form of [unical.ProviderSettings], without
// ClientSecret: that is only ever stored sealed, in SealedSecrets.
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

func applicationToRecord(app *unical.Application) (*application, error) {
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
				// plaintext secret keeps that promise for the file.
				return nil, unical.Errorf(unical.CodeInvalid, "The %s client secret must be sealed before it is stored.", t)
			}
			rec.Providers[t] = providerConfig{
				ClientID: p.ClientID, AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL,
				APIBaseURL: p.APIBaseURL, ServerURL: p.ServerURL, Tenant: p.Tenant, Scopes: p.Scopes,
			}
		}
	}
	return rec, nil
}

func (rec *application) toApplication() *unical.Application {
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
	return app
}

// CreateApplication stores a new application; CodeConflict if the id is
// taken.
func (s *Store) CreateApplication(ctx context.Context, app *unical.Application) error {
	rec, err := applicationToRecord(app)
	if err != nil {
		return err
	}
	return s.update(ctx, "create application", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketApplications)
		if b.Get([]byte(rec.ID)) != nil {
			return conflict("Application %q already exists.", rec.ID)
		}
		return putJSON(b, []byte(rec.ID), rec)
	})
}

// GetApplication returns an application; CodeNotFound if there is none.
func (s *Store) GetApplication(ctx context.Context, id string) (*unical.Application, error) {
	var rec application
	err := s.view(ctx, "get application", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketApplications), []byte(id), &rec)
		if err == nil && !ok {
			err = notFound("Application", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.toApplication(), nil
}

// UpdateApplication replaces a stored application; CodeNotFound if there
// is none.
func (s *Store) UpdateApplication(ctx context.Context, app *unical.Application) error {
	rec, err := applicationToRecord(app)
	if err != nil {
		return err
	}
	return s.update(ctx, "update application", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketApplications)
		if b.Get([]byte(rec.ID)) == nil {
			return notFound("Application", rec.ID)
		}
		return putJSON(b, []byte(rec.ID), rec)
	})
}

// ListApplications returns every application, oldest first: by creation
// time, then by id. There are few applications, so they are sorted in
// memory.
func (s *Store) ListApplications(ctx context.Context) ([]*unical.Application, error) {
	var apps []*unical.Application
	err := s.view(ctx, "list applications", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketApplications).ForEach(func(k, v []byte) error {
			var rec application
			if err := decode(k, v, &rec); err != nil {
				return err
			}
			apps = append(apps, rec.toApplication())
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(apps, func(a, b *unical.Application) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return apps, nil
}

// apiKey is the stored form of [unical.APIKey], hash included.
type apiKey struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"applicationId"`
	Hash          []byte    `json:"hash"`
	CreatedAt     time.Time `json:"createdAt"`
	LastUsedAt    time.Time `json:"lastUsedAt,omitzero"`
}

func (rec *apiKey) toAPIKey() *unical.APIKey {
	return &unical.APIKey{ID: rec.ID, ApplicationID: rec.ApplicationID, Hash: rec.Hash, CreatedAt: rec.CreatedAt, LastUsedAt: rec.LastUsedAt}
}

// CreateAPIKey stores a key; CodeConflict if the id is taken.
func (s *Store) CreateAPIKey(ctx context.Context, key *unical.APIKey) error {
	if err := checkID("API key id", key.ID); err != nil {
		return err
	}
	if err := checkID("Application id", key.ApplicationID); err != nil {
		return err
	}
	rec := &apiKey{ID: key.ID, ApplicationID: key.ApplicationID, Hash: key.Hash, CreatedAt: utc(key.CreatedAt), LastUsedAt: utc(key.LastUsedAt)}
	return s.update(ctx, "create API key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		if b.Get([]byte(rec.ID)) != nil {
			return conflict("API key %q already exists.", rec.ID)
		}
		if err := putJSON(b, []byte(rec.ID), rec); err != nil {
			return err
		}
		return tx.Bucket(bucketAPIKeysByApp).Put(keyOf(rec.ApplicationID, rec.ID), nil)
	})
}

// GetAPIKey returns a key by id, whatever its application; CodeNotFound if
// there is none.
func (s *Store) GetAPIKey(ctx context.Context, id string) (*unical.APIKey, error) {
	var rec apiKey
	err := s.view(ctx, "get API key", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketAPIKeys), []byte(id), &rec)
		if err == nil && !ok {
			err = notFound("API key", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.toAPIKey(), nil
}

// ListAPIKeys returns an application's keys, oldest first: by creation
// time, then by id.
func (s *Store) ListAPIKeys(ctx context.Context, appID string) ([]*unical.APIKey, error) {
	var keys []*unical.APIKey
	err := s.view(ctx, "list API keys", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		return scanIDs(tx.Bucket(bucketAPIKeysByApp), keyOf(appID, ""), "", func(id string) (bool, error) {
			var rec apiKey
			if _, err := getJSON(b, []byte(id), &rec); err != nil {
				return false, err
			}
			keys = append(keys, rec.toAPIKey())
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b *unical.APIKey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return keys, nil
}

// DeleteAPIKey removes one of an application's keys; CodeNotFound if the
// application has no such key.
func (s *Store) DeleteAPIKey(ctx context.Context, appID, id string) error {
	return s.update(ctx, "delete API key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		var rec apiKey
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok || rec.ApplicationID != appID {
			return notFound("API key", id)
		}
		if err := b.Delete([]byte(id)); err != nil {
			return err
		}
		return tx.Bucket(bucketAPIKeysByApp).Delete(keyOf(appID, id))
	})
}

// MarkAPIKeyUsed sets a key's LastUsedAt to at unless it holds a later
// time; CodeNotFound if there is no such key.
func (s *Store) MarkAPIKeyUsed(ctx context.Context, id string, at time.Time) error {
	return s.update(ctx, "mark API key used", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		var rec apiKey
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("API key", id)
		}
		if !rec.LastUsedAt.Before(at) {
			return nil
		}
		rec.LastUsedAt = utc(at)
		return putJSON(b, []byte(id), &rec)
	})
}

// DeleteApplication removes an application and its API keys in one
// transaction; CodeNotFound if there is none, CodeConflict while it has
// accounts.
func (s *Store) DeleteApplication(ctx context.Context, id string) error {
	return s.update(ctx, "delete application", func(tx *bbolt.Tx) error {
		apps := tx.Bucket(bucketApplications)
		if apps.Get([]byte(id)) == nil {
			return notFound("Application", id)
		}
		prefix := keyOf(id, "")
		if k, _ := tx.Bucket(bucketAccountsByApp).Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
			return conflict("Application %q still has accounts.", id)
		}
		var keyIDs []string
		err := scanIDs(tx.Bucket(bucketAPIKeysByApp), prefix, "", func(keyID string) (bool, error) {
			keyIDs = append(keyIDs, keyID)
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, keyID := range keyIDs {
			if err := tx.Bucket(bucketAPIKeys).Delete([]byte(keyID)); err != nil {
				return err
			}
			if err := tx.Bucket(bucketAPIKeysByApp).Delete(keyOf(id, keyID)); err != nil {
				return err
			}
		}
		return apps.Delete([]byte(id))
	})
}
