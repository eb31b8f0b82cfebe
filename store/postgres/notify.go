package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical/outbox"
)

var _ outbox.Notifier = (*Store)(nil)

// outboxChannel is the NOTIFY channel on which a transaction that stores
// pending messages tells every listening process, at its commit.
const outboxChannel = "unical_outbox"

// notifyOutbox is the statement that does it, queued inside the
// transaction: PostgreSQL delivers a notification only when the
// transaction commits, and merges those of one transaction, so a rolled
// back enqueue wakes nobody and a batch wakes each listener once.
const notifyOutbox = "SELECT pg_notify('" + outboxChannel + "', '')"

// listenRetry is how long OutboxWakeups waits before it connects again
// after losing its connection.
const listenRetry = time.Second

// OutboxWakeups implements [outbox.Notifier] with LISTEN on a
// connection of its own, outside the pool (a listening connection cannot
// be shared). Every process sharing the database, this one included, gets
// a wake-up soon after any of them queues messages. While the database
// is unreachable it tries again every second, and after reconnecting it
// sends one wake-up, for what it may have missed; the engine's outbox poll
// covers the gap. The channel is closed when ctx ends.
func (s *Store) OutboxWakeups(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	wake := func() {
		select {
		case out <- struct{}{}:
		default: // one is already waiting
		}
	}
	go func() {
		defer close(out)
		keepListening(ctx, func(ctx context.Context) { s.listen(ctx, wake) })
	}()
	return out
}

// closeListener closes a listening connection, also after ctx ended,
// waiting at most 5 seconds for the server.
func closeListener(ctx context.Context, conn *pgx.Conn) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	conn.Close(cctx)
}

// keepListening runs listen, which returns when its connection fails,
// again listenRetry after each return, until ctx ends.
func keepListening(ctx context.Context, listen func(context.Context)) {
	for ctx.Err() == nil {
		listen(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(listenRetry):
		}
	}
}

// listen connects, listens on outboxChannel and calls wake for each
// notification until the connection fails or ctx ends.
func (s *Store) listen(ctx context.Context, wake func()) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return
	}
	defer closeListener(ctx, conn)
	if _, err := conn.Exec(ctx, "LISTEN "+outboxChannel); err != nil {
		return
	}
	wake() // messages queued while not listening
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return
		}
		wake()
	}
}
