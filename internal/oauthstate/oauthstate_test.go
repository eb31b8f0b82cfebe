package oauthstate_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/oauthstate"
	"github.com/unical/unical/internal/seal"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	key := seal.NewKey()
	s := seal.New(key)
	f := oauthstate.New()
	f.ApplicationID, f.ProviderType, f.RedirectHash = "app_1", "PROVIDER_A", oauthstate.RedirectHash("https://app.example.com/back")
	f.State, f.LoginHint, f.ExpiresAt = strings.Repeat("s", 2048), "ada@example.com", time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	state := oauthstate.Seal(s, f)
	got, err := oauthstate.Open(s, state)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(f, got); d != "" {
		t.Errorf("Open(Seal(f)) mismatch (-want +got):\n%s", d)
	}
	if oauthstate.New().ID == f.ID || oauthstate.New().Verifier == f.Verifier {
		t.Error("two flows share an id or a verifier")
	}

	raw, _ := base64.RawURLEncoding.DecodeString(state)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)/2] ^= 1
	for name, bad := range map[string]struct {
		sealer *seal.Sealer
		state  string
	}{
		"OtherKey":  {seal.New(seal.NewKey()), state},
		"Tampered":  {s, base64.RawURLEncoding.EncodeToString(flipped)},
		"Truncated": {s, state[:len(state)-3]},
		"Empty":     {s, ""},
		"NotBase64": {s, "not a state!"},
		"OtherSeal": {s, s.SealString([]byte("flow_1"), []byte("state"))},
	} {
		if _, err := oauthstate.Open(bad.sealer, bad.state); !errors.Is(err, oauthstate.ErrInvalid) {
			t.Errorf("Open(%s) = %v, want ErrInvalid", name, err)
		}
	}
}
