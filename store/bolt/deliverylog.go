package bolt

import (
	"context"
	"errors"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// attempt is the stored form of [outbox.Attempt].
type attempt struct {
	ID             string        `json:"id"`
	ApplicationID  string        `json:"applicationId"`
	MessageID      string        `json:"messageId"`
	SubscriptionID string        `json:"subscriptionId"`
	EventType      string        `json:"eventType"`
	Attempt        int           `json:"attempt"`
	At             time.Time     `json:"at"`
	StatusCode     int           `json:"statusCode"`
	Latency        time.Duration `json:"latency"`
	Error          string        `json:"error"`
	ExpiresAt      time.Time     `json:"expiresAt"`
}

func (rec *attempt) toDeliveryAttempt() *outbox.Attempt {
	return &outbox.Attempt{
		ID: rec.ID, ApplicationID: rec.ApplicationID, MessageID: rec.MessageID, SubscriptionID: rec.SubscriptionID,
		EventType: rec.EventType, Attempt: rec.Attempt, At: rec.At, StatusCode: rec.StatusCode,
		Latency: rec.Latency, Error: rec.Error, ExpiresAt: rec.ExpiresAt,
	}
}

// pruneBatch bounds the expired attempts one RecordAttempt removes, so
// that a backlog of expiries never makes one delivery slow.
const pruneBatch = 32

// RecordDeliveries writes back claimed messages as UpdateMessage does and
// appends their attempts to the delivery log, all in one transaction: the
// engine's workers hand their results to one writer, so deliveries share
// fsyncs instead of paying one each. It also removes up to pruneBatch
// attempts that expired by the newest attempt's time.
func (s *Store) RecordDeliveries(ctx context.Context, results []outbox.Result) ([]error, error) {
	errs, newest := storedoc.CheckDeliveries(results)
	recs := make([]*attempt, len(results))
	for i, r := range results {
		if a := r.Attempt; errs[i] == nil && a != nil {
			recs[i] = &attempt{
				ID: a.ID, ApplicationID: a.ApplicationID, MessageID: a.MessageID, SubscriptionID: a.SubscriptionID,
				EventType: a.EventType, Attempt: a.Attempt, At: storedoc.UTC(a.At), StatusCode: a.StatusCode,
				Latency: a.Latency, Error: a.Error, ExpiresAt: storedoc.UTC(a.ExpiresAt),
			}
		}
	}
	// errs is filled inside the transaction; bbolt runs fn once per
	// Update, so it is not reset.
	err := s.update(ctx, "record deliveries", func(tx *bbolt.Tx) error {
		for i, r := range results {
			if errs[i] != nil {
				continue
			}
			if rec := recs[i]; rec != nil && tx.Bucket(bucketDeliveries).Get([]byte(rec.ID)) != nil {
				errs[i] = storedoc.Conflict("Attempt %q already exists.", rec.ID)
				continue
			}
			if err := updateClaimed(tx, r.Message); err != nil {
				var ue *unical.Error
				if !errors.As(err, &ue) {
					return err // storage failure: the whole write fails
				}
				errs[i] = err
				continue
			}
			if rec := recs[i]; rec != nil {
				if err := putAttempt(tx, rec); err != nil {
					return err
				}
			}
		}
		if newest.IsZero() {
			return nil
		}
		_, err := pruneAttempts(tx, newest, pruneBatch)
		return err
	})
	if err != nil {
		return nil, err
	}
	return errs, nil
}

// putAttempt stores an attempt and its index entries.
func putAttempt(tx *bbolt.Tx, rec *attempt) error {
	if err := putJSON(tx.Bucket(bucketDeliveries), []byte(rec.ID), rec); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDeliveriesBySub).Put(keyOf(rec.ApplicationID, rec.SubscriptionID, rec.ID), nil); err != nil {
		return err
	}
	return tx.Bucket(bucketDeliveriesByExp).Put(append(timeKey(rec.ExpiresAt), rec.ID...), nil)
}

// pruneAttempts deletes up to max attempts expired at now (no bound when
// max is negative) and returns how many.
func pruneAttempts(tx *bbolt.Tx, now time.Time, max int) (int, error) {
	keys := expiredKeys(tx.Bucket(bucketDeliveriesByExp), nil, timeKey(now), max)
	b := tx.Bucket(bucketDeliveries)
	for _, k := range keys {
		id := k[timeKeyLen:]
		var rec attempt
		ok, err := getJSON(b, id, &rec)
		if err != nil {
			return 0, err
		}
		if ok {
			if err := tx.Bucket(bucketDeliveriesBySub).Delete(keyOf(rec.ApplicationID, rec.SubscriptionID, rec.ID)); err != nil {
				return 0, err
			}
			if err := b.Delete(id); err != nil {
				return 0, err
			}
		}
		if err := tx.Bucket(bucketDeliveriesByExp).Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// ListAttempts returns an application's attempts for one subscription
// ("" for its own endpoint) that have not expired at now, in id order after
// the given id, at most limit of them (no limit when limit is zero or
// less).
func (s *Store) ListAttempts(ctx context.Context, appID, subscriptionID string, now time.Time, after string, limit int) ([]*outbox.Attempt, error) {
	var out []*outbox.Attempt
	err := s.view(ctx, "list attempts", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketDeliveries)
		return scanIDs(tx.Bucket(bucketDeliveriesBySub), keyOf(appID, subscriptionID, ""), after, func(id string) (bool, error) {
			var rec attempt
			ok, err := getJSON(b, []byte(id), &rec)
			if err != nil || !ok || rec.ApplicationID != appID || !rec.ExpiresAt.After(now) {
				return err == nil, err
			}
			out = append(out, rec.toDeliveryAttempt())
			return limit <= 0 || len(out) < limit, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RetryMessage puts a failed message back in the queue, due at now, with
// its attempts reset and its last error kept until the next attempt; a
// pending one not leased at now becomes due at now, its attempts kept.
func (s *Store) RetryMessage(ctx context.Context, appID, id string, now time.Time) (*outbox.Message, error) {
	var out *outbox.Message
	err := s.update(ctx, "retry message", func(tx *bbolt.Tx) error {
		var rec message
		ok, err := getJSON(tx.Bucket(bucketOutbox), []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok || rec.ApplicationID != appID {
			return storedoc.NotFound("Message", id)
		}
		if rec.SubscriptionID != "" && tx.Bucket(bucketSubs).Get([]byte(rec.SubscriptionID)) == nil {
			return storedoc.NotFound("Message", id) // its subscription was deleted
		}
		switch {
		case rec.Status == outbox.Pending && (rec.LeaseOwner != "" && rec.LeaseExpiry.After(now) || !rec.NextAttemptAt.After(now)):
			// Being sent now, or due already: nothing to bring forward.
			out = rec.toOutboxMessage()
			return nil
		case rec.Status != outbox.Failed && rec.Status != outbox.Pending:
			return storedoc.Conflict("Message %q is %s; only failed and pending messages can be sent again.", id, rec.Status)
		}
		if err := unindexMessage(tx, &rec); err != nil {
			return err
		}
		if rec.Status == outbox.Failed {
			rec.Status, rec.Attempts = outbox.Pending, 0
		}
		rec.NextAttemptAt = storedoc.UTC(now)
		rec.LeaseOwner, rec.LeaseExpiry = "", time.Time{}
		if err := putMessage(tx, &rec); err != nil {
			return err
		}
		out = rec.toOutboxMessage()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
