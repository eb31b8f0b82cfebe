package unical_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
)

// TestIdempotencyCodes checks that the codes package idempotency makes and
// keeps, which it spells as strings because it does not import the root,
// are the root's codes.
func TestIdempotencyCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		theirs string
		ours   unical.Code
	}{
		{idempotency.CodeInvalid, unical.CodeInvalid},
		{idempotency.CodeConflict, unical.CodeConflict},
		{idempotency.CodeKeyReused, unical.CodeKeyReused},
		{idempotency.CodeRateLimited, unical.CodeRateLimited},
		{idempotency.CodeInternal, unical.CodeInternal},
	} {
		if unical.Code(tc.theirs) != tc.ours {
			t.Errorf("idempotency's code %q, want %q", tc.theirs, tc.ours)
		}
	}
	for _, tc := range []struct {
		code unical.Code
		kept bool
	}{
		{"", true},
		{unical.CodeNotFound, true},
		{unical.CodeConflict, true},
		{unical.CodePrecondition, true},
		{unical.CodeGone, true},
		{unical.CodeSlotUnavailable, true},
		{unical.CodeLimitReached, true},
		{unical.CodeInvalid, false},
		{unical.CodeAccountExpired, false},
		{unical.CodeKeyReused, false},
		{unical.CodeRateLimited, false},
		{unical.CodeTooLarge, false},
		{unical.CodeStoreUnavailable, false},
	} {
		if got := idempotency.Keeps(string(tc.code)); got != tc.kept {
			t.Errorf("Keeps(%q) = %v, want %v", tc.code, got, tc.kept)
		}
	}
}
