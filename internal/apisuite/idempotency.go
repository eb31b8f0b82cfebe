package apisuite

import (
	"context"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// testIdempotency checks WithIdempotencyKey on the write methods: the
// in-process App runs App.RunIdempotent itself, httpclient sends the key
// to the server, which runs the same; both must answer alike.
func testIdempotency(e *env) {
	t := e.t
	accts := e.connect()
	acct := accts[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	params := func(title string) *unical.EventParams {
		return &unical.EventParams{Title: unical.Some(title), Start: at("2026-06-01T09:00:00Z"), End: at("2026-06-01T09:30:00Z")}
	}
	titled := func(title string) int {
		n := 0
		for _, ev := range collect(t, unical.AllEvents(e.ctx, e.api, acct.ID, cal, nil, nil)) {
			if ev.Title == title {
				n++
			}
		}
		return n
	}

	// A retry returns the first result and creates nothing.
	ctx := unical.WithIdempotencyKey(e.ctx, "create-review")
	first := must(e.api.CreateEvent(ctx, acct.ID, cal, params("Review")))
	again := must(e.api.CreateEvent(ctx, acct.ID, cal, params("Review")))
	if d := cmp.Diff(first, again, equate); d != "" {
		t.Errorf("retried CreateEvent differs from the first (-first +retry):\n%s", d)
	}
	if n := titled("Review"); n != 1 {
		t.Errorf("%d Review events after a create and its retry, want 1", n)
	}

	// The same key with other arguments, or another method, is refused.
	_, err := e.api.CreateEvent(ctx, acct.ID, cal, params("Other"))
	wantError(t, "CreateEvent with a reused key", err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})
	_, err = e.api.DeleteEvent(ctx, acct.ID, cal, first.ID)
	wantError(t, "DeleteEvent with a reused key", err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})
	if n := titled("Other"); n != 0 {
		t.Errorf("a refused reuse created %d events", n)
	}

	// So is the same key with other options, which travel as query
	// parameters over HTTP: a create that emails no attendee is not the
	// retry of one that does, nor of one that leaves it to the provider.
	quiet := unical.WithIdempotencyKey(unical.WithNotifyAttendees(e.ctx, false), "create-quiet")
	firstQuiet := must(e.api.CreateEvent(quiet, acct.ID, cal, params("Quiet")))
	if again := must(e.api.CreateEvent(quiet, acct.ID, cal, params("Quiet"))); again.ID != firstQuiet.ID {
		t.Errorf("retried CreateEvent with notifyAttendees=false made %s, want the first's %s", again.ID, firstQuiet.ID)
	}
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{
		{"notifyAttendees=true", unical.WithNotifyAttendees(e.ctx, true)},
		{"no notifyAttendees", e.ctx},
	} {
		_, err := e.api.CreateEvent(unical.WithIdempotencyKey(c.ctx, "create-quiet"), acct.ID, cal, params("Quiet"))
		wantError(t, "CreateEvent with the key of a notifyAttendees=false create and "+c.name, err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})
	}
	if n := titled("Quiet"); n != 1 {
		t.Errorf("%d Quiet events after a create, its retry and two refused reuses, want 1", n)
	}
	dav := accts[unical.ProviderCalDAV]
	keepGrant := unical.WithIdempotencyKey(unical.WithRevokeGrant(e.ctx, false), "delete-keep-grant")
	for i := range 2 {
		if res := must(e.api.DeleteAccount(keepGrant, dav.ID)); !res.OK {
			t.Errorf("DeleteAccount with revokeGrant=false #%d = %+v", i+1, res)
		}
	}
	_, err = e.api.DeleteAccount(unical.WithIdempotencyKey(e.ctx, "delete-keep-grant"), dav.ID)
	wantError(t, "DeleteAccount with the key of a revokeGrant=false delete and no revokeGrant", err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})

	// Reads ignore the key.
	if got := must(e.api.GetEvent(ctx, acct.ID, cal, first.ID)); got.ID != first.ID {
		t.Errorf("GetEvent with a key = %+v", got)
	}

	// Another application's same key is its own.
	_, err = e.other.CreateEvent(ctx, acct.ID, cal, params("Review"))
	wantError(t, "another application's create with the same key", err, &unical.Error{Code: unical.CodeNotFound})

	// A delete's retry is its kept success; a kept 404 is replayed as the
	// same error.
	delCtx := unical.WithIdempotencyKey(e.ctx, "delete-review")
	for i := range 2 {
		if res := must(e.api.DeleteEvent(delCtx, acct.ID, cal, first.ID)); !res.Success {
			t.Errorf("DeleteEvent #%d = %+v", i+1, res)
		}
	}
	missCtx := unical.WithIdempotencyKey(e.ctx, "update-missing")
	for range 2 {
		_, err := e.api.UpdateEvent(missCtx, acct.ID, cal, first.ID, params("Gone"))
		wantError(t, "UpdateEvent of a deleted event", err, &unical.Error{Code: unical.CodeNotFound})
	}

	// A refused request frees its key: fixed, it runs.
	fixCtx := unical.WithIdempotencyKey(e.ctx, "fix-me")
	_, err = e.api.CreateEvent(fixCtx, acct.ID, cal, &unical.EventParams{Title: unical.Some("No start")})
	wantError(t, "CreateEvent without start", err, &unical.Error{Code: unical.CodeInvalid, Field: "start"})
	if fixed := must(e.api.CreateEvent(fixCtx, acct.ID, cal, params("Fixed"))); fixed.Title != "Fixed" {
		t.Errorf("the fixed create = %+v", fixed)
	}

	for _, bad := range []string{"has space", strings.Repeat("k", 256), "naïve"} {
		_, err := e.api.CreateEvent(unical.WithIdempotencyKey(e.ctx, bad), acct.ID, cal, params("Bad key"))
		wantError(t, "CreateEvent with key "+bad, err, &unical.Error{Code: unical.CodeInvalid, Field: "Idempotency-Key"})
	}
	if n := titled("Bad key"); n != 0 {
		t.Errorf("bad keys created %d events", n)
	}
}
