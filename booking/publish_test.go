package booking_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/testkit/apitest"
)

func TestCheckSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		slug string
		ok   bool
	}{
		{"intro-call", true},
		{"a1b", true},
		{"30min", true},
		{strings.Repeat("a", 64), true},
		{"ab", false},
		{strings.Repeat("a", 65), false},
		{"Intro", false},
		{"-intro", false},
		{"intro-", false},
		{"intro_call", false},
		{"intro call", false},
		{"intro/call", false},
		{"ïntro", false},
		{"", false},
	} {
		err := booking.CheckSlug(tc.slug)
		if (err == nil) != tc.ok {
			t.Errorf("CheckSlug(%q) = %v, want ok %v", tc.slug, err, tc.ok)
		}
		if err != nil {
			wantCode(t, "CheckSlug("+tc.slug+")", err, unical.CodeInvalid, "slug")
		}
	}
}

func TestBookingType_Publishing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acc := e.host(t, "pub")
	base := func() *booking.BookingTypeParams {
		return &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(acc))}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*booking.BookingTypeParams)
		field string
		want  []string
	}{
		{name: "ErrPublicWithoutSlug", edit: func(p *booking.BookingTypeParams) { p.Public = unical.Some(true) }, field: "slug"},
		{name: "ErrBadSlug", edit: func(p *booking.BookingTypeParams) { p.Slug = unical.Some("No Spaces") }, field: "slug"},
		{name: "ErrNullPublic", edit: func(p *booking.BookingTypeParams) { p.Public = unical.Null[bool]() }, field: "public"},
		{name: "ErrPathInOrigin", edit: func(p *booking.BookingTypeParams) {
			p.FrameAncestors = unical.Some([]string{"https://example.com/page"})
		}, field: "frameAncestors"},
		{name: "ErrDirectiveInOrigin", edit: func(p *booking.BookingTypeParams) {
			p.FrameAncestors = unical.Some([]string{"https://example.com; script-src *"})
		}, field: "frameAncestors"},
		{name: "ErrNotAnOrigin", edit: func(p *booking.BookingTypeParams) { p.FrameAncestors = unical.Some([]string{"*"}) }, field: "frameAncestors"},
		{name: "ErrFTP", edit: func(p *booking.BookingTypeParams) { p.FrameAncestors = unical.Some([]string{"ftp://example.com"}) }, field: "frameAncestors"},
		{name: "OriginsNormalized", edit: func(p *booking.BookingTypeParams) {
			p.FrameAncestors = unical.Some([]string{"https://WWW.Example.com", "http://localhost:8080", "https://*.example.org", "'self'"})
		}, want: []string{"https://www.example.com", "http://localhost:8080", "https://*.example.org", "'self'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			tc.edit(p)
			bt, err := e.svc.CreateBookingType(t.Context(), p)
			if tc.field != "" {
				wantCode(t, "CreateBookingType", err, unical.CodeInvalid, tc.field)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, bt.FrameAncestors); diff != "" {
				t.Errorf("frameAncestors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// clock is a Client clock a test moves on.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

// TestBookingType_SlugUniqueOnServer checks that a slug is one type's on
// the whole server: another application's type is refused it (409 naming
// slug) while its holder has it, and gets it once the holder lets go
// (a new slug, a deleted type, a deleted application); LookupSlug finds
// only a public type at its slug, with the same error for every miss.
func TestBookingType_SlugUniqueOnServer(t *testing.T) {
	t.Parallel()
	var clk clock
	st := apitest.Start(t, nil, func(cfg *apitest.Config) { cfg.Now = clk.now; cfg.ChangePollInterval = -1 })
	newApp := func(name string) (*booking.Service, string, string) {
		created, err := st.Admin.CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some(name)})
		if err != nil {
			t.Fatal(err)
		}
		app, err := st.Client.App(t.Context(), created.ApplicationID)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: name + "@example.com", ProviderType: unical.ProviderVirtual})
		if err != nil {
			t.Fatal(err)
		}
		return booking.New(st.Client, app), acc.ID, created.ApplicationID
	}
	svcA, accA, appA := newApp("a")
	svcB, accB, _ := newApp("b")
	params := func(acc, slug string, public bool) *booking.BookingTypeParams {
		return &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(30),
			Participants: unical.Some(required(acc)), Slug: unical.Some(slug), Public: unical.Some(public)}
	}
	ctx := t.Context()
	lookup := func(slug string) string {
		t.Helper()
		p, err := booking.LookupSlug(ctx, st.Client, slug)
		if err != nil {
			wantCode(t, "LookupSlug("+slug+")", err, unical.CodeNotFound, "")
			if got := unical.ErrorMessage(err); got != "No booking page here." {
				t.Errorf("LookupSlug(%s) says %q, the same for every miss expected", slug, got)
			}
			return ""
		}
		return p.Type.ID
	}

	a, err := svcA.CreateBookingType(ctx, params(accA, "intro", true))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svcB.CreateBookingType(ctx, params(accB, "intro", true))
	wantCode(t, "another application's type on a taken slug", err, unical.CodeConflict, "slug")
	b, err := svcB.CreateBookingType(ctx, params(accB, "intro-b", false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Slug: unical.Some("intro")})
	wantCode(t, "update to a taken slug", err, unical.CodeConflict, "slug")
	if got := lookup("intro"); got != a.ID {
		t.Errorf("LookupSlug(intro) = %q, want %s", got, a.ID)
	}
	// Not public, unknown, malformed: the same not-found.
	for _, slug := range []string{"intro-b", "no-such-page", "Bad Slug"} {
		if got := lookup(slug); got != "" {
			t.Errorf("LookupSlug(%s) = %s, want not found", slug, got)
		}
	}
	// Re-sending its own slug keeps it; a type keeps it when other fields change.
	if _, err := svcA.UpdateBookingType(ctx, a.ID, &booking.BookingTypeParams{Slug: unical.Some("intro"), Name: unical.Some("Intro call")}); err != nil {
		t.Fatal(err)
	}

	// A moves to another slug: intro is free for B, and A's new slug works.
	if _, err := svcA.UpdateBookingType(ctx, a.ID, &booking.BookingTypeParams{Slug: unical.Some("intro-a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Slug: unical.Some("intro"), Public: unical.Some(true)}); err != nil {
		t.Fatalf("B takes the slug A left: %v", err)
	}
	if got := lookup("intro"); got != b.ID {
		t.Errorf("LookupSlug(intro) = %q, want B's %s", got, b.ID)
	}
	if got := lookup("intro-a"); got != a.ID {
		t.Errorf("LookupSlug(intro-a) = %q, want %s", got, a.ID)
	}

	// Unpublishing hides the page; a null slug frees it.
	if _, err := svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Public: unical.Some(false)}); err != nil {
		t.Fatal(err)
	}
	if got := lookup("intro"); got != "" {
		t.Errorf("LookupSlug(intro) of an unpublished type = %s, want not found", got)
	}
	if _, err := svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Slug: unical.Null[string]()}); err != nil {
		t.Fatal(err)
	}
	if _, err := svcA.UpdateBookingType(ctx, a.ID, &booking.BookingTypeParams{Slug: unical.Some("intro")}); err != nil {
		t.Fatalf("A takes back the slug B freed: %v", err)
	}

	// A deleted type frees its slug at once.
	if _, err := svcA.DeleteBookingType(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Slug: unical.Some("intro")}); err != nil {
		t.Fatalf("B takes the slug of a deleted type: %v", err)
	}

	// A deleted application leaves its slugs' index records behind; they
	// are stale and taken over after the grace of a minute.
	c, err := svcA.CreateBookingType(ctx, params(accA, "team", true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Admin.DeleteApplication(ctx, appA, true); err != nil {
		t.Fatal(err)
	}
	if got := lookup("team"); got != "" {
		t.Errorf("LookupSlug(team) of a deleted application's type %s = %s, want not found", c.ID, got)
	}
	_, err = svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Slug: unical.Some("team")})
	wantCode(t, "a stale slug within its grace", err, unical.CodeConflict, "slug")
	clk.advance(2 * time.Minute)
	if _, err := svcB.UpdateBookingType(ctx, b.ID, &booking.BookingTypeParams{Slug: unical.Some("team")}); err != nil {
		t.Fatalf("B takes a deleted application's slug: %v", err)
	}
}
