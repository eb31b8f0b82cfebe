package apisuite

import (
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// testIdempotency checks WriteOptions.IdempotencyKey on the write methods: the
// in-process App runs App.Idempotency itself, httpclient sends the key
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
	key := unical.WriteOptions{IdempotencyKey: "create-review"}
	first := must(e.api.CreateEvent(e.ctx, acct.ID, cal, params("Review"), key))
	again := must(e.api.CreateEvent(e.ctx, acct.ID, cal, params("Review"), key))
	if d := cmp.Diff(first, again, equate); d != "" {
		t.Errorf("retried CreateEvent differs from the first (-first +retry):\n%s", d)
	}
	if n := titled("Review"); n != 1 {
		t.Errorf("%d Review events after a create and its retry, want 1", n)
	}

	// The same key with other arguments, or another method, is refused.
	_, err := e.api.CreateEvent(e.ctx, acct.ID, cal, params("Other"), key)
	wantError(t, "CreateEvent with a reused key", err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})
	_, err = e.api.DeleteEvent(e.ctx, acct.ID, cal, first.ID, key)
	wantError(t, "DeleteEvent with a reused key", err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})
	if n := titled("Other"); n != 0 {
		t.Errorf("a refused reuse created %d events", n)
	}

	// So is the same key with other options, which travel as query
	// parameters over HTTP: a create that emails no attendee is not the
	// retry of one that does, nor of one that leaves it to the provider.
	no, yes := false, true
	quiet := unical.WriteOptions{IdempotencyKey: "create-quiet", NotifyAttendees: &no}
	firstQuiet := must(e.api.CreateEvent(e.ctx, acct.ID, cal, params("Quiet"), quiet))
	if again := must(e.api.CreateEvent(e.ctx, acct.ID, cal, params("Quiet"), quiet)); again.ID != firstQuiet.ID {
		t.Errorf("retried CreateEvent with notifyAttendees=false made %s, want the first's %s", again.ID, firstQuiet.ID)
	}
	for _, c := range []struct {
		name string
		opts unical.WriteOptions
	}{
		{"notifyAttendees=true", unical.WriteOptions{IdempotencyKey: "create-quiet", NotifyAttendees: &yes}},
		{"no notifyAttendees", unical.WriteOptions{IdempotencyKey: "create-quiet"}},
	} {
		_, err := e.api.CreateEvent(e.ctx, acct.ID, cal, params("Quiet"), c.opts)
		wantError(t, "CreateEvent with the key of a notifyAttendees=false create and "+c.name, err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})
	}
	if n := titled("Quiet"); n != 1 {
		t.Errorf("%d Quiet events after a create, its retry and two refused reuses, want 1", n)
	}
	dav := accts[unical.ProviderCalDAV]
	keepGrant := unical.WriteOptions{IdempotencyKey: "delete-keep-grant", KeepGrant: true}
	for i := range 2 {
		if res := must(e.api.DeleteAccount(e.ctx, dav.ID, keepGrant)); !res.OK {
			t.Errorf("DeleteAccount with revokeGrant=false #%d = %+v", i+1, res)
		}
	}
	_, err = e.api.DeleteAccount(e.ctx, dav.ID, unical.WriteOptions{IdempotencyKey: "delete-keep-grant"})
	wantError(t, "DeleteAccount with the key of a revokeGrant=false delete and no revokeGrant", err, &unical.Error{Code: unical.CodeKeyReused, Field: "Idempotency-Key"})

	// Another application's same key is its own.
	_, err = e.other.CreateEvent(e.ctx, acct.ID, cal, params("Review"), key)
	wantError(t, "another application's create with the same key", err, &unical.Error{Code: unical.CodeNotFound})

	// A delete's retry is its kept success; a kept 404 is replayed as the
	// same error.
	delKey := unical.WriteOptions{IdempotencyKey: "delete-review"}
	for i := range 2 {
		if res := must(e.api.DeleteEvent(e.ctx, acct.ID, cal, first.ID, delKey)); !res.Success {
			t.Errorf("DeleteEvent #%d = %+v", i+1, res)
		}
	}
	missKey := unical.WriteOptions{IdempotencyKey: "update-missing"}
	for range 2 {
		_, err := e.api.UpdateEvent(e.ctx, acct.ID, cal, first.ID, params("Gone"), missKey)
		wantError(t, "UpdateEvent of a deleted event", err, &unical.Error{Code: unical.CodeNotFound})
	}

	// A refused request frees its key: fixed, it runs.
	fixKey := unical.WriteOptions{IdempotencyKey: "fix-me"}
	_, err = e.api.CreateEvent(e.ctx, acct.ID, cal, &unical.EventParams{Title: unical.Some("No start")}, fixKey)
	wantError(t, "CreateEvent without start", err, &unical.Error{Code: unical.CodeInvalid, Field: "start"})
	if fixed := must(e.api.CreateEvent(e.ctx, acct.ID, cal, params("Fixed"), fixKey)); fixed.Title != "Fixed" {
		t.Errorf("the fixed create = %+v", fixed)
	}

	for _, bad := range []string{"has space", strings.Repeat("k", 256), "naïve"} {
		_, err := e.api.CreateEvent(e.ctx, acct.ID, cal, params("Bad key"), unical.WriteOptions{IdempotencyKey: bad})
		wantError(t, "CreateEvent with key "+bad, err, &unical.Error{Code: unical.CodeInvalid, Field: "Idempotency-Key"})
	}
	if n := titled("Bad key"); n != 0 {
		t.Errorf("bad keys created %d events", n)
	}
}
