package keys_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical/keys"
)

// TestKeys_BoundToRecord checks that a sealed secret opens for its own
// record under the same master key only.
func TestKeys_BoundToRecord(t *testing.T) {
	t.Parallel()
	k := keys.FromMaster([32]byte{1})
	other := keys.FromMaster([32]byte{2})
	sec := keys.AccountSecrets{AccessToken: "at", RefreshToken: "rt"}
	sealed := k.SealAccount("acc_1", sec)
	got, err := k.OpenAccount("acc_1", sealed)
	if err != nil {
		t.Fatalf("OpenAccount(own) = %v", err)
	}
	if d := cmp.Diff(sec, got); d != "" {
		t.Errorf("OpenAccount(own) mismatch (-want +got):\n%s", d)
	}
	tests := []struct {
		name string
		open func() error
	}{
		{"account moved", func() error { _, err := k.OpenAccount("acc_2", sealed); return err }},
		{"account under another key", func() error { _, err := other.OpenAccount("acc_1", sealed); return err }},
		{"client secret of another type", func() error {
			_, err := k.OpenClientSecret("app_1", "MICROSOFT", k.SealClientSecret("app_1", "GOOGLE", "s"))
			return err
		}},
		{"subscription secret moved", func() error {
			_, err := k.SubscriptionSecret("sub_2", k.SealSubscriptionSecret("sub_1", "whsec_x"))
			return err
		}},
		{"webhook secret of another app", func() error {
			_, sealed := k.NewWebhookSecret("app_1")
			_, err := k.WebhookSecret("app_2", sealed)
			return err
		}},
	}
	for _, tt := range tests {
		if err := tt.open(); err == nil {
			t.Errorf("%s: opened, want an error", tt.name)
		}
	}
	if got, err := k.OpenAccount("acc_1", nil); err != nil || got != (keys.AccountSecrets{}) {
		t.Errorf("OpenAccount(nothing sealed) = %+v, %v; want no secrets", got, err)
	}
}
