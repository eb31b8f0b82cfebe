package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/unical/unical/storeversion"
)

var _ storeversion.Store = (*Store)(nil)

// changesChannel is the NOTIFY channel on which every transaction that
// changes an application, an API key or an account tells every process
// sharing the database, at its commit: what they keep of those reads
// (the Client's key and application cache, httpapi's answers) is then
// out of date.
const changesChannel = "unical_changes"

// notifyChanges is the statement that does it, run inside the changing
// transaction, so that a rolled back change wakes nobody.
const notifyChanges = "SELECT pg_notify('" + changesChannel + "', '')"

// listenerName is the application_name of the listening connection.
const listenerName = "unicald changes"

// While no notification arrives, the listening connection is pinged
// every changesQuiet, and a ping slower than changesPingTimeout counts
// as a lost connection: so a connection that died without a word (a
// dropped network path) stops the reuse of cached reads within
// changesQuiet + changesPingTimeout.
const (
	changesQuiet       = time.Second
	changesPingTimeout = 2 * time.Second
)

// changeFeed is what the Store knows of changes to applications, API
// keys and accounts, for [Store.Version]. version moves at each change
// this process commits, at each notification of any process's change,
// and whenever listening starts or stops. live is set while a connection
// listens on changesChannel: only then can the Store vouch that no
// change went unnoticed.
type changeFeed struct {
	version atomic.Uint64
	live    atomic.Bool

	start sync.Once
	stop  context.CancelFunc // set by start; ends the listener
	done  chan struct{}      // closed when the listener has ended
}

// changed records a change: every version handed out before is stale.
func (f *changeFeed) changed() { f.version.Add(1) }

// Version implements [storeversion.Store] for a database that other
// processes write to as well. It moves after each change to an
// application, an API key or an account that this Store commits, and,
// for changes committed by other processes, when their notification
// arrives on a connection that listens for them (on one machine or a
// LAN, within a millisecond or so). While that connection is not up,
// Version returns a new number at every call, so nothing read from the
// database is reused. The first call starts listening; Close stops it.
func (s *Store) Version() uint64 {
	s.changes.start.Do(s.listenForChanges)
	if !s.changes.live.Load() {
		return s.changes.version.Add(1)
	}
	return s.changes.version.Load()
}

// listenForChanges starts the listener, which connects again a second
// after it loses its connection, until Close.
func (s *Store) listenForChanges() {
	ctx, cancel := context.WithCancel(context.Background())
	s.changes.stop = cancel
	s.changes.done = make(chan struct{})
	go func() {
		defer close(s.changes.done)
		keepListening(ctx, s.followChanges)
	}()
}

// stopListening ends the listener, if it was started, and waits for it.
func (s *Store) stopListening() {
	// Do makes a later Version start nothing and waits for a start under
	// way, so stop and done are set here if ever.
	s.changes.start.Do(func() {})
	if s.changes.stop != nil {
		s.changes.stop()
		<-s.changes.done
	}
}

// followChanges listens on changesChannel on a connection of its own
// (outside the pool: a listening connection cannot be shared) and moves
// the version at every notification, until the connection fails or ctx
// ends.
func (s *Store) followChanges(ctx context.Context) {
	cfg := s.pool.Config().ConnConfig.Copy()
	// Named, so that an operator can tell it in pg_stat_activity.
	cfg.RuntimeParams["application_name"] = listenerName
	// Called for every notification the connection reads, also while it
	// answers a ping.
	cfg.OnNotification = func(*pgconn.PgConn, *pgconn.Notification) { s.changes.changed() }
	cctx, cancel := context.WithTimeout(ctx, changesPingTimeout)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return
	}
	defer closeListener(ctx, conn)
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return
	}
	// Changes committed before LISTEN took effect were not notified:
	// everything read before now is stale. From here on none is missed.
	s.changes.changed()
	s.changes.live.Store(true)
	defer func() {
		s.changes.live.Store(false)
		s.changes.changed()
	}()
	for {
		wctx, cancel := context.WithTimeout(ctx, changesQuiet)
		err := conn.PgConn().WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			continue
		case ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded):
			return
		}
		pctx, cancel := context.WithTimeout(ctx, changesPingTimeout)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			return
		}
	}
}

// changing is tx for a transaction that changes an application, an API
// key or an account: it notifies every process in the same transaction,
// and moves this Store's version once it has ended (also when it failed,
// since a commit whose answer was lost may have happened).
func (s *Store) changing(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	defer s.changes.changed()
	return s.tx(ctx, op, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, notifyChanges)
		return err
	})
}

// execChanging is exec for a statement that changes an application, an
// API key or an account, through changing.
func (s *Store) execChanging(ctx context.Context, op, sql string, args ...any) (int64, error) {
	var n int64
	err := s.changing(ctx, op, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sql, args...)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}
