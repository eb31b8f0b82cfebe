// Package bolt is the default [unical.Store]: one file on local disk, kept
// with go.etcd.io/bbolt (https://github.com/etcd-io/bbolt).
//
// A bolt file belongs to one process at a time: bbolt takes an exclusive
// lock on it, and [Open] gives up with CodeUnavailable after
// [Config.Timeout] rather than waiting forever. Several Clients inside that
// one process may share a [Store]; replicas in several processes need a
// server-backed Store.
//
// Every record is a JSON document (stable and readable with the bbolt
// command-line tool) in a bucket for its kind, keyed by its id. Secondary
// index buckets map keys to ids and hold no data of their own:
//
//	meta                     "version" → file format version
//	applications             app id → application
//	apiKeys                  key id → API key
//	apiKeys.byApp            app id ␀ key id → ∅
//	accounts                 account id → account
//	accounts.byApp           app id ␀ account id → ∅            (listing in id order)
//	accounts.byEmail         app id ␀ provider type ␀ lower(email) → account id
//	subscriptions            subscription id → subscription     (ListAllSubscriptions)
//	subscriptions.byApp      app id ␀ subscription id → ∅
//	subscriptions.byAccount  app id ␀ account id ␀ subscription id → ∅
//	subscriptions.byNextCheck next check ‖ subscription id → ∅ (ClaimDueSubscriptions)
//	outbox                   message id → message
//	outbox.pending           next attempt ‖ message id → lease expiry or ∅
//	outbox.bySubscription    subscription id ␀ message id → ∅   (pending only)
//	outbox.finished          status ␀ last due time ‖ message id → ∅ (delivered and failed only)
//	deliveries               attempt id → delivery attempt
//	deliveries.bySubscription app id ␀ subscription id ␀ attempt id → ∅ ("" for the app's endpoint)
//	deliveries.byExpiry      expiry ‖ attempt id → ∅
//	flows                    flow id → OAuth flow
//	flows.byExpiry           expiry ‖ flow id → ∅
//	flows.byApp              app id ␀ expiry ‖ flow id → ∅
//	flows.countByApp         app id ␀ → number of stored flows (uint64, big-endian)
//	blobs                    app id ␀ key → blob
//	blobs.byExpiry           expiry ‖ app id ␀ key → ∅
//	records                  app id ␀ account id ␀ collection ␀ key → version (uint64, big-endian) ‖ data
//	idempotency              app id ␀ Idempotency-Key → claim or kept answer (body sealed)
//	idempotency.byExpiry     expiry ‖ app id ␀ Idempotency-Key → ∅
//	idempotency.countByApp   app id ␀ → number of stored records (uint64, big-endian)
//	audit                    audit entry id (time-sorted) → JSON (pruned past retention by AppendAudit)
//	audit.byApp              app id ␀ audit entry id → ∅
//	tokenGrants              scoped token id → grant (its secret's hash only; package scopedtoken)
//	tokenGrants.byExpiry     expiry ‖ scoped token id → ∅
//
// ␀ is a NUL byte, which is why ids may not contain one, and ‖ is plain
// concatenation after a 12-byte time (see timeKey) that sorts like the time.
// Only pending messages are in outbox.pending, so claiming never walks the
// delivered history; a claim is written onto the message itself, so after a
// crash and restart the same file hands expired claims to the next worker.
// Buckets missing from an older file are created by Open, so the delivery
// log needed no new format version; the "indexes" meta key records that
// Open has filled outbox.finished and the flows.byApp indexes from the
// records of an older file. Expired attempts are pruned a few at a time by
// each RecordDeliveries, and everything that expires or outlives its
// retention by Sweep, which walks the time-ordered indexes.
//
// Times are stored in UTC with nanosecond precision. Sealed secrets arrive
// sealed by the Client and are stored as they are, so nothing in the file is
// plaintext; an application with a plaintext provider client secret is
// refused.
package bolt
