package bolt

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// message is the stored form of [outbox.Message].
type message struct {
	ID             string        `json:"id"`
	ApplicationID  string        `json:"applicationId"`
	SubscriptionID string        `json:"subscriptionId"`
	EventType      string        `json:"eventType"`
	Payload        []byte        `json:"payload"`
	CreatedAt      time.Time     `json:"createdAt"`
	Status         outbox.Status `json:"status"`
	Attempts       int           `json:"attempts"`
	NextAttemptAt  time.Time     `json:"nextAttemptAt"`
	LastError      string        `json:"lastError"`
	LeaseOwner     string        `json:"leaseOwner"`
	LeaseExpiry    time.Time     `json:"leaseExpiry"`
}

func (rec *message) toOutboxMessage() *outbox.Message {
	return &outbox.Message{
		ID: rec.ID, ApplicationID: rec.ApplicationID, SubscriptionID: rec.SubscriptionID,
		EventType: rec.EventType, Payload: rec.Payload, CreatedAt: rec.CreatedAt, Status: rec.Status,
		Attempts: rec.Attempts, NextAttemptAt: rec.NextAttemptAt, LastError: rec.LastError,
		LeaseOwner: rec.LeaseOwner, LeaseExpiry: rec.LeaseExpiry,
	}
}

// pendingKey is the message's outbox.pending key: due time, then id.
func (rec *message) pendingKey() []byte {
	return append(timeKey(rec.NextAttemptAt), rec.ID...)
}

// pendingValue is the message's outbox.pending value: the lease expiry
// when it is claimed, empty when it is free. ClaimMessages reads it to
// skip claimed messages without decoding them.
func (rec *message) pendingValue() []byte {
	if rec.LeaseOwner == "" {
		return []byte{}
	}
	return timeKey(rec.LeaseExpiry)
}

// finishedKey is the outbox.finished key of a delivered or failed
// message: its status, then the due time of its last attempt, then its id,
// so that the sweep walks each status oldest first.
func (rec *message) finishedKey() []byte {
	return append(keyOf(string(rec.Status), ""), append(timeKey(rec.NextAttemptAt), rec.ID...)...)
}

// putMessage stores rec and indexes it for its status.
func putMessage(tx *bbolt.Tx, rec *message) error {
	if err := putJSON(tx.Bucket(bucketOutbox), []byte(rec.ID), rec); err != nil {
		return err
	}
	return indexMessage(tx, rec)
}

// indexMessage adds rec's index entries: the pending indexes while it is
// pending, outbox.finished once it is delivered or failed.
func indexMessage(tx *bbolt.Tx, rec *message) error {
	if rec.Status != outbox.Pending {
		return tx.Bucket(bucketOutboxFinished).Put(rec.finishedKey(), nil)
	}
	if err := tx.Bucket(bucketOutboxPending).Put(rec.pendingKey(), rec.pendingValue()); err != nil {
		return err
	}
	if rec.SubscriptionID == "" {
		return nil
	}
	return tx.Bucket(bucketOutboxBySub).Put(keyOf(rec.SubscriptionID, rec.ID), nil)
}

// unindexMessage removes the index entries indexMessage added for rec.
func unindexMessage(tx *bbolt.Tx, rec *message) error {
	if rec.Status != outbox.Pending {
		return tx.Bucket(bucketOutboxFinished).Delete(rec.finishedKey())
	}
	if err := tx.Bucket(bucketOutboxPending).Delete(rec.pendingKey()); err != nil {
		return err
	}
	if rec.SubscriptionID == "" {
		return nil
	}
	return tx.Bucket(bucketOutboxBySub).Delete(keyOf(rec.SubscriptionID, rec.ID))
}

func deleteMessage(tx *bbolt.Tx, id string) error {
	var rec message
	ok, err := getJSON(tx.Bucket(bucketOutbox), []byte(id), &rec)
	if err != nil || !ok {
		return err
	}
	if err := unindexMessage(tx, &rec); err != nil {
		return err
	}
	return tx.Bucket(bucketOutbox).Delete([]byte(id))
}

// EnqueueMessages stores messages atomically: all of them or, on an error,
// none. A message must be pending (an empty Status means pending);
// CodeConflict if an id is taken.
func (s *Store) EnqueueMessages(ctx context.Context, msgs []*outbox.Message) error {
	recs, err := messageRecords(msgs)
	if err != nil {
		return err
	}
	return s.update(ctx, "enqueue messages", func(tx *bbolt.Tx) error {
		return enqueue(tx, recs)
	})
}

// EnqueueCoalesced stores msg unless its subscription has a pending,
// untouched message of the same event type; outbox.bySubscription holds
// the subscription's pending messages, so the check reads only those. The
// check and the write share one write transaction.
func (s *Store) EnqueueCoalesced(ctx context.Context, msg *outbox.Message) (bool, error) {
	recs, err := messageRecords([]*outbox.Message{msg})
	if err != nil {
		return false, err
	}
	queued := false
	err = s.update(ctx, "enqueue a coalesced message", func(tx *bbolt.Tx) error {
		prefix := keyOf(msg.SubscriptionID, "")
		c := tx.Bucket(bucketOutboxBySub).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var rec message
			ok, err := getJSON(tx.Bucket(bucketOutbox), k[len(prefix):], &rec)
			if err != nil {
				return err
			}
			if ok && rec.Status == outbox.Pending && rec.Attempts == 0 && rec.LeaseOwner == "" && rec.EventType == msg.EventType {
				return nil
			}
		}
		queued = true
		return enqueue(tx, recs)
	})
	return queued && err == nil, err
}

// messageRecords checks messages to queue and returns their stored form.
func messageRecords(msgs []*outbox.Message) ([]*message, error) {
	recs := make([]*message, len(msgs))
	for i, m := range msgs {
		if err := storedoc.CheckID("Message id", m.ID); err != nil {
			return nil, err
		}
		if err := storedoc.CheckID("Application id", m.ApplicationID); err != nil {
			return nil, err
		}
		status := m.Status
		switch status {
		case "":
			status = outbox.Pending
		case outbox.Pending:
		default:
			return nil, unical.Errorf(unical.CodeInvalid, "Message %q is %s; only pending messages can be queued.", m.ID, status)
		}
		recs[i] = &message{
			ID: m.ID, ApplicationID: m.ApplicationID, SubscriptionID: m.SubscriptionID,
			EventType: m.EventType, Payload: m.Payload, CreatedAt: storedoc.UTC(m.CreatedAt), Status: status,
			Attempts: m.Attempts, NextAttemptAt: storedoc.UTC(m.NextAttemptAt), LastError: m.LastError,
			LeaseOwner: m.LeaseOwner, LeaseExpiry: storedoc.UTC(m.LeaseExpiry),
		}
	}
	return recs, nil
}

// enqueue stores checked messages inside a write transaction; CodeConflict
// if an id is taken, which aborts the transaction.
func enqueue(tx *bbolt.Tx, recs []*message) error {
	b := tx.Bucket(bucketOutbox)
	for _, rec := range recs {
		if b.Get([]byte(rec.ID)) != nil {
			return storedoc.Conflict("Message %q already exists.", rec.ID)
		}
		if err := putMessage(tx, rec); err != nil {
			return err
		}
	}
	return nil
}

// ClaimMessages leases up to max pending messages due at now whose lease is
// free or expired (a lease that ends at now has expired), oldest due first,
// to owner until now+lease. It walks outbox.pending in due order and stops
// at the first message due after now, so its cost is the claims it makes
// plus the still-leased messages it steps over, never the delivered
// history. Messages of every application are claimed. CodeInvalid for an
// empty owner or a lease that is not positive.
func (s *Store) ClaimMessages(ctx context.Context, owner string, now time.Time, lease time.Duration, max int) ([]*outbox.Message, error) {
	if owner == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "A claim needs an owner.")
	}
	if lease <= 0 {
		return nil, unical.Errorf(unical.CodeInvalid, "A claim needs a positive lease.")
	}
	if max <= 0 {
		return nil, nil
	}
	expiry := storedoc.UTC(now.Add(lease))
	nowKey := timeKey(now)
	due := func(tx *bbolt.Tx) []string {
		var ids []string
		c := tx.Bucket(bucketOutboxPending).Cursor()
		for k, v := c.First(); k != nil && len(ids) < max; k, v = c.Next() {
			if bytes.Compare(k[:timeKeyLen], nowKey) > 0 {
				break // due after now, and so is everything after it
			}
			if len(v) > 0 && bytes.Compare(v, nowKey) > 0 {
				continue // leased to someone until after now
			}
			ids = append(ids, string(k[timeKeyLen:]))
		}
		return ids
	}
	var claimed []*outbox.Message
	err := s.claimDue(ctx, "claim messages", due, func(tx *bbolt.Tx, id string) error {
		var rec message
		ok, err := getJSON(tx.Bucket(bucketOutbox), []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok {
			return storedoc.Internal(fmt.Errorf("bolt: outbox.pending names missing message %q", id))
		}
		rec.LeaseOwner, rec.LeaseExpiry = owner, expiry
		if err := putMessage(tx, &rec); err != nil {
			return err
		}
		claimed = append(claimed, rec.toOutboxMessage())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// UpdateMessage writes back a claimed message's Status, Attempts,
// NextAttemptAt and LastError, and releases the lease; the other fields
// cannot change. msg must carry the lease as ClaimMessages returned it: its
// LeaseOwner and LeaseExpiry together name one claim, so a worker whose
// lease expired and was claimed again (even by the same owner) gets
// CodeConflict, while one whose lease expired unclaimed may still finish.
// CodeNotFound if the message is not the application's (or was deleted with
// its subscription), CodeInvalid for an unknown status.
func (s *Store) UpdateMessage(ctx context.Context, msg *outbox.Message) error {
	if err := storedoc.CheckStatus(msg.Status); err != nil {
		return err
	}
	return s.update(ctx, "update message", func(tx *bbolt.Tx) error {
		return updateClaimed(tx, msg)
	})
}

// updateClaimed is UpdateMessage inside a write transaction.
func updateClaimed(tx *bbolt.Tx, msg *outbox.Message) error {
	var rec message
	ok, err := getJSON(tx.Bucket(bucketOutbox), []byte(msg.ID), &rec)
	if err != nil {
		return err
	}
	if !ok || rec.ApplicationID != msg.ApplicationID {
		return storedoc.NotFound("Message", msg.ID)
	}
	if rec.Status != outbox.Pending || rec.LeaseOwner == "" ||
		rec.LeaseOwner != msg.LeaseOwner || !rec.LeaseExpiry.Equal(msg.LeaseExpiry) {
		return storedoc.Conflict("Message %q is not leased to %q any more.", msg.ID, msg.LeaseOwner)
	}
	if err := unindexMessage(tx, &rec); err != nil {
		return err
	}
	rec.Status, rec.Attempts, rec.NextAttemptAt, rec.LastError = msg.Status, msg.Attempts, storedoc.UTC(msg.NextAttemptAt), msg.LastError
	rec.LeaseOwner, rec.LeaseExpiry = "", time.Time{}
	return putMessage(tx, &rec)
}

// GetMessage returns a message of an application; CodeNotFound if the
// application has no such message.
func (s *Store) GetMessage(ctx context.Context, appID, id string) (*outbox.Message, error) {
	var rec message
	err := s.view(ctx, "get message", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketOutbox), []byte(id), &rec)
		if err == nil && (!ok || rec.ApplicationID != appID) {
			err = storedoc.NotFound("Message", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.toOutboxMessage(), nil
}
