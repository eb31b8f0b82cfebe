// Package postgres is a [unical.Store] in PostgreSQL, on
// github.com/jackc/pgx/v5: the store for running several unicald replicas
// on one database, which bbolt's one-process file cannot do.
//
// [Open] creates the schema in an empty database and migrates an older
// one, by the SQL files embedded from migrations/ (0001_init.sql, ...), in
// order, each in its own transaction, under a session advisory lock, so
// that replicas starting together migrate once. The table unical_schema
// records each applied version; a database whose version is newer than the
// binary's is refused at Open, because an older binary must not write into
// a schema it does not know. Migrations only move forward.
//
// Records the API reads whole (applications, accounts, subscriptions,
// OAuth flows) are JSON documents in a jsonb column, beside the columns
// that queries select and sort by; the outbox, the delivery log, API keys
// and blobs are plain columns. Ids are compared byte by byte (COLLATE
// "C"), so lists come in the same order as from the bolt store.
//
// Sealed secrets arrive sealed by the Client and are stored as they are,
// so the database never sees a plaintext token, password or key; an
// application with a plaintext provider client secret is refused.
//
// Read-modify-write updates (UpdateAccount, UpdateSubscription) hold the
// row's lock for the length of the caller's function. Outbox claims use
// SELECT ... FOR UPDATE SKIP LOCKED with a lease written onto each message,
// so several processes never claim one message at once, and a message
// whose lease expired (its worker died) is claimed again by the next.
//
// A database that cannot be reached makes every method fail with
// CodeStoreUnavailable (503 store_unavailable over HTTP); the pool
// reconnects by itself, so calls succeed again once the database is back,
// without a restart. The pool's size is pgxpool's: the URL's
// pool_max_conns parameter, or [MaxConns], default 4 or the number of CPUs
// when there are more.
//
// Store implements [storeversion.Store] for the reads that callers
// cache (applications, API keys, accounts): every transaction that
// changes one sends a NOTIFY on the channel unical_changes, and each
// Store listens on it, on a connection of its own, so that a change
// committed by any process moves the version of every other once its
// notification arrives. While that connection is down, every read goes
// to the database.
package postgres
