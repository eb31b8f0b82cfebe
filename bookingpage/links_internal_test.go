package bookingpage

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSigner_Check(t *testing.T) {
	t.Parallel()
	key := []byte(strings.Repeat("k", 32))
	s := signer{key: key}
	now := time.Unix(1_900_000_000, 0)
	claims := linkClaims{Purpose: purposeCancel, AppID: "app_1", BookingID: "bk_1", Expires: now.Add(time.Hour)}
	tok := s.sign(claims)
	payload, mac, _ := strings.Cut(tok, ".")
	flip := func(s string) string {
		b := []byte(s)
		if b[3] == 'A' {
			b[3] = 'B'
		} else {
			b[3] = 'A'
		}
		return string(b)
	}
	otherApp := s.sign(linkClaims{Purpose: purposeCancel, AppID: "app_2", BookingID: "bk_1", Expires: now.Add(time.Hour)})
	otherPayload, _, _ := strings.Cut(otherApp, ".")
	for _, tc := range []struct {
		name    string
		signer  signer
		token   string
		purpose purpose
		at      time.Time
		want    *linkClaims
		wantErr error
	}{
		{name: "OK", signer: s, token: tok, purpose: purposeCancel, at: now, want: &claims},
		{name: "ErrWrongPurpose", signer: s, token: tok, purpose: purposeReschedule, at: now, wantErr: errLinkInvalid},
		{name: "ErrViewLinkCannotCancel", signer: s, token: s.sign(linkClaims{Purpose: purposeView, AppID: "app_1", BookingID: "bk_1", Expires: now.Add(time.Hour)}), purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
		{name: "ErrExpired", signer: s, token: tok, purpose: purposeCancel, at: now.Add(time.Hour), wantErr: errLinkExpired},
		{name: "ErrTamperedPayload", signer: s, token: flip(payload) + "." + mac, purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
		{name: "ErrSwappedPayload", signer: s, token: otherPayload + "." + mac, purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
		{name: "ErrTamperedMAC", signer: s, token: payload + "." + flip(mac), purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
		{name: "ErrOtherKey", signer: signer{key: []byte(strings.Repeat("x", 32))}, token: tok, purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
		{name: "ErrNoMAC", signer: s, token: payload, purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
		{name: "ErrGarbage", signer: s, token: "not a link!.!", purpose: purposeCancel, at: now, wantErr: errLinkInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.signer.check(tc.token, tc.purpose, tc.at)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("check() error = %v, want %v", err, tc.wantErr)
			}
			if tc.want != nil {
				want := *tc.want
				want.Expires = want.Expires.Truncate(time.Second)
				if diff := cmp.Diff(&want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
					t.Errorf("check() mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestHoldCounter(t *testing.T) {
	t.Parallel()
	c := newHoldCounter(2)
	now := time.Unix(1_900_000_000, 0)
	a, b := mustAddr("192.0.2.1"), mustAddr("192.0.2.2")
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"first hold", func() bool { return c.reserve(a, "p1", now.Add(time.Minute), now) }, true},
		{"second hold", func() bool {
			c.settle(a, "p1", "hold_1", now.Add(time.Minute))
			return c.reserve(a, "p2", now.Add(time.Minute), now)
		}, true},
		{"third refused", func() bool {
			c.settle(a, "p2", "hold_2", now.Add(2*time.Minute))
			return c.reserve(a, "p3", now.Add(time.Minute), now)
		}, false},
		{"another address", func() bool { return c.reserve(b, "p4", now.Add(time.Minute), now) }, true},
		{"after a booking", func() bool { c.release(a, "hold_1"); return c.reserve(a, "p5", now.Add(time.Minute), now) }, true},
		{"full again", func() bool {
			c.settle(a, "p5", "", time.Time{})
			c.settle(a, "x", "hold_3", now.Add(time.Minute))
			return c.reserve(a, "p6", now, now)
		}, false},
		{"after expiry", func() bool { return c.reserve(a, "p7", now.Add(2*time.Minute), now.Add(90*time.Second)) }, true},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: reserve = %v, want %v", s.name, got, s.want)
		}
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }
