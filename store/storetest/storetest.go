// Package storetest is a conformance suite for implementations of
// [unical.Store], in the spirit of testing/fstest: a Store that passes [Run]
// can be handed to unical.Config. The suite checks error codes with
// [unical.ErrorCode], never messages.
//
// Besides the comments on [unical.Store] and its parts, the suite holds a
// Store to these readings of them:
//
//   - Times come back in UTC and keep at least microsecond precision. The
//     suite only uses whole microseconds and compares instants with
//     [time.Time.Equal], so a Store may drop nanoseconds and the monotonic
//     clock reading, but not the location's conversion to UTC.
//   - A nil slice or map and an empty one are interchangeable.
//   - Every field of every record comes back exactly as stored; the suite
//     fails at once if the root gains a field its fixtures leave zero, so
//     that the round trips keep covering everything.
//   - Records going in and coming out are copies: changing one afterwards
//     changes nothing in the Store.
//   - Something that expires at T has expired when now is T.
//   - A list limit of zero or less means no limit.
//   - Another application's ids are CodeNotFound for reads, updates and
//     deletes, and are left out of its lists.
//   - EnqueueMessages, CreateFlow and every Create method return
//     CodeConflict for a taken id; EnqueueMessages then stores none of the
//     batch.
//   - A lease is one claim: LeaseOwner and LeaseExpiry as ClaimMessages
//     returned them. UpdateMessage with any other pair is CodeConflict,
//     including the same owner's stale claim after it re-claimed the message.
//     A lease that expired but was not claimed again may still be written.
//   - DeleteSubscription and DeleteAccount remove the subscriptions' pending
//     messages, claimed or not; delivered and failed ones stay.
//   - RecordDeliveries follows UpdateMessage's lease rules per result and
//     writes nothing for a result they refuse, but writes the others; attempts that expired at now are left out of
//     ListAttempts; RetryMessage refuses a message whose subscription was
//     deleted with CodeNotFound.
//   - CreateAccount, UpdateAccountAndEnqueue and DeleteAccount queue their
//     messages in the same atomic write as the account change: a refused
//     change queues nothing and a refused message (CodeConflict for a taken
//     id) changes nothing.
//   - CreateFlow's cap counts the application's flows unexpired at the new
//     flow's CreatedAt; consumed and expired flows do not count. A refusal
//     is CodeRateLimited with RetryAfter until the first of them expires.
//   - Sweep removes flows, blobs and attempts expired at Now, and delivered
//     and failed messages whose NextAttemptAt is strictly before their
//     cutoff; a message sent again with RetryMessage is pending and stays.
//   - DeleteApplication removes the application's API keys with it, and
//     refuses with CodeConflict while any account of the application exists.
//   - PutRecord and DeleteRecord are compare-and-set on the version: a
//     lost race is CodeConflict and writes nothing; a version read before
//     a delete never matches the record written after it; DeleteAccount
//     takes the account's records with it.
//   - BeginIdempotent takes a key that expired at the claim's CreatedAt,
//     and a same-fingerprint claim whose lease expired then; it never
//     lets another fingerprint take a held key, completed or not. Sweep
//     removes idempotency records expired at Now, completed or not. With
//     a positive maxKeys a new key of an application holding that many
//     records (expired ones until swept) is CodeRateLimited and stored
//     nowhere.
//   - ListAudit lists newest first by id; AppendAudit removes entries
//     made strictly before its removeBefore (up to 100 per call).
//   - A Store that implements scopedtoken.GrantStore (optional) keeps
//     grants by id across applications, hides and sweeps them at their
//     expiry, and deletes one only for its own application.
//   - UpdateAccount and UpdateSubscription return the error of fn unchanged
//     (errors.Is finds it) and refuse to let fn move a record to another id,
//     application or account with CodeInvalid.
package storetest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/unical/unical"
)

// Run runs the conformance suite against the Stores that newStore returns.
// Each case gets a new, empty Store from newStore, which should register
// its Close and any removal with tb.Cleanup. The cases of a group run in
// parallel, so newStore must be safe to call concurrently; Run returns when
// every case has finished.
func Run(t *testing.T, newStore func(tb testing.TB) unical.Store) {
	groups := []struct {
		name  string
		cases []testCase
	}{
		{"Applications", applicationTests},
		{"APIKeys", apiKeyTests},
		{"ApplicationDelete", applicationDeleteTests},
		{"APIKeyUsed", apiKeyUsedTests},
		{"Accounts", accountTests},
		{"Subscriptions", subscriptionTests},
		{"SubscriptionClaims", subscriptionClaimTests},
		{"Outbox", outboxTests},
		{"DeliveryLog", deliveryLogTests},
		{"AccountMessages", accountMessageTests},
		{"Flows", flowTests},
		{"FlowCap", flowCapTests},
		{"Blobs", blobTests},
		{"Records", recordTests},
		{"RecordBatch", recordBatchTests},
		{"Idempotency", idempotencyTests},
		{"Sweep", sweepTests},
		{"Stats", statsTests},
		{"Audit", auditTests},
		{"APIKeyLabels", apiKeyLabelTests},
		{"TokenGrants", tokenGrantTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, newStore(t))
				})
			}
		})
	}
}

// testCase is one case of the suite.
type testCase struct {
	name string
	run  func(t *testing.T, s unical.Store)
}

// base is the suite's clock: fixed, so that cases are repeatable, in whole
// microseconds, and far enough from now that nothing real expires.
var base = time.Date(2031, time.March, 14, 15, 9, 26, 535897000, time.UTC)

// cmpOpts compare stored records: time instants with Equal but in UTC only,
// and nil like empty.
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) && a.Location() == b.Location() }),
	cmpopts.EquateEmpty(),
}

// diff is cmp.Diff with cmpOpts.
func diff(want, got any) string { return cmp.Diff(want, got, cmpOpts) }

// idSeq makes ids from newID sort in the order they were made, across all
// parallel cases, as the Client's time-sortable ids do.
var idSeq atomic.Uint64

// newID returns a unique id that sorts after every id made before it: the
// prefix, a sequence number and random hex, so that two runs against one
// long-lived database do not collide.
func newID(prefix string) string {
	var r [5]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s_%012d%s", prefix, idSeq.Add(1), hex.EncodeToString(r[:]))
}

// wantCode fails tb unless err has the code want ("" for no error).
func wantCode(tb testing.TB, call string, err error, want unical.Code) {
	tb.Helper()
	if got := unical.ErrorCode(err); got != want {
		tb.Fatalf("%s: code = %q, want %q (err: %v)", call, got, want, err)
	}
}

// mustOK fails tb if err is not nil.
func mustOK(tb testing.TB, call string, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", call, err)
	}
}

// exemptFields may stay zero in a full fixture: the Store never sees them
// set.
var exemptFields = map[string]bool{
	"ProviderSettings.ClientSecret": true, // sealed into Application.SealedSecrets
}

// checkFull fails tb unless every exported field of v, down through
// pointers, embedded and nested structs, slices and map values, is set. The
// round-trip cases run on such fixtures, so a field the Store forgets shows
// up as a diff, and a field added to the root later shows up here.
func checkFull(tb testing.TB, v any) {
	tb.Helper()
	timeType := reflect.TypeFor[time.Time]()
	var walk func(path string, rv reflect.Value)
	walk = func(path string, rv reflect.Value) {
		switch rv.Kind() {
		case reflect.Pointer:
			if rv.IsNil() {
				tb.Fatalf("storetest: fixture field %s is nil; set it so that the round trip covers it", path)
			}
			walk(path, rv.Elem())
		case reflect.Struct:
			if rv.Type() == timeType {
				if rv.Interface().(time.Time).IsZero() {
					tb.Fatalf("storetest: fixture field %s is zero; set it so that the round trip covers it", path)
				}
				return
			}
			for i := range rv.NumField() {
				f := rv.Type().Field(i)
				if !f.IsExported() || exemptFields[rv.Type().Name()+"."+f.Name] {
					continue
				}
				walk(path+"."+f.Name, rv.Field(i))
			}
		case reflect.Slice:
			if rv.Len() == 0 {
				tb.Fatalf("storetest: fixture field %s is empty; set it so that the round trip covers it", path)
			}
			switch rv.Type().Elem().Kind() {
			case reflect.Struct, reflect.Pointer, reflect.Slice, reflect.Map:
				for i := range rv.Len() {
					walk(fmt.Sprintf("%s[%d]", path, i), rv.Index(i))
				}
			default:
				// A zero byte or an empty string inside a slice is data.
			}
		case reflect.Map:
			if rv.Len() == 0 {
				tb.Fatalf("storetest: fixture field %s is empty; set it so that the round trip covers it", path)
			}
			for it := rv.MapRange(); it.Next(); {
				walk(fmt.Sprintf("%s[%v]", path, it.Key()), it.Value())
			}
		default:
			if rv.IsZero() {
				tb.Fatalf("storetest: fixture field %s is zero; set it so that the round trip covers it", path)
			}
		}
	}
	rv := reflect.ValueOf(v)
	walk(reflect.Indirect(rv).Type().Name(), rv)
}
