package identity_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/identity"
)

// jwt makes an unsigned-looking compact JWS with payload as its claims.
func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc([]byte(payload)) + "." + enc([]byte("signature"))
}

func TestDecodeIDToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		want    *identity.Claims
		wantErr bool
	}{
		{"Microsoft", jwt(`{"aud":"client-1","iss":"https://login.microsoftonline.com/t-1/v2.0","oid":"o-1","tid":"t-1","sub":"pairwise","preferred_username":"ada@contoso.com","ver":"2.0"}`),
			&identity.Claims{Issuer: "https://login.microsoftonline.com/t-1/v2.0", Audience: identity.Audience{"client-1"}, Subject: "pairwise", ObjectID: "o-1", TenantID: "t-1", PreferredUsername: "ada@contoso.com"}, false},
		{"GoogleAudienceArray", jwt(`{"aud":["other","client-1"],"sub":"1234","email":"a@b.c","email_verified":true}`),
			&identity.Claims{Audience: identity.Audience{"other", "client-1"}, Subject: "1234", Email: "a@b.c", EmailVerified: true}, false},
		{"EmailVerifiedString", jwt(`{"aud":"client-1","email_verified":"true"}`), &identity.Claims{Audience: identity.Audience{"client-1"}, EmailVerified: true}, false},
		{"EmailVerifiedFalse", jwt(`{"aud":"client-1","email_verified":false}`), &identity.Claims{Audience: identity.Audience{"client-1"}}, false},
		{"ErrOtherAudience", jwt(`{"aud":"client-2","sub":"1"}`), nil, true},
		{"ErrNoAudience", jwt(`{"sub":"1"}`), nil, true},
		{"ErrTwoParts", "a.b", nil, true},
		{"ErrNotBase64", "a.!!!.c", nil, true},
		{"ErrNotJSON", jwt(`not json`), nil, true},
		{"ErrBadBool", jwt(`{"aud":"client-1","email_verified":1}`), nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := identity.DecodeIDToken(tc.raw, "client-1")
			if (err != nil) != tc.wantErr {
				t.Fatalf("DecodeIDToken() error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeIDToken() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClaims_Userinfo(t *testing.T) {
	t.Parallel()
	// Google's userinfo answer is the same claims as plain JSON.
	var got identity.Claims
	if err := json.Unmarshal([]byte(`{"sub":"110169484474386276334","email":"ada@example.com","email_verified":true,"name":"Ada"}`), &got); err != nil {
		t.Fatal(err)
	}
	want := identity.Claims{Subject: "110169484474386276334", Email: "ada@example.com", EmailVerified: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("userinfo claims mismatch (-want +got):\n%s", diff)
	}
}

func TestBind(t *testing.T) {
	t.Parallel()
	ms := identity.Subject{ID: "oid-ada", Tenant: "tid-contoso"}
	tests := []struct {
		name    string
		stored  identity.Subject
		email   string
		got     identity.Subject
		names   []string
		want    identity.Subject
		wantErr error
	}{
		{"SameSubject", ms, "ada@contoso.com", ms, nil, ms, nil},
		{"NoSubjectKeepsBinding", ms, "ada@contoso.com", identity.Subject{}, nil, ms, nil},
		{"OldAccountTakesTenant", identity.Subject{ID: "oid-ada"}, "ada@contoso.com", ms, nil, ms, nil},
		{"UnknownTenantKeepsStored", ms, "ada@contoso.com", identity.Subject{ID: "oid-ada"}, nil, ms, nil},
		{"UnboundBindsVerifiedName", identity.Subject{}, "Ada@Contoso.com", ms, []string{"ada@contoso.com"}, ms, nil},
		{"ErrUnboundUnverifiedName", identity.Subject{}, "ada@contoso.com", ms, []string{"mallory@evil.test"}, identity.Subject{}, identity.ErrOtherSubject},
		{"ErrOtherID", ms, "ada@contoso.com", identity.Subject{ID: "oid-mallory", Tenant: "tid-evil"}, []string{"ada@contoso.com"}, ms, identity.ErrOtherSubject},
		{"ErrSameIDOtherTenant", ms, "ada@contoso.com", identity.Subject{ID: "oid-ada", Tenant: "tid-evil"}, nil, ms, identity.ErrOtherSubject},
		{"ErrGoogleOtherSub", identity.Subject{ID: "1001"}, "ada@example.com", identity.Subject{ID: "2002"}, []string{"ada@example.com"}, identity.Subject{ID: "1001"}, identity.ErrOtherSubject},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := identity.Bind(tc.stored, tc.email, tc.got, tc.names)
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("Bind() error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Bind() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
