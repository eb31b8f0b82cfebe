package unical

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/pagetoken"
	"github.com/unical/unical/internal/seal"
)

// fuzzTokenKey is fixed so that tokens sealed while collecting the seed
// corpus still open in the fuzzing workers, which are other processes.
var fuzzTokenKey = seal.Key{1, 2, 3, 4, 5, 6, 7, 8}

func fuzzApp(id string) *App {
	return &App{c: &Client{pages: pagetoken.New(seal.New(fuzzTokenKey.Derive("tokens")), nil, nil)}, id: id}
}

// fuzzIssued are the token payloads the seed tokens carry, as the listings
// seal them; every token that opens must carry one of them.
var fuzzIssued = []pagetoken.Payload{
	{Kind: "events", Scope: "acct-1/cal-1", Cursor: "sync-cursor-1", Saved: json.RawMessage(`{"start":"2026-01-01T00:00:00Z","end":"2026-02-01T00:00:00Z","expand":true}`)},
	{Kind: "events-page", Scope: "acct-1/cal-1", Cursor: "c", After: "page-cursor", Offset: 50, Sync: true, Saved: json.RawMessage(`{}`)},
	{Kind: "events", Scope: "acct-1/cal-1", Blob: "cursor/0123456789abcdef0123456789abcdef", Saved: json.RawMessage(`{}`)},
	{Kind: "calendars", Scope: "acct-1", Cursor: `{"cal-1":"etag-1"}`},
	{Kind: "calendars-page", Scope: "acct-1", After: "sync", Offset: 100},
	{Kind: "accounts", Scope: "", After: "acct-9"},
	{Kind: "webhooks", Scope: "", After: "sub-3"},
}

// FuzzOpenToken presents page and sync tokens as a client could send them,
// seeded with tokens this application sealed. Opening must never panic; a
// token that does not open is a 400 naming the parameter; a token that
// opens was sealed by us, carries the kind and scope it is opened for, and
// does not open for another application.
func FuzzOpenToken(f *testing.F) {
	app := fuzzApp("app-1")
	for _, p := range fuzzIssued {
		tok := app.c.pages.Seal(app.id, p)
		if _, err := app.openToken("pageToken", p.Kind, p.Scope, tok); err != nil {
			f.Fatalf("a sealed token does not open: %v", err)
		}
		f.Add(tok, p.Kind, p.Scope)
		f.Add(tok, p.Kind, p.Scope+"x")
		f.Add(tok, "events", "acct-1/cal-1")
		f.Add(tok[:len(tok)-1], p.Kind, p.Scope)
	}
	f.Add("", "events", "acct-1/cal-1")
	f.Add("not a token", "events", "acct-1/cal-1")
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "calendars", "acct-1")
	other := fuzzApp("app-2")
	f.Fuzz(func(t *testing.T, token, kind, scope string) {
		for _, field := range []string{"pageToken", "syncToken"} {
			p, err := app.openToken(field, kind, scope, token)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInvalid || e.Field != field {
					t.Fatalf("openToken error %#v, want CodeInvalid naming %s", err, field)
				}
				continue
			}
			if p.Kind != kind || p.Scope != scope || p.V != pagetoken.Version {
				t.Fatalf("token for kind %q scope %q opened as kind %q scope %q version %d", kind, scope, p.Kind, p.Scope, p.V)
			}
			if !issued(*p) {
				t.Fatalf("token opened to a payload we never sealed: %+v", p)
			}
			if _, err := other.openToken(field, kind, scope, token); err == nil {
				t.Fatalf("a token of app-1 opened for app-2")
			}
		}
	})
}

func issued(p pagetoken.Payload) bool {
	p.V = 0
	for _, q := range fuzzIssued {
		if cmp.Equal(p, q) {
			return true
		}
	}
	return false
}
