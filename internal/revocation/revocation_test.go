package revocation_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/revocation"
	"github.com/unical/unical/internal/seal"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	s := seal.New(seal.NewKey())
	g := revocation.Grant{ProviderType: "provider_a", AccountID: "acc_1", AccessToken: "ya29.access", RefreshToken: "1//refresh"}
	sealed := revocation.Seal(s, "app_1", "msg_1", g)
	for _, secret := range []string{g.AccessToken, g.RefreshToken} {
		if bytes.Contains(sealed, []byte(secret)) {
			t.Errorf("the sealed payload holds %q in plaintext", secret)
		}
	}
	got, err := revocation.Open(s, "app_1", "msg_1", sealed)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(g, got); d != "" {
		t.Errorf("Open() (-want +got):\n%s", d)
	}
	tests := []struct {
		name, appID, messageID string
		sealer                 *seal.Sealer
	}{
		{"another message", "app_1", "msg_2", s},
		{"another application", "app_2", "msg_1", s},
		{"another master key", "app_1", "msg_1", seal.New(seal.NewKey())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := revocation.Open(tc.sealer, tc.appID, tc.messageID, sealed); err == nil {
				t.Error("Open() = nil error, want the payload refused")
			}
		})
	}
}

func TestIsInternal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		eventType string
		want      bool
	}{
		{revocation.EventType, true},
		{"enduseraccount.deleted", false},
		{"calendar.event.changed", false},
		{"unical.internalx", false},
	}
	for _, tc := range tests {
		if got := revocation.IsInternal(tc.eventType); got != tc.want {
			t.Errorf("IsInternal(%q) = %v, want %v", tc.eventType, got, tc.want)
		}
	}
}
