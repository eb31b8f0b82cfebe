package bolt

import (
	"bytes"
	"context"
	"strings"
	"sync"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// accountCache keeps decoded accounts by id with the stored bytes each was
// decoded from. Every read still takes the bytes from the file in its bolt
// transaction and decodes them only when they differ from the cached ones,
// so a hit is never stale and writes need not invalidate anything: a
// changed record misses once and is cached again. It saves the JSON
// decoding that dominated account reads (every API call on an account, 50
// per page of the account list). The zero value is ready to use.
type accountCache struct {
	mu      sync.Mutex
	entries map[string]*cachedAccount
}

type cachedAccount struct {
	data []byte            // the stored JSON
	rec  *storedoc.Account // decoded from data; never changed
}

// maxCachedAccounts bounds the cache (a few MB); past it, it starts over.
const maxCachedAccounts = 4096

// decode returns the account stored as data under id, which must not be
// changed: callers hand out rec.ToAccountRecord().
func (c *accountCache) decode(id, data []byte) (*storedoc.Account, error) {
	c.mu.Lock()
	e := c.entries[string(id)]
	c.mu.Unlock()
	if e != nil && bytes.Equal(e.data, data) {
		return e.rec, nil
	}
	rec := new(storedoc.Account)
	if err := decode(id, data, rec); err != nil {
		return nil, err
	}
	// bolt's bytes are only valid in the transaction: keep a copy.
	e = &cachedAccount{data: bytes.Clone(data), rec: rec}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCachedAccounts {
		c.entries = make(map[string]*cachedAccount)
	}
	c.entries[string(id)] = e
	c.mu.Unlock()
	return rec, nil
}

// drop forgets a deleted account.
func (c *accountCache) drop(id string) {
	c.mu.Lock()
	delete(c.entries, id)
	c.mu.Unlock()
}

// readAccount is getAccount through the cache, for reads whose record
// leaves the transaction only through toAccountRecord.
func (s *Store) readAccount(tx *bbolt.Tx, appID, id string) (*storedoc.Account, error) {
	data := tx.Bucket(bucketAccounts).Get([]byte(id))
	if data == nil {
		return nil, storedoc.NotFound("Account", id)
	}
	rec, err := s.accounts.decode([]byte(id), data)
	if err != nil {
		return nil, err
	}
	if rec.ApplicationID != appID {
		return nil, storedoc.NotFound("Account", id)
	}
	return rec, nil
}

// accountEmailKey is the accounts.byEmail key that makes (provider type,
// lower-cased email) unique within an application.
func accountEmailKey(rec *storedoc.Account) []byte {
	return emailKey(rec.ApplicationID, rec.ProviderType, rec.Email)
}

func emailKey(appID string, t unical.ProviderType, email string) []byte {
	return keyOf(appID, string(t), strings.ToLower(email))
}

// getAccount reads an application's account; another application's
// account is as missing as an unknown one.
func getAccount(tx *bbolt.Tx, appID, id string) (*storedoc.Account, error) {
	var rec storedoc.Account
	ok, err := getJSON(tx.Bucket(bucketAccounts), []byte(id), &rec)
	if err != nil {
		return nil, err
	}
	if !ok || rec.ApplicationID != appID {
		return nil, storedoc.NotFound("Account", id)
	}
	return &rec, nil
}

// CreateAccount stores a new account and queues msgs, in one transaction;
// CodeConflict if the id is taken or the application already has an
// account with the same provider type and email (compared
// case-insensitively).
func (s *Store) CreateAccount(ctx context.Context, a *unical.AccountRecord, msgs ...*outbox.Message) error {
	rec, err := storedoc.FromAccount(a)
	if err != nil {
		return err
	}
	queued, err := messageRecords(msgs)
	if err != nil {
		return err
	}
	return s.update(ctx, "create account", func(tx *bbolt.Tx) error {
		if err := enqueue(tx, queued); err != nil {
			return err
		}
		b := tx.Bucket(bucketAccounts)
		if b.Get([]byte(rec.ID)) != nil {
			return storedoc.Conflict("Account %q already exists.", rec.ID)
		}
		byEmail := tx.Bucket(bucketAccountsByEmail)
		if byEmail.Get(accountEmailKey(rec)) != nil {
			return storedoc.Conflict("An account with email %q and provider type %s already exists.", rec.Email, rec.ProviderType)
		}
		if err := putJSON(b, []byte(rec.ID), rec); err != nil {
			return err
		}
		if err := byEmail.Put(accountEmailKey(rec), []byte(rec.ID)); err != nil {
			return err
		}
		return tx.Bucket(bucketAccountsByApp).Put(keyOf(rec.ApplicationID, rec.ID), nil)
	})
}

// GetAccount returns an account of an application; CodeNotFound if the
// application has no such account.
func (s *Store) GetAccount(ctx context.Context, appID, id string) (*unical.AccountRecord, error) {
	var rec *storedoc.Account
	err := s.view(ctx, "get account", func(tx *bbolt.Tx) (err error) {
		rec, err = s.readAccount(tx, appID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.ToAccountRecord(), nil
}

// FindAccount returns the application's account with that provider type
// and email, compared case-insensitively; CodeNotFound if there is none.
func (s *Store) FindAccount(ctx context.Context, appID string, providerType unical.ProviderType, email string) (*unical.AccountRecord, error) {
	var rec *storedoc.Account
	err := s.view(ctx, "find account", func(tx *bbolt.Tx) (err error) {
		id := tx.Bucket(bucketAccountsByEmail).Get(emailKey(appID, providerType, email))
		if id == nil {
			return unical.Errorf(unical.CodeNotFound, "No %s account with email %q.", providerType, email)
		}
		rec, err = s.readAccount(tx, appID, string(id))
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.ToAccountRecord(), nil
}

// UpdateAccount reads an account, lets fn change it and writes it back, all
// in one write transaction, so concurrent updates never lose each other's
// changes. fn runs while the transaction holds the file's only write lock:
// it must be quick and must not call the Store. An error from fn aborts the
// update and is returned as it is. fn may not change the id or the
// application (CodeInvalid); a changed email or provider type is checked
// for uniqueness like CreateAccount does (CodeConflict).
func (s *Store) UpdateAccount(ctx context.Context, appID, id string, fn func(*unical.AccountRecord) error) (*unical.AccountRecord, error) {
	return s.UpdateAccountAndEnqueue(ctx, appID, id, func(a *unical.AccountRecord) ([]*outbox.Message, error) {
		return nil, fn(a)
	})
}

// UpdateAccountAndEnqueue is UpdateAccount that also queues the messages
// fn returns, in the same transaction: a refused message (CodeInvalid,
// CodeConflict) aborts the update too.
func (s *Store) UpdateAccountAndEnqueue(ctx context.Context, appID, id string, fn func(*unical.AccountRecord) ([]*outbox.Message, error)) (*unical.AccountRecord, error) {
	var out storedoc.Account
	err := s.update(ctx, "update account", func(tx *bbolt.Tx) error {
		old, err := getAccount(tx, appID, id)
		if err != nil {
			return err
		}
		a := old.ToAccountRecord()
		msgs, err := fn(a)
		if err != nil {
			return storedoc.FnError{Err: err}
		}
		queued, err := messageRecords(msgs)
		if err != nil {
			return err
		}
		if err := enqueue(tx, queued); err != nil {
			return err
		}
		if a.ID != old.ID || a.ApplicationID != old.ApplicationID {
			return unical.Errorf(unical.CodeInvalid, "An account update may not change its id or application.")
		}
		rec, err := storedoc.FromAccount(a)
		if err != nil {
			return err
		}
		if oldKey, newKey := accountEmailKey(old), accountEmailKey(rec); string(oldKey) != string(newKey) {
			byEmail := tx.Bucket(bucketAccountsByEmail)
			if byEmail.Get(newKey) != nil {
				return storedoc.Conflict("An account with email %q and provider type %s already exists.", rec.Email, rec.ProviderType)
			}
			if err := byEmail.Delete(oldKey); err != nil {
				return err
			}
			if err := byEmail.Put(newKey, []byte(rec.ID)); err != nil {
				return err
			}
		}
		return putJSONCopy(tx.Bucket(bucketAccounts), []byte(rec.ID), rec, &out)
	})
	if err != nil {
		return nil, err
	}
	return out.ToAccountRecord(), nil
}

// ListAccounts returns the application's accounts that pass filter, in id
// order, starting after filter.After. A Limit of zero or less means no
// limit. Search and Status are applied while walking the application's
// index, so a page costs at most the accounts it skips.
func (s *Store) ListAccounts(ctx context.Context, appID string, filter unical.AccountFilter) ([]*unical.AccountRecord, error) {
	search := strings.ToLower(filter.Search)
	var recs []*unical.AccountRecord
	err := s.view(ctx, "list accounts", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAccounts)
		return scanIDs(tx.Bucket(bucketAccountsByApp), keyOf(appID, ""), filter.After, func(id string) (bool, error) {
			data := b.Get([]byte(id))
			if data == nil {
				return true, nil
			}
			rec, err := s.accounts.decode([]byte(id), data)
			if err != nil {
				return false, err
			}
			if rec.ApplicationID != appID || filter.Status != "" && rec.Status != filter.Status ||
				filter.ProviderType != "" && rec.ProviderType != filter.ProviderType {
				return true, nil
			}
			if search != "" && !strings.Contains(strings.ToLower(rec.Email), search) &&
				!strings.Contains(strings.ToLower(rec.ExternalID), search) {
				return true, nil
			}
			recs = append(recs, rec.ToAccountRecord())
			return filter.Limit <= 0 || len(recs) < filter.Limit, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// DeleteAccount removes an account, its subscriptions and their pending
// messages, and its records, and queues msgs, in one transaction; CodeNotFound if the
// application has no such account.
func (s *Store) DeleteAccount(ctx context.Context, appID, id string, msgs ...*outbox.Message) error {
	queued, err := messageRecords(msgs)
	if err != nil {
		return err
	}
	return s.update(ctx, "delete account", func(tx *bbolt.Tx) error {
		rec, err := getAccount(tx, appID, id)
		if err != nil {
			return err
		}
		if err := enqueue(tx, queued); err != nil {
			return err
		}
		var subIDs []string
		err = scanIDs(tx.Bucket(bucketSubsByAccount), keyOf(appID, id, ""), "", func(subID string) (bool, error) {
			subIDs = append(subIDs, subID)
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, subID := range subIDs {
			if err := deleteSubscription(tx, appID, subID); err != nil {
				return err
			}
		}
		if err := deleteAccountRecords(tx, appID, id); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAccounts).Delete([]byte(id)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAccountsByEmail).Delete(accountEmailKey(rec)); err != nil {
			return err
		}
		s.accounts.drop(id)
		return tx.Bucket(bucketAccountsByApp).Delete(keyOf(appID, id))
	})
}
