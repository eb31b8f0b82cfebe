package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
)

// subscriptionDoc checks sub and returns its stored JSON.
func subscriptionDoc(sub *unical.SubscriptionRecord) ([]byte, error) {
	rec, err := storedoc.FromSubscription(sub)
	if err != nil {
		return nil, err
	}
	return encode(rec)
}

func decodeSubscription(data []byte) (*unical.SubscriptionRecord, error) {
	var rec storedoc.Subscription
	if err := decode("subscription", data, &rec); err != nil {
		return nil, err
	}
	return rec.ToSubscriptionRecord(), nil
}

// CreateSubscription stores a subscription; CodeNotFound if its account
// does not exist in the application, CodeConflict if the id is taken.
func (s *Store) CreateSubscription(ctx context.Context, sub *unical.SubscriptionRecord) error {
	data, err := subscriptionDoc(sub)
	if err != nil {
		return err
	}
	return s.tx(ctx, "create subscription", func(tx pgx.Tx) error {
		// FOR SHARE keeps the account from being deleted before the
		// subscription is in, which would leave it without an account.
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM accounts WHERE id = $1 AND application_id = $2 FOR SHARE",
			sub.EndUserAccountID, sub.ApplicationID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return storedoc.NotFound("Account", sub.EndUserAccountID)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO subscriptions (id, application_id, account_id, next_check_at, data) VALUES ($1, $2, $3, $4, $5)",
			sub.ID, sub.ApplicationID, sub.EndUserAccountID, sub.NextCheckAt, data)
		return err
	})
}

// GetSubscription returns a subscription of an application; CodeNotFound
// if the application has no such subscription.
func (s *Store) GetSubscription(ctx context.Context, appID, id string) (*unical.SubscriptionRecord, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM subscriptions WHERE id = $1 AND application_id = $2", []any{id, appID}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storedoc.NotFound("Subscription", id)
	}
	if err != nil {
		return nil, translate("get subscription", err)
	}
	return decodeSubscription(data)
}

// UpdateSubscription reads a subscription, lets fn change it and writes it
// back in one transaction holding its row lock; as with UpdateAccount, fn
// must be quick, must not call the Store, and its error is returned as it
// is. fn may not change the id, the application or the account
// (CodeInvalid).
func (s *Store) UpdateSubscription(ctx context.Context, appID, id string, fn func(*unical.SubscriptionRecord) error) (*unical.SubscriptionRecord, error) {
	var out *unical.SubscriptionRecord
	err := s.tx(ctx, "update subscription", func(tx pgx.Tx) error {
		var data []byte
		err := tx.QueryRow(ctx, "SELECT data FROM subscriptions WHERE id = $1 AND application_id = $2 FOR UPDATE", id, appID).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return storedoc.NotFound("Subscription", id)
		}
		if err != nil {
			return err
		}
		sub, err := decodeSubscription(data)
		if err != nil {
			return err
		}
		accountID := sub.EndUserAccountID
		if err := fn(sub); err != nil {
			return storedoc.FnError{Err: err}
		}
		if sub.ID != id || sub.ApplicationID != appID || sub.EndUserAccountID != accountID {
			return unical.Errorf(unical.CodeInvalid, "A subscription update may not change its id, application or account.")
		}
		if data, err = subscriptionDoc(sub); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE subscriptions SET next_check_at = $2, data = $3 WHERE id = $1", id, sub.NextCheckAt, data); err != nil {
			return err
		}
		out, err = decodeSubscription(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListSubscriptions returns an account's subscriptions in id order, after
// the given id, at most limit of them (no limit when limit is zero or
// less); accountID "" lists the whole application's.
func (s *Store) ListSubscriptions(ctx context.Context, appID, accountID, after string, limit int) ([]*unical.SubscriptionRecord, error) {
	return s.listSubscriptions(ctx, "list subscriptions", `SELECT data FROM subscriptions
		WHERE application_id = $1 AND ($2 = '' OR account_id = $2) AND id > $3 ORDER BY id LIMIT $4`,
		appID, accountID, after, limitArg(limit))
}

// ListAllSubscriptions returns subscriptions of every application in id
// order, after the given id, at most limit of them (no limit when limit is
// zero or less).
func (s *Store) ListAllSubscriptions(ctx context.Context, after string, limit int) ([]*unical.SubscriptionRecord, error) {
	return s.listSubscriptions(ctx, "list all subscriptions", "SELECT data FROM subscriptions WHERE id > $1 ORDER BY id LIMIT $2",
		after, limitArg(limit))
}

func (s *Store) listSubscriptions(ctx context.Context, op, sql string, args ...any) ([]*unical.SubscriptionRecord, error) {
	docs, err := queryAll(ctx, s, pgx.RowTo[[]byte], sql, args...)
	if err != nil {
		return nil, translate(op, err)
	}
	recs := make([]*unical.SubscriptionRecord, len(docs))
	for i, data := range docs {
		if recs[i], err = decodeSubscription(data); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// DeleteSubscription removes a subscription and its pending messages,
// claimed or not; delivered and failed ones stay as the delivery log.
// CodeNotFound if the application has no such subscription.
func (s *Store) DeleteSubscription(ctx context.Context, appID, id string) error {
	return s.tx(ctx, "delete subscription", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM subscriptions WHERE id = $1 AND application_id = $2", id, appID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return storedoc.NotFound("Subscription", id)
		}
		_, err = tx.Exec(ctx, "DELETE FROM outbox WHERE status = 'pending' AND subscription_id = $1", id)
		return err
	})
}

// ClaimDueSubscriptions claims up to max subscriptions whose NextCheckAt is
// at or before now, earliest first, and moves each one's NextCheckAt on,
// as [unical.SubscriptionStore] says; a zero NextCheckAt moves to a random
// time in (now, now+interval]. FOR UPDATE SKIP LOCKED passes over
// subscriptions another process is claiming or updating at that moment, so
// replicas claiming together never get the same one, and one that was
// skipped is still due for the next claim.
func (s *Store) ClaimDueSubscriptions(ctx context.Context, now time.Time, interval time.Duration, max int) ([]*unical.SubscriptionRecord, error) {
	if interval <= 0 {
		return nil, unical.Errorf(unical.CodeInvalid, "A subscription claim needs a positive interval.")
	}
	if max <= 0 {
		return nil, nil
	}
	var claimed []*unical.SubscriptionRecord
	err := s.tx(ctx, "claim subscriptions", func(tx pgx.Tx) error {
		claimed = nil
		rows, err := tx.Query(ctx, `SELECT data FROM subscriptions WHERE next_check_at <= $1
			ORDER BY next_check_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`, now, max)
		if err != nil {
			return err
		}
		docs, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil || len(docs) == 0 {
			return err
		}
		var b pgx.Batch
		for _, data := range docs {
			sub, err := decodeSubscription(data)
			if err != nil {
				return err
			}
			sub.NextCheckAt = nextCheck(sub.NextCheckAt, now, interval)
			if data, err = subscriptionDoc(sub); err != nil {
				return err
			}
			b.Queue("UPDATE subscriptions SET next_check_at = $2, data = $3 WHERE id = $1", sub.ID, sub.NextCheckAt, data)
			if sub, err = decodeSubscription(data); err != nil {
				return err
			}
			claimed = append(claimed, sub)
		}
		return tx.SendBatch(ctx, &b).Close()
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// nextCheck is the first time after now that is a whole number of
// intervals after due; for a zero due, a random time in (now,
// now+interval], so that subscriptions never checked before spread over
// the interval. Times are whole microseconds, as PostgreSQL keeps them.
func nextCheck(due, now time.Time, interval time.Duration) time.Time {
	if due.IsZero() {
		return storedoc.UTC(now.Add(1 + rand.N(interval))).Truncate(time.Microsecond).Add(time.Microsecond)
	}
	if due.After(now) {
		return due
	}
	return storedoc.UTC(due.Add(interval * (now.Sub(due)/interval + 1)))
}
