// Package apisuite is one test suite of the application API (unical.API),
// written once and run against each implementation: the in-process
// *unical.App and the HTTP client of package httpclient over a real
// httpapi server. Both run the same calls with the same expectations, so
// the remote API cannot drift from the in-process one. The calendars
// behind it are provider/memory's, whose ids hold '/', '@' and '+',
// so the suite also proves that ids survive URL paths.
package apisuite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/rooms"
	"github.com/unical/unical/series"
	"github.com/unical/unical/subscriptions"
)

// Target returns the API of application appID, whose API key is apiKey,
// served by st.
type Target func(t *testing.T, st *apitest.Stack, appID, apiKey string) API

// API is what the suite calls: the application API, and beside it the
// webhook subscriptions (package subscriptions'), their delivery log
// (package engine's), the room directory (package rooms') and the scoped
// event writes (package series'), which the HTTP client has as methods of
// its own.
type API interface {
	unical.API
	series.API
	subscriptions.API
	engine.DeliveryLog
	rooms.Lister
}

// Test users of the in-memory providers.
const (
	googleUser    = "ada@example.com"
	googleToken   = "refresh-ada"
	outlookUser   = "grace@example.com"
	outlookToken  = "refresh-grace"
	davUser       = "alan@example.com"
	davPassword   = "app-specific-1"
	davUser2      = "bob@example.com"
	davPassword2  = "app-specific-2"
	webhookTarget = "https://hooks.example.com/unical"
)

// env is one test's world: a fresh server with one application's API and a
// second application's, for the tenancy checks.
type env struct {
	t     *testing.T
	ctx   context.Context
	api   API
	other API
	// primary is each provider type's first user's primary calendar.
	primary map[unical.ProviderType]string
}

func newEnv(t *testing.T, target Target) *env {
	t.Helper()
	e := &env{t: t, ctx: t.Context(), primary: map[unical.ProviderType]string{}}
	var providers []unical.Provider
	users := map[unical.ProviderType][3]string{
		unical.ProviderGoogle:    {googleUser, googleToken, ""},
		unical.ProviderMicrosoft: {outlookUser, outlookToken, ""},
		unical.ProviderCalDAV:    {davUser, "", davPassword},
	}
	for _, typ := range unical.ProviderTypes {
		if typ == unical.ProviderVirtual {
			continue // the stack adds the real one (provider/virtual)
		}
		p := memory.New(memory.Config{Type: typ})
		u := users[typ]
		e.primary[typ] = p.AddUser(u[0], u[1], u[2])
		if typ == unical.ProviderCalDAV {
			p.AddUser(davUser2, "", davPassword2)
		}
		providers = append(providers, p)
	}
	// The production address policy, whose webhook URL refusals the
	// suite checks; the memory providers need no URL.
	st := apitest.Start(t, providers, func(cfg *apitest.Config) { cfg.AllowPrivateTargets = false })
	id, key := st.CreateApp(t, &admin.ApplicationParams{})
	e.api = target(t, st, id, key)
	otherID, otherKey := st.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("other")})
	e.other = target(t, st, otherID, otherKey)
	return e
}

// Run runs the suite against target.
func Run(t *testing.T, target Target) {
	for _, tc := range []struct {
		name string
		run  func(*env)
	}{
		{"Accounts", testAccounts},
		{"AccountErrors", testAccountErrors},
		{"Calendars", testCalendars},
		{"Events", testEvents},
		{"EventListings", testEventListings},
		{"EventErrors", testEventErrors},
		{"RSVP", testRSVP},
		{"FreeBusy", testFreeBusy},
		{"Availability", testAvailability},
		{"Capabilities", testCapabilities},
		{"Subscriptions", testSubscriptions},
		{"ForeignIDs", testForeignIDs},
		{"Idempotency", testIdempotency},
		{"Rooms", testRooms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if v := recover(); v != nil {
					f, ok := v.(failure)
					if !ok {
						panic(v)
					}
					t.Fatal(f.msg)
				}
			}()
			tc.run(newEnv(t, target))
		})
	}
}

// equate treats nil and empty slices and maps alike: JSON cannot tell an
// empty list the server left out from one it wrote as [].
var equate = cmpopts.EquateEmpty()

// failure is must's panic, turned into a test failure by Run.
type failure struct{ msg string }

// must returns v, or ends the test when err is not nil; it is called as
// must(e.api.GetAccount(...)), which Go allows only without other
// arguments, so it stops the test by a panic that Run recovers.
func must[T any](v T, err error) T {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		panic(failure{fmt.Sprintf("%s:%d: unexpected error: %v", filepath.Base(file), line, err)})
	}
	return v
}

// wantError checks that err is a *unical.Error with want's Code, Field
// and Allowed, and a message.
func wantError(tb testing.TB, what string, err error, want *unical.Error) {
	tb.Helper()
	var got *unical.Error
	if !errors.As(err, &got) {
		tb.Errorf("%s: error %v (%T), want a *unical.Error %s", what, err, err, want.Code)
		return
	}
	type view struct {
		Code    unical.Code
		Field   string
		Allowed []string
	}
	if diff := cmp.Diff(view{want.Code, want.Field, want.Allowed}, view{got.Code, got.Field, got.Allowed}, equate); diff != "" {
		tb.Errorf("%s: error mismatch (-want +got):\n%s", what, diff)
	}
	if got.Message == "" {
		tb.Errorf("%s: error without a message", what)
	}
}

// collect gathers an iterator's elements, failing on its error.
func collect[T any](tb testing.TB, seq func(func(T, error) bool)) []T {
	tb.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			tb.Fatalf("iteration failed: %v", err)
		}
		out = append(out, v)
	}
	return out
}

func (e *env) connect() map[unical.ProviderType]*unical.Account {
	e.t.Helper()
	accts := map[unical.ProviderType]*unical.Account{}
	for _, p := range []*unical.AccountCreateParams{
		{Email: googleUser, ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some(googleToken), ExternalID: unical.Some("user-1")},
		{Email: outlookUser, ProviderType: unical.ProviderMicrosoft, RefreshToken: unical.Some(outlookToken)},
		{Email: davUser, ProviderType: unical.ProviderCalDAV, Password: unical.Some(davPassword)},
	} {
		accts[p.ProviderType] = must(e.api.CreateAccount(e.ctx, p))
	}
	return accts
}
