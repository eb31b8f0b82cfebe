package httpapi_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/testkit/apitest"
)

// TestBookingTypePublishingE2E publishes booking types over /v1 with the
// Go client: public, slug and frameAncestors round-trip (origins
// normalized), a taken slug is 409 naming slug, a bad slug or origin 400
// naming its field, and null frees a slug for another type.
func TestBookingTypePublishingE2E(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	c := bookingClient(t, st)
	ctx := t.Context()
	var host unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "host@example.com", "providerType": "VIRTUAL"}).Into(t, &host)
	params := func(name, slug string) *booking.BookingTypeParams {
		return &booking.BookingTypeParams{Name: unical.Some(name), DurationMinutes: unical.Some(30), Participants: unical.Some(hostParticipant(host.ID)),
			Public: unical.Some(true), Slug: unical.Some(slug), FrameAncestors: unical.Some([]string{"https://WWW.example.com:8443"})}
	}
	a, err := c.CreateBookingType(ctx, params("A", "intro"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetBookingType(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{true, "intro", []string{"https://www.example.com:8443"}}, []any{got.Public, got.Slug, got.FrameAncestors}); diff != "" {
		t.Errorf("published fields mismatch (-want +got):\n%s", diff)
	}
	wantErr := func(what string, err error, code unical.Code, field string) {
		t.Helper()
		var e *unical.Error
		if !errors.As(err, &e) || e.Code != code || e.Field != field {
			t.Errorf("%s: %v, want %s naming %s", what, err, code, field)
		}
	}
	_, err = c.CreateBookingType(ctx, params("B", "intro"))
	wantErr("a taken slug", err, unical.CodeConflict, "slug")
	_, err = c.CreateBookingType(ctx, params("B", "Intro Call"))
	wantErr("a bad slug", err, unical.CodeInvalid, "slug")
	bad := params("B", "intro-b")
	bad.FrameAncestors = unical.Some([]string{"https://example.com/path"})
	_, err = c.CreateBookingType(ctx, bad)
	wantErr("an origin with a path", err, unical.CodeInvalid, "frameAncestors")
	_, err = c.UpdateBookingType(ctx, a.ID, &booking.BookingTypeParams{Slug: unical.Null[string]()})
	wantErr("null slug of a public type", err, unical.CodeInvalid, "slug")
	if _, err := c.UpdateBookingType(ctx, a.ID, &booking.BookingTypeParams{Public: unical.Some(false), Slug: unical.Null[string](), FrameAncestors: unical.Null[[]string]()}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateBookingType(ctx, params("B", "intro")); err != nil {
		t.Errorf("the slug A freed: %v", err)
	}
}
