package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
)

// messageColumns are the outbox columns scanMessage reads, in its order.
const messageColumns = `id, application_id, subscription_id, event_type, payload, created_at, status,
	attempts, next_attempt_at, last_error, lease_owner, lease_expiry`

// scanMessage reads the messageColumns of a row.
func scanMessage(row pgx.CollectableRow) (*outbox.Message, error) {
	var m outbox.Message
	var status string
	err := row.Scan(&m.ID, &m.ApplicationID, &m.SubscriptionID, &m.EventType, &m.Payload, &m.CreatedAt, &status,
		&m.Attempts, &m.NextAttemptAt, &m.LastError, &m.LeaseOwner, &m.LeaseExpiry)
	if err != nil {
		return nil, err
	}
	m.Status = outbox.Status(status)
	m.CreatedAt, m.NextAttemptAt, m.LeaseExpiry = storedoc.UTC(m.CreatedAt), storedoc.UTC(m.NextAttemptAt), storedoc.UTC(m.LeaseExpiry)
	return &m, nil
}

// checkMessages checks messages to queue: ids set, pending (an empty
// Status means pending). It returns copies with the status filled in.
func checkMessages(msgs []*outbox.Message) ([]*outbox.Message, error) {
	out := make([]*outbox.Message, len(msgs))
	for i, m := range msgs {
		if err := storedoc.CheckID("Message id", m.ID); err != nil {
			return nil, err
		}
		if err := storedoc.CheckID("Application id", m.ApplicationID); err != nil {
			return nil, err
		}
		c := *m
		switch c.Status {
		case "":
			c.Status = outbox.Pending
		case outbox.Pending:
		default:
			return nil, unical.Errorf(unical.CodeInvalid, "Message %q is %s; only pending messages can be queued.", m.ID, c.Status)
		}
		out[i] = &c
	}
	return out, nil
}

// enqueue stores checked messages inside a transaction, in one round trip;
// a taken id fails the statement (CodeConflict), which aborts the
// transaction.
func enqueue(ctx context.Context, tx pgx.Tx, msgs []*outbox.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	var b pgx.Batch
	for _, m := range msgs {
		b.Queue(`INSERT INTO outbox (`+messageColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			m.ID, m.ApplicationID, m.SubscriptionID, m.EventType, m.Payload, m.CreatedAt, string(m.Status),
			m.Attempts, m.NextAttemptAt, m.LastError, m.LeaseOwner, m.LeaseExpiry)
	}
	b.Queue(notifyOutbox) // sent when the transaction commits (notify.go)
	return tx.SendBatch(ctx, &b).Close()
}

// EnqueueMessages stores messages atomically: all of them or, on an error,
// none. A message must be pending; CodeConflict if an id is taken.
func (s *Store) EnqueueMessages(ctx context.Context, msgs []*outbox.Message) error {
	queued, err := checkMessages(msgs)
	if err != nil {
		return err
	}
	return s.tx(ctx, "enqueue messages", func(tx pgx.Tx) error {
		return enqueue(ctx, tx, queued)
	})
}

// EnqueueCoalesced stores msg unless its subscription has a pending,
// untouched message of the same event type. A transaction-scoped advisory
// lock on the subscription makes the check and the insert one step for
// all processes: two replicas coalescing at once take turns.
func (s *Store) EnqueueCoalesced(ctx context.Context, msg *outbox.Message) (bool, error) {
	checked, err := checkMessages([]*outbox.Message{msg})
	if err != nil {
		return false, err
	}
	queued := false
	err = s.tx(ctx, "enqueue a coalesced message", func(tx pgx.Tx) error {
		queued = false
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('outbox/' || $1, 0))`, msg.SubscriptionID); err != nil {
			return err
		}
		var waiting bool
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM outbox WHERE subscription_id = $1 AND status = 'pending'
			AND attempts = 0 AND lease_owner = '' AND event_type = $2)`, msg.SubscriptionID, msg.EventType).Scan(&waiting)
		if err != nil || waiting {
			return err
		}
		queued = true
		return enqueue(ctx, tx, checked)
	})
	return queued && err == nil, err
}

// ClaimMessages leases up to max pending messages due at now whose lease
// is free or expired (a lease that ends at now has expired), oldest due
// first, to owner until now+lease. SELECT ... FOR UPDATE SKIP LOCKED
// passes over messages another process is claiming at the same moment, so
// concurrent claims from several processes never return the same message
// and never wait on each other. CodeInvalid for an empty owner or a lease
// that is not positive.
func (s *Store) ClaimMessages(ctx context.Context, owner string, now time.Time, lease time.Duration, max int) ([]*outbox.Message, error) {
	if owner == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "A claim needs an owner.")
	}
	if err := checkText("Lease owner", owner); err != nil {
		return nil, err
	}
	if lease <= 0 {
		return nil, unical.Errorf(unical.CodeInvalid, "A claim needs a positive lease.")
	}
	if max <= 0 {
		return nil, nil
	}
	// One statement, committed on its own: no BEGIN and COMMIT round
	// trips on the engine's busiest path. A claim whose answer is lost
	// with its connection is not lost work: its lease runs out and the
	// messages are claimed again.
	var claimed []*outbox.Message
	err := retrySafe(ctx, func() error {
		rows, err := s.pool.Query(ctx, `WITH due AS (
				SELECT id FROM outbox
				WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_owner = '' OR lease_expiry <= $1)
				ORDER BY next_attempt_at, id
				LIMIT $2
				FOR UPDATE SKIP LOCKED)
			UPDATE outbox o SET lease_owner = $3, lease_expiry = $4
			FROM due WHERE o.id = due.id
			RETURNING `+prefixed("o.", messageColumns),
			now, max, owner, now.Add(lease))
		if err != nil {
			return err
		}
		claimed, err = pgx.CollectRows(rows, scanMessage)
		return err
	})
	if err != nil {
		return nil, translate("claim messages", err)
	}
	// RETURNING keeps no order.
	slices.SortFunc(claimed, func(a, b *outbox.Message) int {
		return cmp.Or(a.NextAttemptAt.Compare(b.NextAttemptAt), cmp.Compare(a.ID, b.ID))
	})
	return claimed, nil
}

// prefixed puts prefix before every column of a comma-separated list.
func prefixed(prefix, columns string) string {
	out := prefix
	for _, c := range columns {
		out += string(c)
		if c == ',' {
			out += " " + prefix
		}
	}
	return out
}

// updateClaimedSQL writes back a claimed message if, and only if, the
// claim named by its owner and expiry is still the message's.
const updateClaimedSQL = `UPDATE outbox SET status = $5, attempts = $6, next_attempt_at = $7, last_error = $8,
		lease_owner = '', lease_expiry = $9
	WHERE id = $1 AND application_id = $2 AND status = 'pending' AND lease_owner <> '' AND lease_owner = $3 AND lease_expiry = $4`

func updateClaimedArgs(m *outbox.Message) []any {
	return []any{m.ID, m.ApplicationID, m.LeaseOwner, m.LeaseExpiry,
		string(m.Status), m.Attempts, m.NextAttemptAt, m.LastError, time.Time{}}
}

// whyNotClaimed explains an update that matched no row: CodeNotFound if
// the application has no such message, else CodeConflict (the lease is
// not the caller's any more).
func (s *Store) whyNotClaimed(ctx context.Context, m *outbox.Message) error {
	var one int
	err := s.queryRow(ctx, "SELECT 1 FROM outbox WHERE id = $1 AND application_id = $2", []any{m.ID, m.ApplicationID}, &one)
	if errors.Is(err, pgx.ErrNoRows) {
		return storedoc.NotFound("Message", m.ID)
	}
	if err != nil {
		return err
	}
	return storedoc.Conflict("Message %q is not leased to %q any more.", m.ID, m.LeaseOwner)
}

// UpdateMessage writes back a claimed message's Status, Attempts,
// NextAttemptAt and LastError, and releases the lease; the other fields
// cannot change. msg must carry the lease as ClaimMessages returned it: a
// worker whose lease expired and was claimed again (even by the same
// owner) gets CodeConflict, while one whose lease expired unclaimed may
// still finish. CodeNotFound if the message is not the application's (or
// was deleted with its subscription), CodeInvalid for an unknown status.
func (s *Store) UpdateMessage(ctx context.Context, msg *outbox.Message) error {
	if err := storedoc.CheckStatus(msg.Status); err != nil {
		return err
	}
	n, err := s.exec(ctx, "update message", updateClaimedSQL, updateClaimedArgs(msg)...)
	if err != nil {
		return err
	}
	if n == 0 {
		return translate("update message", s.whyNotClaimed(ctx, msg))
	}
	return nil
}

// GetMessage returns a message of an application; CodeNotFound if the
// application has no such message.
func (s *Store) GetMessage(ctx context.Context, appID, id string) (*outbox.Message, error) {
	msgs, err := queryAll(ctx, s, scanMessage, "SELECT "+messageColumns+" FROM outbox WHERE id = $1 AND application_id = $2", id, appID)
	if err != nil {
		return nil, translate("get message", err)
	}
	if len(msgs) == 0 {
		return nil, storedoc.NotFound("Message", id)
	}
	return msgs[0], nil
}

// pruneBatch bounds the expired attempts one RecordDeliveries removes, so
// that a backlog of expiries never makes one delivery slow.
const pruneBatch = 32

// RecordDeliveries writes back claimed messages as UpdateMessage does and
// appends their attempts to the delivery log, all in one transaction, in
// one round trip whatever the number of results: the engine's workers
// hand their results to one writer, so deliveries share commits. It also
// removes up to pruneBatch attempts that expired by the newest attempt's
// time.
func (s *Store) RecordDeliveries(ctx context.Context, results []outbox.Result) ([]error, error) {
	errs, newest := storedoc.CheckDeliveries(results)
	// The whole write is one batch, which PostgreSQL runs as one implicit
	// transaction in one round trip: each result is one statement that
	// writes the message back under its lease and, only if that matched,
	// adds its attempt (and none if the attempt's id is taken).
	var b pgx.Batch
	var queued []int
	for i, r := range results {
		if errs[i] != nil {
			continue
		}
		queued = append(queued, i)
		if a := r.Attempt; a == nil {
			b.Queue(updateClaimedSQL, updateClaimedArgs(r.Message)...)
			continue
		}
		a := r.Attempt
		b.Queue(recordDeliverySQL, append(updateClaimedArgs(r.Message),
			a.ID, a.SubscriptionID, a.EventType, a.Attempt, a.At, a.StatusCode, int64(a.Latency), a.Error, a.ExpiresAt)...)
	}
	if !newest.IsZero() {
		b.Queue(`DELETE FROM delivery_attempts WHERE id IN
			(SELECT id FROM delivery_attempts WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`, newest, pruneBatch)
	}
	written := make([]bool, len(results))
	err := retrySafe(ctx, func() error {
		clear(written)
		return runBatch(ctx, s.pool.SendBatch(ctx, &b), b.Len(), func(k int, rows int64) {
			if k < len(queued) {
				written[queued[k]] = rows > 0
			}
		})
	})
	if err != nil {
		return nil, translate("record deliveries", err)
	}
	// Explaining a refusal reads after the write; it reports, it changes
	// nothing.
	for _, i := range queued {
		if written[i] {
			continue
		}
		if a := results[i].Attempt; a != nil {
			var taken bool
			err := s.queryRow(ctx, "SELECT EXISTS (SELECT 1 FROM delivery_attempts WHERE id = $1)", []any{a.ID}, &taken)
			if err != nil {
				return nil, translate("record deliveries", err)
			}
			if taken {
				errs[i] = storedoc.Conflict("Attempt %q already exists.", a.ID)
				continue
			}
		}
		if errs[i] = s.whyNotClaimed(ctx, results[i].Message); !isStoreError(errs[i]) {
			return nil, translate("record deliveries", errs[i])
		}
	}
	return errs, nil
}

// recordDeliverySQL is updateClaimedSQL that also adds the attempt
// ($10...$18) when the message was written and the attempt's id is free.
const recordDeliverySQL = `WITH written AS (
		UPDATE outbox SET status = $5, attempts = $6, next_attempt_at = $7, last_error = $8,
			lease_owner = '', lease_expiry = $9
		WHERE id = $1 AND application_id = $2 AND status = 'pending' AND lease_owner <> '' AND lease_owner = $3 AND lease_expiry = $4
			AND NOT EXISTS (SELECT 1 FROM delivery_attempts WHERE id = $10::text)
		RETURNING id)
	INSERT INTO delivery_attempts (id, application_id, message_id, subscription_id, event_type, attempt, at,
		status_code, latency_ns, error, expires_at)
	SELECT $10::text, $2::text, $1::text, $11::text, $12::text, $13::integer, $14::timestamptz,
		$15::integer, $16::bigint, $17::text, $18::timestamptz FROM written`

// retrySafe runs fn again when it failed before anything reached the
// server (pgconn says so), as on a pooled connection the database closed,
// or when PostgreSQL rolled its transaction back to break a deadlock: a
// write-back batch and a DeleteSubscription can lock the same messages in
// opposite orders. fn must be one statement or one batch, so that a
// rolled-back try left nothing behind.
func retrySafe(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		var pe *pgconn.PgError
		again := pgconn.SafeToRetry(err) || errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
		if attempt < maxRetries && err != nil && ctx.Err() == nil && again {
			continue
		}
		return err
	}
}

// isStoreError reports whether err is an *unical.Error: a refusal of one
// result, not a failure of the whole write.
func isStoreError(err error) bool {
	var ue *unical.Error
	return errors.As(err, &ue)
}

// runBatch reads the n results of a sent batch, handing each statement's
// affected row count to done, and closes it.
func runBatch(ctx context.Context, br pgx.BatchResults, n int, done func(k int, rows int64)) error {
	for k := range n {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return err
		}
		done(k, tag.RowsAffected())
	}
	return br.Close()
}

// scanAttempt reads a delivery_attempts row.
func scanAttempt(row pgx.CollectableRow) (*outbox.Attempt, error) {
	var a outbox.Attempt
	var latency int64
	err := row.Scan(&a.ID, &a.ApplicationID, &a.MessageID, &a.SubscriptionID, &a.EventType, &a.Attempt, &a.At,
		&a.StatusCode, &latency, &a.Error, &a.ExpiresAt)
	if err != nil {
		return nil, err
	}
	a.Latency = time.Duration(latency)
	a.At, a.ExpiresAt = storedoc.UTC(a.At), storedoc.UTC(a.ExpiresAt)
	return &a, nil
}

// ListAttempts returns an application's attempts for one subscription
// ("" for its own endpoint) that have not expired at now, in id order
// after the given id, at most limit of them (no limit when limit is zero
// or less).
func (s *Store) ListAttempts(ctx context.Context, appID, subscriptionID string, now time.Time, after string, limit int) ([]*outbox.Attempt, error) {
	out, err := queryAll(ctx, s, scanAttempt, `SELECT id, application_id, message_id, subscription_id, event_type, attempt, at,
			status_code, latency_ns, error, expires_at
		FROM delivery_attempts
		WHERE application_id = $1 AND subscription_id = $2 AND id > $3 AND expires_at > $4
		ORDER BY id LIMIT $5`, appID, subscriptionID, after, now, limitArg(limit))
	if err != nil {
		return nil, translate("list attempts", err)
	}
	return out, nil
}

// RetryMessage puts a failed message back in the queue, due at now, with
// its attempts reset and its last error kept until the next attempt; a
// pending one not leased at now becomes due at now, its attempts kept.
func (s *Store) RetryMessage(ctx context.Context, appID, id string, now time.Time) (*outbox.Message, error) {
	var out *outbox.Message
	err := s.tx(ctx, "retry message", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT "+messageColumns+" FROM outbox WHERE id = $1 AND application_id = $2 FOR UPDATE", id, appID)
		if err != nil {
			return err
		}
		m, err := pgx.CollectExactlyOneRow(rows, scanMessage)
		if errors.Is(err, pgx.ErrNoRows) {
			return storedoc.NotFound("Message", id)
		}
		if err != nil {
			return err
		}
		if m.SubscriptionID != "" {
			var one int
			err := tx.QueryRow(ctx, "SELECT 1 FROM subscriptions WHERE id = $1", m.SubscriptionID).Scan(&one)
			if errors.Is(err, pgx.ErrNoRows) {
				return storedoc.NotFound("Message", id) // its subscription was deleted
			}
			if err != nil {
				return err
			}
		}
		switch {
		case m.Status == outbox.Pending && (m.LeaseOwner != "" && m.LeaseExpiry.After(now) || !m.NextAttemptAt.After(now)):
			// Being sent now, or due already: nothing to bring forward.
			out = m
			return nil
		case m.Status == outbox.Pending:
			rows, err = tx.Query(ctx, `UPDATE outbox SET next_attempt_at = $2, lease_owner = '', lease_expiry = $3
				WHERE id = $1 RETURNING `+messageColumns, id, now, time.Time{})
		case m.Status == outbox.Failed:
			rows, err = tx.Query(ctx, `UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = $2,
					lease_owner = '', lease_expiry = $3
				WHERE id = $1 RETURNING `+messageColumns, id, now, time.Time{})
		default:
			return storedoc.Conflict("Message %q is %s; only failed and pending messages can be sent again.", id, m.Status)
		}
		if err != nil {
			return err
		}
		out, err = pgx.CollectExactlyOneRow(rows, scanMessage)
		if err != nil {
			return fmt.Errorf("retry: %w", err)
		}
		_, err = tx.Exec(ctx, notifyOutbox)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
