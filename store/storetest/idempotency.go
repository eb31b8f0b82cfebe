package storetest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/sweep"
)

// newClaim returns an attempt's claim of key for appID with fingerprint fp,
// made at now, with a one-minute lease and a day to live.
func newClaim(appID, key, fp string, now time.Time) *idempotency.Record {
	return &idempotency.Record{
		ApplicationID: appID,
		Key:           key,
		Fingerprint:   fp,
		Claim:         newID("claim"),
		CreatedAt:     now,
		LeaseExpiry:   now.Add(time.Minute),
		ExpiresAt:     now.Add(24 * time.Hour),
	}
}

// fullResponse returns an answer with every field set.
func fullResponse() *idempotency.Response {
	return &idempotency.Response{Status: 404, Code: string(unical.CodeNotFound), SealedBody: []byte{0x00, 's', 'e', 'a', 'l', 0xff}}
}

// mustBegin claims rec and fails tb unless the key was free.
func mustBegin(tb testing.TB, s unical.Store, rec *idempotency.Record) {
	tb.Helper()
	held, err := s.BeginIdempotent(tb.Context(), rec, 0, 0)
	mustOK(tb, "BeginIdempotent()", err)
	if held != nil {
		tb.Fatalf("BeginIdempotent(%s) = held by %+v, want a fresh claim", rec.Key, held)
	}
}

// wantHeld fails tb unless BeginIdempotent(rec) stores nothing and returns
// want.
func wantHeld(tb testing.TB, s unical.Store, call string, rec, want *idempotency.Record) {
	tb.Helper()
	held, err := s.BeginIdempotent(tb.Context(), rec, 0, 0)
	mustOK(tb, call, err)
	if d := diff(want, held); d != "" {
		tb.Errorf("%s mismatch (-want +got):\n%s", call, d)
	}
}

var idempotencyTests = []testCase{
	{"Begin/BoundPerApplication", func(t *testing.T, s unical.Store) {
		const bound = 3
		ctx := t.Context()
		begin := func(appID, key string, now time.Time) (*idempotency.Record, error) {
			return s.BeginIdempotent(ctx, newClaim(appID, key, "POST /v1/x sha256:1", now), bound, 0)
		}
		keys := []string{newID("idem"), newID("idem"), newID("idem")}
		for _, key := range keys {
			held, err := begin("app_A", key, base)
			mustOK(t, "BeginIdempotent(under the bound)", err)
			if held != nil {
				t.Fatalf("BeginIdempotent(under the bound) = held by %+v", held)
			}
		}
		refused := newID("idem")
		_, err := begin("app_A", refused, base)
		wantCode(t, "BeginIdempotent(at the bound)", err, unical.CodeRateLimited)
		// A key already held is answered as before; other applications
		// have bounds of their own.
		held, err := begin("app_A", keys[0], base.Add(time.Second))
		mustOK(t, "BeginIdempotent(held key at the bound)", err)
		if held == nil || held.Key != keys[0] {
			t.Errorf("BeginIdempotent(held key at the bound) = %+v, want the first claim", held)
		}
		held, err = begin("app_B", refused, base)
		if err != nil || held != nil {
			t.Errorf("BeginIdempotent(other application) = %+v, %v; want a fresh claim", held, err)
		}
		// A freed key makes room; the refused key was not stored, so it
		// takes that room as a fresh claim.
		mustOK(t, "CompleteIdempotent(free)", s.CompleteIdempotent(ctx, "app_A", keys[1], claimOf(t, s, "app_A", keys[1]), nil))
		held, err = begin("app_A", refused, base.Add(time.Second))
		if err != nil || held != nil {
			t.Errorf("BeginIdempotent(after a key was freed) = %+v, %v; want a fresh claim", held, err)
		}
		_, err = begin("app_A", newID("idem"), base.Add(time.Second))
		wantCode(t, "BeginIdempotent(at the bound again)", err, unical.CodeRateLimited)
		// Expired records count until the sweep removes them.
		later := base.Add(25 * time.Hour)
		_, err = begin("app_A", newID("idem"), later)
		wantCode(t, "BeginIdempotent(expired, not swept)", err, unical.CodeRateLimited)
		_, err = s.Sweep(ctx, sweep.Request{Now: later})
		mustOK(t, "Sweep()", err)
		held, err = begin("app_A", newID("idem"), later)
		if err != nil || held != nil {
			t.Errorf("BeginIdempotent(after the sweep) = %+v, %v; want a fresh claim", held, err)
		}
	}},
	{"Begin/ByteBoundPerApplication", func(t *testing.T, s unical.Store) {
		// Two kept bodies of 600 bytes pass a bound of 1,000 bytes: the
		// bound is checked when a key is new, against what is kept then.
		const maxKeys, maxBytes = 100, 1000
		ctx := t.Context()
		begin := func(appID, key string, now time.Time) (*idempotency.Record, error) {
			return s.BeginIdempotent(ctx, newClaim(appID, key, "POST /v1/x sha256:1", now), maxKeys, maxBytes)
		}
		body := &idempotency.Response{Status: 200, SealedBody: make([]byte, 600)}
		keys := []string{newID("idem"), newID("idem")}
		for _, key := range keys {
			held, err := begin("app_A", key, base)
			mustOK(t, "BeginIdempotent(under the byte bound)", err)
			if held != nil {
				t.Fatalf("BeginIdempotent(under the byte bound) = held by %+v", held)
			}
			mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(ctx, "app_A", key, claimOf(t, s, "app_A", key), body))
		}
		_, err := begin("app_A", newID("idem"), base)
		wantCode(t, "BeginIdempotent(past the byte bound)", err, unical.CodeRateLimited)
		// Kept answers are still replayed; other applications have bounds
		// of their own; an answer kept without its body counts nothing.
		held, err := begin("app_A", keys[0], base.Add(time.Second))
		mustOK(t, "BeginIdempotent(held key past the byte bound)", err)
		if held == nil || held.Response == nil || len(held.Response.SealedBody) != 600 {
			t.Errorf("BeginIdempotent(held key past the byte bound) = %+v, want the kept answer", held)
		}
		small := newID("idem")
		if held, err := begin("app_B", small, base); err != nil || held != nil {
			t.Fatalf("BeginIdempotent(other application) = %+v, %v; want a fresh claim", held, err)
		}
		mustOK(t, "CompleteIdempotent(no body)", s.CompleteIdempotent(ctx, "app_B", small, claimOf(t, s, "app_B", small), &idempotency.Response{Status: 200}))
		if held, err := begin("app_B", newID("idem"), base); err != nil || held != nil {
			t.Errorf("BeginIdempotent(after a bodiless answer) = %+v, %v; want a fresh claim", held, err)
		}
		// An expired record taken over by a new claim of its key gives
		// its bytes back; the sweep gives back the rest.
		later := base.Add(25 * time.Hour)
		if held, err := begin("app_A", keys[0], later); err != nil || held != nil {
			t.Fatalf("BeginIdempotent(expired key again) = %+v, %v; want a fresh claim", held, err)
		}
		if held, err := begin("app_A", newID("idem"), later); err != nil || held != nil {
			t.Errorf("BeginIdempotent(after an expired answer was replaced) = %+v, %v; want a fresh claim", held, err)
		}
		mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(ctx, "app_A", keys[0], claimOf(t, s, "app_A", keys[0]), body))
		_, err = begin("app_A", newID("idem"), later)
		wantCode(t, "BeginIdempotent(past the byte bound again)", err, unical.CodeRateLimited)
		_, err = s.Sweep(ctx, sweep.Request{Now: later})
		mustOK(t, "Sweep()", err)
		if held, err := begin("app_A", newID("idem"), later); err != nil || held != nil {
			t.Errorf("BeginIdempotent(after the sweep) = %+v, %v; want a fresh claim", held, err)
		}
	}},
	{"Begin/ThenCompleteThenReplay", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		first := newClaim("app_A", key, "POST /v1/x sha256:1", base)
		mustBegin(t, s, first)
		// A retry while the first attempt runs gets the claim.
		inFlight := *first
		wantHeld(t, s, "BeginIdempotent(in flight)", newClaim("app_A", key, first.Fingerprint, base.Add(time.Second)), &inFlight)

		mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, fullResponse()))
		want := *first
		want.Response = fullResponse()
		checkFull(t, &want)
		// The answer stays after the lease and until ExpiresAt, for the
		// same request and for another one.
		late := first.ExpiresAt.Add(-time.Microsecond)
		wantHeld(t, s, "BeginIdempotent(completed)", newClaim("app_A", key, first.Fingerprint, late), &want)
		wantHeld(t, s, "BeginIdempotent(completed, other request)", newClaim("app_A", key, "PUT /v1/y sha256:2", late), &want)
	}},
	{"Begin/OtherFingerprintInFlight", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		first := newClaim("app_A", key, "POST /v1/x sha256:1", base)
		mustBegin(t, s, first)
		want := *first
		wantHeld(t, s, "BeginIdempotent(other request)", newClaim("app_A", key, "POST /v1/x sha256:2", base), &want)
		// After the lease, another request still may not take the key:
		// the first may have reached the provider.
		wantHeld(t, s, "BeginIdempotent(other request, lease over)", newClaim("app_A", key, "POST /v1/x sha256:2", first.LeaseExpiry), &want)
	}},
	{"Begin/LeaseExpiredIsTakenOver", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		first := newClaim("app_A", key, "fp", base)
		mustBegin(t, s, first)
		second := newClaim("app_A", key, "fp", first.LeaseExpiry)
		mustBegin(t, s, second)
		err := s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, fullResponse())
		wantCode(t, "CompleteIdempotent(taken-over claim)", err, unical.CodeConflict)
		mustOK(t, "CompleteIdempotent(new claim)", s.CompleteIdempotent(t.Context(), "app_A", key, second.Claim, fullResponse()))
		want := *second
		want.Response = fullResponse()
		wantHeld(t, s, "BeginIdempotent(after takeover)", newClaim("app_A", key, "fp", second.LeaseExpiry), &want)
	}},
	{"Begin/ExpiredIsReplaced", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		first := newClaim("app_A", key, "fp", base)
		mustBegin(t, s, first)
		mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, fullResponse()))
		second := newClaim("app_A", key, "other", first.ExpiresAt)
		mustBegin(t, s, second)
		want := *second
		wantHeld(t, s, "BeginIdempotent(after replace)", newClaim("app_A", key, "other", first.ExpiresAt), &want)
	}},
	{"Begin/PerApplication", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		a := newClaim("app_A", key, "fp", base)
		mustBegin(t, s, a)
		b := newClaim("app_B", key, "other", base)
		mustBegin(t, s, b)
		mustOK(t, "CompleteIdempotent(app_B)", s.CompleteIdempotent(t.Context(), "app_B", key, b.Claim, fullResponse()))
		want := *a
		wantHeld(t, s, "BeginIdempotent(app_A)", newClaim("app_A", key, "fp", base), &want)
		err := s.CompleteIdempotent(t.Context(), "app_C", key, a.Claim, nil)
		wantCode(t, "CompleteIdempotent(other application)", err, unical.CodeNotFound)
	}},
	{"Begin/OneOfConcurrent", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		var (
			wins atomic.Int32
			wg   sync.WaitGroup
		)
		for range 8 {
			wg.Go(func() {
				held, err := s.BeginIdempotent(t.Context(), newClaim("app_A", key, "fp", base), 0, 0)
				if err != nil {
					t.Errorf("BeginIdempotent(): %v", err)
				} else if held == nil {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if got := wins.Load(); got != 1 {
			t.Errorf("%d of 8 concurrent BeginIdempotent() calls claimed the key, want 1", got)
		}
	}},
	{"Begin/ErrInvalid", func(t *testing.T, s unical.Store) {
		_, err := s.BeginIdempotent(t.Context(), newClaim("app_A", "", "fp", base), 0, 0)
		wantCode(t, "BeginIdempotent(empty key)", err, unical.CodeInvalid)
	}},
	{"Complete/ReleaseFreesKey", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		first := newClaim("app_A", key, "fp", base)
		mustBegin(t, s, first)
		mustOK(t, "CompleteIdempotent(nil)", s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, nil))
		// Freed, the key takes even another request at once.
		mustBegin(t, s, newClaim("app_A", key, "other", base))
	}},
	{"Complete/Errors", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		err := s.CompleteIdempotent(t.Context(), "app_A", key, "claim", fullResponse())
		wantCode(t, "CompleteIdempotent(unknown key)", err, unical.CodeNotFound)
		first := newClaim("app_A", key, "fp", base)
		mustBegin(t, s, first)
		err = s.CompleteIdempotent(t.Context(), "app_A", key, "not-the-claim", fullResponse())
		wantCode(t, "CompleteIdempotent(wrong claim)", err, unical.CodeConflict)
		mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, fullResponse()))
		err = s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, &idempotency.Response{Status: 200})
		wantCode(t, "CompleteIdempotent(twice)", err, unical.CodeConflict)
		err = s.CompleteIdempotent(t.Context(), "app_A", key, first.Claim, nil)
		wantCode(t, "CompleteIdempotent(release after complete)", err, unical.CodeConflict)
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		key := newID("idem")
		first := newClaim("app_A", key, "fp", base)
		want := *first
		mustBegin(t, s, first)
		first.Fingerprint = "changed"
		resp := fullResponse()
		mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(t.Context(), "app_A", key, want.Claim, resp))
		resp.SealedBody[1] = 'X'
		want.Response = fullResponse()
		held, err := s.BeginIdempotent(t.Context(), newClaim("app_A", key, "fp", base), 0, 0)
		mustOK(t, "BeginIdempotent()", err)
		held.Response.SealedBody[2] = 'X'
		wantHeld(t, s, "BeginIdempotent(again)", newClaim("app_A", key, "fp", base), &want)
	}},
	{"Sweep", func(t *testing.T, s unical.Store) {
		old, kept := newID("idem"), newID("idem")
		// One completed record and one claim expire at base; one lives on.
		done := newClaim("app_A", old, "fp", base.Add(-24*time.Hour))
		mustBegin(t, s, done)
		mustOK(t, "CompleteIdempotent()", s.CompleteIdempotent(t.Context(), "app_A", old, done.Claim, fullResponse()))
		mustBegin(t, s, newClaim("app_B", old, "fp", base.Add(-24*time.Hour)))
		live := newClaim("app_A", kept, "fp", base.Add(-24*time.Hour+time.Microsecond))
		mustBegin(t, s, live)
		wantSwept(t, s, sweep.Request{Now: base}, sweep.Result{IdempotencyKeys: 2})
		// Asked as of an earlier time, the swept records are gone rather
		// than hidden by their expiry: another request takes the key.
		early := base.Add(-time.Hour)
		mustBegin(t, s, newClaim("app_A", old, "other", early))
		mustBegin(t, s, newClaim("app_B", old, "other", early))
		want := *live
		wantHeld(t, s, "BeginIdempotent(kept)", newClaim("app_A", kept, "other", early), &want)
	}},
}

// claimOf returns the claim that holds the application's key, as a retry
// with the same fingerprint sees it.
func claimOf(tb testing.TB, s unical.Store, appID, key string) string {
	tb.Helper()
	held, err := s.BeginIdempotent(tb.Context(), newClaim(appID, key, "POST /v1/x sha256:1", base), 0, 0)
	mustOK(tb, "BeginIdempotent(read the claim)", err)
	if held == nil {
		tb.Fatalf("BeginIdempotent(%s) took the key, want it held", key)
	}
	return held.Claim
}
