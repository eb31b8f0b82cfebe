package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

// grantStore returns s as a scopedtoken.GrantStore, or skips: the part is
// optional.
func grantStore(t *testing.T, s unical.Store) scopedtoken.GrantStore {
	t.Helper()
	gs, ok := s.(scopedtoken.GrantStore)
	if !ok {
		t.Skip("the Store does not keep scoped tokens (scopedtoken.GrantStore)")
	}
	return gs
}

var tokenGrantTests = []testCase{
	{"CreateGet/OK", func(t *testing.T, s unical.Store) {
		gs := grantStore(t, s)
		app := mustCreateApplication(t, s)
		data := []byte(`{"id":"tok_1","hash":"AAEC"}`)
		id := newID("tok")
		mustOK(t, "CreateTokenGrant()", gs.CreateTokenGrant(t.Context(), app.ID, id, data, base.Add(time.Hour)))
		data[0] = 'X' // the Store keeps a copy
		got, err := gs.GetTokenGrant(t.Context(), id, base)
		mustOK(t, "GetTokenGrant()", err)
		if d := cmp.Diff(`{"id":"tok_1","hash":"AAEC"}`, string(got)); d != "" {
			t.Errorf("GetTokenGrant() mismatch (-want +got):\n%s", d)
		}
		wantCode(t, "CreateTokenGrant(taken id)", gs.CreateTokenGrant(t.Context(), app.ID, id, data, base.Add(time.Hour)), unical.CodeConflict)
	}},
	{"Create/ErrNoApplication", func(t *testing.T, s unical.Store) {
		gs := grantStore(t, s)
		wantCode(t, "CreateTokenGrant()", gs.CreateTokenGrant(t.Context(), newID("app"), newID("tok"), []byte("{}"), base.Add(time.Hour)), unical.CodeNotFound)
	}},
	{"Get/ErrExpired", func(t *testing.T, s unical.Store) {
		gs := grantStore(t, s)
		app := mustCreateApplication(t, s)
		id := newID("tok")
		mustOK(t, "CreateTokenGrant()", gs.CreateTokenGrant(t.Context(), app.ID, id, []byte("{}"), base.Add(time.Hour)))
		_, err := gs.GetTokenGrant(t.Context(), id, base.Add(time.Hour))
		wantCode(t, "GetTokenGrant(at expiry)", err, unical.CodeNotFound)
		_, err = gs.GetTokenGrant(t.Context(), newID("tok"), base)
		wantCode(t, "GetTokenGrant(unknown)", err, unical.CodeNotFound)
	}},
	{"Delete/ErrForeignApp", func(t *testing.T, s unical.Store) {
		gs := grantStore(t, s)
		app, other := mustCreateApplication(t, s), mustCreateApplication(t, s)
		id := newID("tok")
		mustOK(t, "CreateTokenGrant()", gs.CreateTokenGrant(t.Context(), app.ID, id, []byte("{}"), base.Add(time.Hour)))
		wantCode(t, "DeleteTokenGrant(other app)", gs.DeleteTokenGrant(t.Context(), other.ID, id), unical.CodeNotFound)
		_, err := gs.GetTokenGrant(t.Context(), id, base)
		mustOK(t, "GetTokenGrant(after another app's delete)", err)
		mustOK(t, "DeleteTokenGrant()", gs.DeleteTokenGrant(t.Context(), app.ID, id))
		_, err = gs.GetTokenGrant(t.Context(), id, base)
		wantCode(t, "GetTokenGrant(deleted)", err, unical.CodeNotFound)
		wantCode(t, "DeleteTokenGrant(again)", gs.DeleteTokenGrant(t.Context(), app.ID, id), unical.CodeNotFound)
	}},
	{"Sweep/RemovesExpiredOnly", func(t *testing.T, s unical.Store) {
		gs := grantStore(t, s)
		app := mustCreateApplication(t, s)
		// A shared database holds other cases' grants: this case's lie
		// far enough past the others' expiry for its sweep times.
		at := base.Add(1000 * time.Hour)
		expired, live := newID("tok"), newID("tok")
		mustOK(t, "CreateTokenGrant()", gs.CreateTokenGrant(t.Context(), app.ID, expired, []byte("{}"), at))
		mustOK(t, "CreateTokenGrant()", gs.CreateTokenGrant(t.Context(), app.ID, live, []byte("{}"), at.Add(time.Hour)))
		n, err := gs.SweepTokenGrants(t.Context(), at, 0)
		mustOK(t, "SweepTokenGrants()", err)
		if n < 1 {
			t.Errorf("SweepTokenGrants() = %d, want at least the one expired grant", n)
		}
		// Gone from the Store, not only hidden: a delete finds nothing.
		wantCode(t, "DeleteTokenGrant(swept)", gs.DeleteTokenGrant(t.Context(), app.ID, expired), unical.CodeNotFound)
		_, err = gs.GetTokenGrant(t.Context(), live, at)
		mustOK(t, "GetTokenGrant(unexpired)", err)
	}},
}
