package googletest_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"testing"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/unical/unical/internal/testkit/googletest"
)

// jwtErrorCode reads the token endpoint's error from err: package jwt
// leaves it in the body rather than in ErrorCode.
func jwtErrorCode(err error) string {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return ""
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(re.Body, &body) != nil {
		return ""
	}
	return body.Error + ": " + body.Description
}

func rsaKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// TestServiceAccount_JWTBearer mints a user's token with the JWT bearer
// grant as golang.org/x/oauth2/jwt sends it, and uses it on the calendar
// API; the refusals are those of a missing grant, an unknown user and a
// key that is not the service account's.
func TestServiceAccount_JWTBearer(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	key, pemKey := rsaKey(t)
	_, otherPEM := rsaKey(t)
	const saEmail = "unical@corp.iam.gserviceaccount.com"
	f.srv.AddServiceAccount(googletest.ServiceAccount{
		Email: saEmail, ClientID: "1048576", PublicKey: &key.PublicKey,
		Scopes: []string{"https://www.googleapis.com/auth/calendar"},
	})
	config := func(sub string, pemKey []byte, scopes ...string) *jwt.Config {
		return &jwt.Config{Email: saEmail, PrivateKey: pemKey, Subject: sub, Scopes: scopes, TokenURL: f.srv.Endpoint().TokenURL}
	}

	tok, err := config(aliceEmail, pemKey, "https://www.googleapis.com/auth/calendar").TokenSource(t.Context()).Token()
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	if tok.RefreshToken != "" || tok.Expiry.IsZero() {
		t.Errorf("token = refresh %q, expiry %v; want no refresh token and an expiry", tok.RefreshToken, tok.Expiry)
	}
	r := call(t, "GET", f.srv.APIBaseURL()+"/calendars/primary", tok.AccessToken, nil)
	if r.status != http.StatusOK || r.body["id"] != aliceEmail {
		t.Fatalf("GET calendars/primary with the delegated token = %d %v, want alice's calendar", r.status, r.body)
	}
	// The token acts as alice and nobody else: bob's calendar, which
	// alice has no entry for, is as unknown as a missing one (errors
	// guide, 404 notFound).
	if r := call(t, "GET", f.srv.APIBaseURL()+"/calendars/"+bobEmail+"/events", tok.AccessToken, nil); r.status != http.StatusNotFound {
		t.Errorf("GET bob's events with alice's delegated token = %d %v, want 404", r.status, r.body)
	}

	for _, tc := range []struct {
		name   string
		config *jwt.Config
		want   string
	}{
		{"scope not delegated", config(aliceEmail, pemKey, "https://www.googleapis.com/auth/calendar", "https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly"),
			"unauthorized_client: Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested."},
		{"unknown user", config("nobody@example.com", pemKey, "https://www.googleapis.com/auth/calendar"), "invalid_grant: Invalid email or User ID"},
		{"another key", config(aliceEmail, otherPEM, "https://www.googleapis.com/auth/calendar"), "invalid_grant: Invalid JWT Signature."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.config.TokenSource(t.Context()).Token()
			if got := jwtErrorCode(err); got != tc.want {
				t.Errorf("Token error = %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}
