package webhook_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical/internal/webhook"
)

// TestSigner_Sign_KnownAnswer is the Svix documentation's example, which
// the Standard Webhooks reference library reproduces.
func TestSigner_Sign_KnownAnswer(t *testing.T) {
	t.Parallel()
	s, err := webhook.NewSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign() = %q, want %q", got, want)
	}
}

func TestNewSigner_ErrBadSecret(t *testing.T) {
	t.Parallel()
	for _, secret := range []string{"", "whsec_", "whsec_not base64!"} {
		if _, err := webhook.NewSigner(secret); !errors.Is(err, webhook.ErrBadSecret) {
			t.Errorf("NewSigner(%q) error = %v, want ErrBadSecret", secret, err)
		}
	}
}

// TestSigner_Headers_ReferenceVerifies checks our headers with the
// reference library, and that it rejects a tampered body, id or timestamp.
func TestSigner_Headers_ReferenceVerifies(t *testing.T) {
	t.Parallel()
	const secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	s, err := webhook.NewSigner(secret)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"eventType":"calendar.event.changed","timestamp":"2026-11-22T12:00:00Z"}`)
	now := time.Now()
	header := http.Header{}
	for k, v := range s.Headers("msg_1", now, body) {
		header[http.CanonicalHeaderKey(k)] = v // as they arrive over HTTP
	}
	if err := ref.Verify(body, header); err != nil {
		t.Fatalf("reference Verify() = %v", err)
	}
	tampered := []struct {
		name   string
		body   []byte
		header func(http.Header)
	}{
		{"Body", []byte(`{"eventType":"calendar.event.changed","timestamp":"2026-11-22T12:00:01Z"}`), nil},
		{"ID", body, func(h http.Header) { h.Set(webhook.HeaderID, "msg_2") }},
		{"Timestamp", body, func(h http.Header) { h.Set(webhook.HeaderTimestamp, "1") }},
	}
	for _, tc := range tampered {
		t.Run("ErrTampered"+tc.name, func(t *testing.T) {
			t.Parallel()
			h := header.Clone()
			if tc.header != nil {
				tc.header(h)
			}
			if err := ref.Verify(tc.body, h); err == nil {
				t.Error("reference Verify() of a tampered message = nil, want an error")
			}
		})
	}
	t.Run("OtherSecret", func(t *testing.T) {
		t.Parallel()
		other, _ := standardwebhooks.NewWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
		if err := other.Verify(body, header.Clone()); err == nil {
			t.Error("Verify() with another secret = nil, want an error")
		}
	})
}

// TestSigner_Sign_MatchesReference compares with the reference Sign over
// several timestamps and bodies.
func TestSigner_Sign_MatchesReference(t *testing.T) {
	t.Parallel()
	const secret = "whsec_dGVzdCBzZWNyZXQgb2YgMzIgYnl0ZXMgbG9uZyEhIQ=="
	s, _ := webhook.NewSigner(secret)
	ref, _ := standardwebhooks.NewWebhook(secret)
	for i, body := range []string{"", "{}", `{"a":"ü\u2028"}`} {
		ts := time.Unix(1_700_000_000+int64(i)*977, 0)
		want, err := ref.Sign("msg_x", ts, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Sign("msg_x", ts, []byte(body)); got != want {
			t.Errorf("Sign(%q) = %q, want %q", body, got, want)
		}
	}
}

// A new secret is a whsec_ secret a Signer takes, and a fresh one each
// time.
func TestNewSecret(t *testing.T) {
	t.Parallel()
	a, b := webhook.NewSecret(), webhook.NewSecret()
	if a == b {
		t.Errorf("NewSecret() returned %q twice", a)
	}
	if !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+44 {
		t.Errorf("NewSecret() = %q, want whsec_ and the base64 of 32 bytes", a)
	}
	if _, err := webhook.NewSigner(a); err != nil {
		t.Errorf("NewSigner(NewSecret()) = %v", err)
	}
}
