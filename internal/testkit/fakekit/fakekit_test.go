package fakekit_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/fakekit"
)

func TestFaults_MatchInOrderAndUseUpTimes(t *testing.T) {
	t.Parallel()
	var q fakekit.Faults[string]
	q.Add("POST", "/token", 2, "token-down")
	q.Add("", "/calendar/", 1, "calendar-slow")
	q.Add("", "", 1, "anything")

	requests := []struct{ method, path string }{
		{"GET", "/token"},         // wrong method: skips the first, takes "anything"
		{"POST", "/token"},        // token-down (1 of 2)
		{"GET", "/calendar/v3/x"}, // calendar-slow
		{"POST", "/token"},        // token-down (2 of 2)
		{"POST", "/token"},        // nothing left
		{"GET", "/calendar/v3/x"}, // nothing left
	}
	var got []string
	for _, r := range requests {
		f, ok := q.Take(httptest.NewRequest(r.method, r.path, nil))
		if !ok {
			f = "-"
		}
		got = append(got, f)
	}
	want := []string{"anything", "token-down", "calendar-slow", "token-down", "-", "-"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults taken (-want +got):\n%s", diff)
	}

	q.Add("", "", 5, "cleared")
	q.Clear()
	if f, ok := q.Take(httptest.NewRequest("GET", "/", nil)); ok {
		t.Errorf("after Clear, Take = %q, want none", f)
	}
}

func TestRequestLog_CountsByMethodAndPrefix(t *testing.T) {
	t.Parallel()
	var l fakekit.RequestLog
	for _, target := range []string{"/a/1?x=1", "/a/2?x=2", "/b"} {
		l.Record(httptest.NewRequest("GET", target, nil))
	}
	l.Record(httptest.NewRequest("POST", "/a/3?x=3", nil))
	tests := []struct {
		method, prefix string
		want           []string
	}{
		{"", "/a/", []string{"1", "2", "3"}},
		{"GET", "/a/", []string{"1", "2"}},
		{"POST", "", []string{"3"}},
		{"DELETE", "", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, q := range l.Queries(tt.method, tt.prefix) {
			got = append(got, q.Get("x"))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Queries(%q, %q) (-want +got):\n%s", tt.method, tt.prefix, diff)
		}
		if n := l.Count(tt.method, tt.prefix); n != len(tt.want) {
			t.Errorf("Count(%q, %q) = %d, want %d", tt.method, tt.prefix, n, len(tt.want))
		}
	}
}

func TestHold_EndsEarlyOnCancelOrShutdown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	if fakekit.Hold(cancelled, time.Hour, nil) {
		t.Error("Hold on a cancelled request reported the delay passed")
	}
	shutdown := make(chan struct{})
	close(shutdown)
	if fakekit.Hold(httptest.NewRequest("GET", "/", nil), time.Hour, shutdown) {
		t.Error("Hold during shutdown reported the delay passed")
	}
	if !fakekit.Hold(httptest.NewRequest("GET", "/", nil), time.Millisecond, nil) {
		t.Error("Hold of 1ms did not pass")
	}
}

func TestPKCEMatches(t *testing.T) {
	t.Parallel()
	// RFC 7636 Appendix B.
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	tests := []struct {
		method, challenge, verifier string
		want                        bool
	}{
		{"S256", challenge, verifier, true},
		{"S256", challenge, verifier + "x", false},
		{"S256", challenge, "", false},
		{"plain", verifier, verifier, true},
		{"plain", challenge, verifier, false},
	}
	for _, tt := range tests {
		if got := fakekit.PKCEMatches(tt.method, tt.challenge, tt.verifier); got != tt.want {
			t.Errorf("PKCEMatches(%q, %q, %q) = %v, want %v", tt.method, tt.challenge, tt.verifier, got, tt.want)
		}
	}
}

func TestSignJWT_VerifiesWithJWKS(t *testing.T) {
	t.Parallel()
	tok := fakekit.SignJWT(map[string]any{"sub": "123", "aud": "client"})
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("JWT has %d parts, want 3", len(parts))
	}
	var set struct {
		Keys []struct{ Kid, N, E string }
	}
	b, _ := json.Marshal(fakekit.JWKS())
	if err := json.Unmarshal(b, &set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("JWKS = %s, %v", b, err)
	}
	var hdr struct{ Alg, Kid string }
	decodeSegment(t, parts[0], &hdr)
	if hdr.Alg != "RS256" || hdr.Kid != set.Keys[0].Kid {
		t.Errorf("header = %+v, want RS256 with kid %q", hdr, set.Keys[0].Kid)
	}
	n, _ := base64.RawURLEncoding.DecodeString(set.Keys[0].N)
	e, _ := base64.RawURLEncoding.DecodeString(set.Keys[0].E)
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		t.Errorf("signature does not verify with the JWKS key: %v", err)
	}
	var claims map[string]any
	decodeSegment(t, parts[1], &claims)
	if diff := cmp.Diff(map[string]any{"sub": "123", "aud": "client"}, claims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}

	unsigned := strings.Split(fakekit.UnsignedJWT(map[string]any{"sub": "1"}), ".")
	decodeSegment(t, unsigned[0], &hdr)
	if hdr.Alg != "none" || len(unsigned) != 3 || unsigned[2] != "" {
		t.Errorf("UnsignedJWT = %q, want alg none and an empty signature", unsigned)
	}
}

func decodeSegment(t *testing.T, seg string, v any) {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		t.Fatalf("segment %q: %v", seg, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("segment %s: %v", b, err)
	}
}
