package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
)

// accountRow is an account with the columns beside its document.
type accountRow struct {
	rec             *unical.AccountRecord
	data            []byte
	emailLower      string
	externalIDLower string
}

// accountToRow checks a and returns what is stored for it.
func accountToRow(a *unical.AccountRecord) (*accountRow, error) {
	rec, err := storedoc.FromAccount(a)
	if err != nil {
		return nil, err
	}
	data, err := encode(rec)
	if err != nil {
		return nil, err
	}
	// Lower-cased here, not by SQL's lower(), so that search and the email
	// uniqueness agree with Go's strings.ToLower whatever the database's
	// locale, as they do in the bolt store.
	return &accountRow{rec: a, data: data, emailLower: strings.ToLower(a.Email), externalIDLower: strings.ToLower(a.ExternalID)}, nil
}

func decodeAccount(data []byte) (*unical.AccountRecord, error) {
	var rec storedoc.Account
	if err := decode("account", data, &rec); err != nil {
		return nil, err
	}
	return rec.ToAccountRecord(), nil
}

const insertAccount = `INSERT INTO accounts (id, application_id, provider_type, email_lower, external_id_lower, status, data)
	VALUES ($1, $2, $3, $4, $5, $6, $7)`

// CreateAccount stores a new account and queues msgs, in one transaction;
// CodeConflict if the id is taken or the application already has an
// account with the same provider type and email (compared
// case-insensitively).
func (s *Store) CreateAccount(ctx context.Context, a *unical.AccountRecord, msgs ...*outbox.Message) error {
	row, err := accountToRow(a)
	if err != nil {
		return err
	}
	queued, err := checkMessages(msgs)
	if err != nil {
		return err
	}
	return s.changing(ctx, "create account", func(tx pgx.Tx) error {
		if err := enqueue(ctx, tx, queued); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, insertAccount, a.ID, a.ApplicationID, string(a.ProviderType), row.emailLower, row.externalIDLower, string(a.Status), row.data)
		return err
	})
}

// getAccount reads an application's account, locked for update when lock
// is set; another application's account is as missing as an unknown one.
func getAccount(ctx context.Context, q pgx.Tx, appID, id string, lock bool) (*unical.AccountRecord, error) {
	sql := "SELECT data FROM accounts WHERE id = $1 AND application_id = $2"
	if lock {
		sql += " FOR UPDATE"
	}
	var data []byte
	err := q.QueryRow(ctx, sql, id, appID).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storedoc.NotFound("Account", id)
	}
	if err != nil {
		return nil, err
	}
	return decodeAccount(data)
}

// GetAccount returns an account of an application; CodeNotFound if the
// application has no such account.
func (s *Store) GetAccount(ctx context.Context, appID, id string) (*unical.AccountRecord, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM accounts WHERE id = $1 AND application_id = $2", []any{id, appID}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storedoc.NotFound("Account", id)
	}
	if err != nil {
		return nil, translate("get account", err)
	}
	return s.accounts.decodeCached(id, data)
}

// FindAccount returns the application's account with that provider type
// and email, compared case-insensitively; CodeNotFound if there is none.
func (s *Store) FindAccount(ctx context.Context, appID string, providerType unical.ProviderType, email string) (*unical.AccountRecord, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM accounts WHERE application_id = $1 AND provider_type = $2 AND email_lower = $3",
		[]any{appID, string(providerType), strings.ToLower(email)}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, unical.Errorf(unical.CodeNotFound, "No %s account with email %q.", providerType, email)
	}
	if err != nil {
		return nil, translate("find account", err)
	}
	return decodeAccount(data)
}

// UpdateAccount reads an account, lets fn change it and writes it back, in
// one transaction that holds the account's row lock, so concurrent updates
// (from any process) never lose each other's changes. fn must be quick and
// must not call the Store; its error aborts the update and is returned as
// it is. fn may not change the id or the application (CodeInvalid); a
// changed email or provider type is checked for uniqueness (CodeConflict).
func (s *Store) UpdateAccount(ctx context.Context, appID, id string, fn func(*unical.AccountRecord) error) (*unical.AccountRecord, error) {
	return s.UpdateAccountAndEnqueue(ctx, appID, id, func(a *unical.AccountRecord) ([]*outbox.Message, error) {
		return nil, fn(a)
	})
}

// UpdateAccountAndEnqueue is UpdateAccount that also queues the messages
// fn returns, in the same transaction: a refused message (CodeInvalid,
// CodeConflict) aborts the update too.
func (s *Store) UpdateAccountAndEnqueue(ctx context.Context, appID, id string, fn func(*unical.AccountRecord) ([]*outbox.Message, error)) (*unical.AccountRecord, error) {
	var out *unical.AccountRecord
	err := s.changing(ctx, "update account", func(tx pgx.Tx) error {
		a, err := getAccount(ctx, tx, appID, id, true)
		if err != nil {
			return err
		}
		msgs, err := fn(a)
		if err != nil {
			return storedoc.FnError{Err: err}
		}
		queued, err := checkMessages(msgs)
		if err != nil {
			return err
		}
		if err := enqueue(ctx, tx, queued); err != nil {
			return err
		}
		if a.ID != id || a.ApplicationID != appID {
			return unical.Errorf(unical.CodeInvalid, "An account update may not change its id or application.")
		}
		row, err := accountToRow(a)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE accounts SET provider_type = $2, email_lower = $3, external_id_lower = $4, status = $5, data = $6
			WHERE id = $1`, id, string(a.ProviderType), row.emailLower, row.externalIDLower, string(a.Status), row.data)
		if err != nil {
			return err
		}
		// Decoded from what was stored, so that the record handed back
		// shares nothing with the one fn saw.
		out, err = decodeAccount(row.data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListAccounts returns the application's accounts that pass filter, in id
// order, starting after filter.After. A Limit of zero or less means no
// limit.
func (s *Store) ListAccounts(ctx context.Context, appID string, filter unical.AccountFilter) ([]*unical.AccountRecord, error) {
	type row struct {
		id   string
		data []byte
	}
	rows, err := queryAll(ctx, s, func(r pgx.CollectableRow) (row, error) {
		var out row
		return out, r.Scan(&out.id, &out.data)
	}, `SELECT id, data FROM accounts
		WHERE application_id = $1 AND id > $2
		AND ($3 = '' OR status = $3)
		AND ($4 = '' OR strpos(email_lower, $4) > 0 OR strpos(external_id_lower, $4) > 0)
		AND ($6 = '' OR provider_type = $6)
		ORDER BY id LIMIT $5`,
		appID, filter.After, string(filter.Status), strings.ToLower(filter.Search), limitArg(filter.Limit), string(filter.ProviderType))
	if err != nil {
		return nil, translate("list accounts", err)
	}
	recs := make([]*unical.AccountRecord, len(rows))
	for i, r := range rows {
		if recs[i], err = s.accounts.decodeCached(r.id, r.data); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// DeleteAccount removes an account, its subscriptions and their pending
// messages, and its records, and queues msgs, in one transaction; CodeNotFound if the
// application has no such account.
func (s *Store) DeleteAccount(ctx context.Context, appID, id string, msgs ...*outbox.Message) error {
	queued, err := checkMessages(msgs)
	if err != nil {
		return err
	}
	return s.changing(ctx, "delete account", func(tx pgx.Tx) error {
		if _, err := getAccount(ctx, tx, appID, id, true); err != nil {
			return err
		}
		if err := enqueue(ctx, tx, queued); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM outbox WHERE status = 'pending' AND subscription_id <> '' AND subscription_id IN
			(SELECT id FROM subscriptions WHERE application_id = $1 AND account_id = $2)`, appID, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM subscriptions WHERE application_id = $1 AND account_id = $2", appID, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM records WHERE application_id = $1 AND account_id = $2", appID, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM accounts WHERE id = $1", id)
		return err
	})
}
