package identity

import (
	"encoding/base64"
	"testing"
)

// FuzzDecodeIDToken reads arbitrary ID tokens: the token endpoint's
// answer is outside input, and DecodeIDToken must not panic on any of
// it, and what it accepts must name the client in its audience.
func FuzzDecodeIDToken(f *testing.F) {
	enc := base64.RawURLEncoding.EncodeToString
	f.Add("h." + enc([]byte(`{"aud":"c","oid":"o","tid":"t","preferred_username":"a@b"}`)) + ".s")
	f.Add("h." + enc([]byte(`{"aud":["c"],"sub":"1","email_verified":"true"}`)) + ".s")
	f.Add("h." + enc([]byte(`{"aud":{}}`)) + ".s")
	f.Add("..")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := DecodeIDToken(raw, "c")
		if err != nil {
			return
		}
		found := false
		for _, a := range c.Audience {
			found = found || a == "c"
		}
		if !found {
			t.Fatalf("accepted a token for audience %q", c.Audience)
		}
	})
}
