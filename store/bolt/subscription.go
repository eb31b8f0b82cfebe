package bolt

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// getSubscription reads an application's subscription; another
// application's subscription is as missing as an unknown one.
func getSubscription(tx *bbolt.Tx, appID, id string) (*storedoc.Subscription, error) {
	var rec storedoc.Subscription
	ok, err := getJSON(tx.Bucket(bucketSubs), []byte(id), &rec)
	if err != nil {
		return nil, err
	}
	if !ok || rec.ApplicationID != appID {
		return nil, storedoc.NotFound("Subscription", id)
	}
	return &rec, nil
}

// CreateSubscription stores a subscription; CodeNotFound if its account
// does not exist in the application, CodeConflict if the id is taken.
func (s *Store) CreateSubscription(ctx context.Context, sub *unical.SubscriptionRecord) error {
	rec, err := storedoc.FromSubscription(sub)
	if err != nil {
		return err
	}
	return s.update(ctx, "create subscription", func(tx *bbolt.Tx) error {
		if _, err := getAccount(tx, rec.ApplicationID, rec.EndUserAccountID); err != nil {
			return err
		}
		b := tx.Bucket(bucketSubs)
		if b.Get([]byte(rec.ID)) != nil {
			return storedoc.Conflict("Subscription %q already exists.", rec.ID)
		}
		if err := putJSON(b, []byte(rec.ID), rec); err != nil {
			return err
		}
		if err := tx.Bucket(bucketSubsByApp).Put(keyOf(rec.ApplicationID, rec.ID), nil); err != nil {
			return err
		}
		if err := tx.Bucket(bucketSubsByNextCheck).Put(nextCheckKey(rec), nil); err != nil {
			return err
		}
		return tx.Bucket(bucketSubsByAccount).Put(keyOf(rec.ApplicationID, rec.EndUserAccountID, rec.ID), nil)
	})
}

// GetSubscription returns a subscription of an application; CodeNotFound
// if the application has no such subscription.
func (s *Store) GetSubscription(ctx context.Context, appID, id string) (*unical.SubscriptionRecord, error) {
	var rec *storedoc.Subscription
	err := s.view(ctx, "get subscription", func(tx *bbolt.Tx) (err error) {
		rec, err = getSubscription(tx, appID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.ToSubscriptionRecord(), nil
}

// UpdateSubscription reads a subscription, lets fn change it and writes it
// back in one write transaction; as with UpdateAccount, fn must be quick,
// must not call the Store, and its error is returned as it is. fn may not
// change the id, the application or the account (CodeInvalid).
func (s *Store) UpdateSubscription(ctx context.Context, appID, id string, fn func(*unical.SubscriptionRecord) error) (*unical.SubscriptionRecord, error) {
	var out storedoc.Subscription
	err := s.update(ctx, "update subscription", func(tx *bbolt.Tx) error {
		old, err := getSubscription(tx, appID, id)
		if err != nil {
			return err
		}
		sub := old.ToSubscriptionRecord()
		if err := fn(sub); err != nil {
			return storedoc.FnError{Err: err}
		}
		if sub.ID != old.ID || sub.ApplicationID != old.ApplicationID || sub.EndUserAccountID != old.EndUserAccountID {
			return unical.Errorf(unical.CodeInvalid, "A subscription update may not change its id, application or account.")
		}
		rec, err := storedoc.FromSubscription(sub)
		if err != nil {
			return err
		}
		if err := reindexNextCheck(tx, old, rec); err != nil {
			return err
		}
		return putJSONCopy(tx.Bucket(bucketSubs), []byte(rec.ID), rec, &out)
	})
	if err != nil {
		return nil, err
	}
	return out.ToSubscriptionRecord(), nil
}

// ListSubscriptions returns an account's subscriptions in id order, after
// the given id, at most limit of them (no limit when limit is zero or
// less); accountID "" lists the whole application's. Another
// application's account has no subscriptions here.
func (s *Store) ListSubscriptions(ctx context.Context, appID, accountID, after string, limit int) ([]*unical.SubscriptionRecord, error) {
	index, prefix := bucketSubsByApp, keyOf(appID, "")
	if accountID != "" {
		index, prefix = bucketSubsByAccount, keyOf(appID, accountID, "")
	}
	var recs []*unical.SubscriptionRecord
	err := s.view(ctx, "list subscriptions", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSubs)
		return scanIDs(tx.Bucket(index), prefix, after, func(id string) (bool, error) {
			var rec storedoc.Subscription
			if _, err := getJSON(b, []byte(id), &rec); err != nil {
				return false, err
			}
			if rec.ApplicationID != appID {
				return true, nil // the prefix already scopes to appID; this is defence in depth
			}
			recs = append(recs, rec.ToSubscriptionRecord())
			return limit <= 0 || len(recs) < limit, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// ListAllSubscriptions returns subscriptions of every application in id
// order, after the given id, at most limit of them (no limit when limit is
// zero or less).
func (s *Store) ListAllSubscriptions(ctx context.Context, after string, limit int) ([]*unical.SubscriptionRecord, error) {
	var recs []*unical.SubscriptionRecord
	err := s.view(ctx, "list all subscriptions", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSubs)
		return scanIDs(b, nil, after, func(id string) (bool, error) {
			var rec storedoc.Subscription
			if _, err := getJSON(b, []byte(id), &rec); err != nil {
				return false, err
			}
			recs = append(recs, rec.ToSubscriptionRecord())
			return limit <= 0 || len(recs) < limit, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// DeleteSubscription removes a subscription and its pending messages, claimed
// or not; delivered and failed ones stay as the delivery log. CodeNotFound if
// the application has no such subscription.
func (s *Store) DeleteSubscription(ctx context.Context, appID, id string) error {
	return s.update(ctx, "delete subscription", func(tx *bbolt.Tx) error {
		return deleteSubscription(tx, appID, id)
	})
}

func deleteSubscription(tx *bbolt.Tx, appID, id string) error {
	rec, err := getSubscription(tx, appID, id)
	if err != nil {
		return err
	}
	var msgIDs []string
	err = scanIDs(tx.Bucket(bucketOutboxBySub), keyOf(id, ""), "", func(msgID string) (bool, error) {
		msgIDs = append(msgIDs, msgID)
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, msgID := range msgIDs {
		if err := deleteMessage(tx, msgID); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketSubs).Delete([]byte(id)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketSubsByApp).Delete(keyOf(appID, id)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketSubsByNextCheck).Delete(nextCheckKey(rec)); err != nil {
		return err
	}
	return tx.Bucket(bucketSubsByAccount).Delete(keyOf(appID, rec.EndUserAccountID, id))
}

// nextCheckKey is the subscription's subscriptions.byNextCheck key: when
// it is next due, then its id.
func nextCheckKey(rec *storedoc.Subscription) []byte {
	return append(timeKey(rec.NextCheckAt), rec.ID...)
}

// reindexNextCheck moves a subscription's subscriptions.byNextCheck entry
// when an update changes its NextCheckAt.
func reindexNextCheck(tx *bbolt.Tx, old, rec *storedoc.Subscription) error {
	if old.NextCheckAt.Equal(rec.NextCheckAt) {
		return nil
	}
	b := tx.Bucket(bucketSubsByNextCheck)
	if err := b.Delete(nextCheckKey(old)); err != nil {
		return err
	}
	return b.Put(nextCheckKey(rec), nil)
}

// ClaimDueSubscriptions claims up to max subscriptions due at now and moves
// each one's NextCheckAt on, as [unical.SubscriptionStore] says; a zero
// NextCheckAt moves to a random time in (now, now+interval]. It walks
// subscriptions.byNextCheck from the earliest and stops at the first
// subscription due after now, so it costs the claims it makes. An idle
// claim (nothing due) is a read transaction only, so that replicas asking
// often cost no writes.
func (s *Store) ClaimDueSubscriptions(ctx context.Context, now time.Time, interval time.Duration, max int) ([]*unical.SubscriptionRecord, error) {
	if interval <= 0 {
		return nil, unical.Errorf(unical.CodeInvalid, "A subscription claim needs a positive interval.")
	}
	if max <= 0 {
		return nil, nil
	}
	nowKey := timeKey(now)
	due := func(tx *bbolt.Tx) []string {
		var ids []string
		c := tx.Bucket(bucketSubsByNextCheck).Cursor()
		for k, _ := c.First(); k != nil && len(ids) < max; k, _ = c.Next() {
			if bytes.Compare(k[:timeKeyLen], nowKey) > 0 {
				break // due after now, and so is everything after it
			}
			ids = append(ids, string(k[timeKeyLen:]))
		}
		return ids
	}
	var claimed []*unical.SubscriptionRecord
	err := s.claimDue(ctx, "claim subscriptions", due, func(tx *bbolt.Tx, id string) error {
		var rec storedoc.Subscription
		ok, err := getJSON(tx.Bucket(bucketSubs), []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok {
			return storedoc.Internal(fmt.Errorf("bolt: subscriptions.byNextCheck names missing subscription %q", id))
		}
		old := rec
		rec.NextCheckAt = nextCheck(rec.NextCheckAt, now, interval)
		if err := reindexNextCheck(tx, &old, &rec); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bucketSubs), []byte(id), &rec); err != nil {
			return err
		}
		claimed = append(claimed, rec.ToSubscriptionRecord())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// nextCheck is the first time after now that is a whole number of
// intervals after due; for a zero due, a random time in (now,
// now+interval], so that subscriptions never checked before spread over
// the interval.
func nextCheck(due, now time.Time, interval time.Duration) time.Time {
	if due.IsZero() {
		return storedoc.UTC(now.Add(1 + rand.N(interval)))
	}
	if due.After(now) {
		return due
	}
	return storedoc.UTC(due.Add(interval * (now.Sub(due)/interval + 1)))
}
