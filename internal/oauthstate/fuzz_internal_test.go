package oauthstate

import (
	"testing"

	"github.com/unical/unical/internal/seal"
)

// FuzzOpen reads arbitrary sealed contents: a state value is outside input,
// and although only our key seals what Open parses, the parser must not
// panic or read past its input on any bytes, and what it accepts must seal
// and open again to the same flow.
func FuzzOpen(f *testing.F) {
	s := seal.New(seal.NewKey())
	good := New()
	good.ApplicationID, good.ProviderType, good.State = "app_1", "PROVIDER_A", "xyz"
	opened, err := s.OpenString(Seal(s, good), ad)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(opened)
	f.Add([]byte{version})
	f.Add([]byte{version, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, plain []byte) {
		flow, err := Open(s, s.SealString(plain, ad))
		if err != nil {
			return
		}
		again, err := Open(s, Seal(s, flow))
		if err != nil {
			t.Fatalf("a flow Open accepted does not open again: %v", err)
		}
		if again.ID != flow.ID || again.State != flow.State || again.LoginHint != flow.LoginHint || string(again.Verifier) != string(flow.Verifier) || !again.ExpiresAt.Equal(flow.ExpiresAt) {
			t.Fatalf("flow changed through Seal and Open: %+v != %+v", again, flow)
		}
	})
}
