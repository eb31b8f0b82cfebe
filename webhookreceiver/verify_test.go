package webhookreceiver_test

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical"
	"github.com/unical/unical/webhookreceiver"
)

// newSecret returns a fresh endpoint secret in unical's form.
func newSecret(tb testing.TB) string {
	tb.Helper()
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// refSigned returns the Standard Webhooks headers of a message signed by
// the reference library.
func refSigned(tb testing.TB, secret, id string, ts time.Time, body []byte) http.Header {
	tb.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		tb.Fatal(err)
	}
	sig, err := wh.Sign(id, ts, body)
	if err != nil {
		tb.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	return h
}

func mustVerifier(tb testing.TB, cfg webhookreceiver.Config) *webhookreceiver.Verifier {
	tb.Helper()
	v, err := webhookreceiver.NewVerifier(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

const changedBody = `{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1"}`

func TestVerifier_Verify_ReferenceSigned(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	now := time.Unix(1_790_000_000, 0)
	v := mustVerifier(t, webhookreceiver.Config{Secrets: []string{secret}, Now: func() time.Time { return now }})
	body := []byte(changedBody)
	got, err := v.Verify(refSigned(t, secret, "msg_1", now.Add(-time.Minute), body), body)
	if err != nil {
		t.Fatalf("Verify() = %v", err)
	}
	want := &webhookreceiver.Message{
		ID: "msg_1", Timestamp: now.Add(-time.Minute), Body: body,
		Event: &webhookreceiver.CalendarEvent{
			Type: unical.EventTypeCalendarEventChanged, Timestamp: time.Date(2026, 11, 25, 15, 4, 5, 123e6, time.UTC),
			SubscriptionID: "sub_1", EndUserAccountID: "acc_1", CalendarID: "cal_1",
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Verify() mismatch (-want +got):\n%s", d)
	}
}

// TestVerifier_Verify_AgreesWithReference runs each delivery through our
// Verifier and the reference library's, on the real clock, and checks that
// both accept or both refuse (where the reference library judges the case
// at all), and that ours gives the documented cause and code.
func TestVerifier_Verify_AgreesWithReference(t *testing.T) {
	t.Parallel()
	secret, other := newSecret(t), newSecret(t)
	body := []byte(changedBody)
	now := time.Now()
	tests := []struct {
		name string
		// tamper changes a correctly signed delivery (signed now).
		tamper   func(h http.Header, body []byte) (http.Header, []byte)
		signedAt time.Time
		wantErr  error
		// skipRef: the reference library reads only the first header line.
		skipRef bool
	}{
		{name: "untouched"},
		{name: "body changed", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			return h, []byte(strings.Replace(string(b), "cal_1", "cal_2", 1))
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "body with a trailing space", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			return h, append(append([]byte(nil), b...), ' ')
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "id changed", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("webhook-id", "msg_2")
			return h, b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "timestamp changed by a second", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			ts, _ := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
			h.Set("webhook-timestamp", strconv.FormatInt(ts-1, 10))
			return h, b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "signature changed", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			sig := []byte(h.Get("webhook-signature"))
			sig[5] ^= 1
			h.Set("webhook-signature", string(sig))
			return h, b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "signed with another secret", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			ts, _ := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
			return refSigned(t, other, h.Get("webhook-id"), time.Unix(ts, 0), b), b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "right signature under another version", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("webhook-signature", "v2,"+strings.TrimPrefix(h.Get("webhook-signature"), "v1,"))
			return h, b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "signature without its version", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("webhook-signature", strings.TrimPrefix(h.Get("webhook-signature"), "v1,"))
			return h, b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "several signatures, the right one last", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("webhook-signature", "v1,Zm9v v1a,YmFy v2,YmF6 "+h.Get("webhook-signature"))
			return h, b
		}},
		{name: "several signatures, none right", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("webhook-signature", "v1,Zm9v v1,YmFy")
			return h, b
		}, wantErr: webhookreceiver.ErrNoMatchingSignature},
		{name: "right signature on a second header line", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h["Webhook-Signature"] = []string{"v1,Zm9v", h.Get("webhook-signature")}
			return h, b
		}, skipRef: true},
		{name: "no webhook-id", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Del("webhook-id")
			return h, b
		}, wantErr: webhookreceiver.ErrMissingHeader},
		{name: "no webhook-timestamp", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Del("webhook-timestamp")
			return h, b
		}, wantErr: webhookreceiver.ErrMissingHeader},
		{name: "no webhook-signature", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Del("webhook-signature")
			return h, b
		}, wantErr: webhookreceiver.ErrMissingHeader},
		{name: "timestamp not a number", tamper: func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("webhook-timestamp", h.Get("webhook-timestamp")+".5")
			return h, b
		}, wantErr: webhookreceiver.ErrBadTimestamp},
		{name: "signed 4 minutes ago", signedAt: now.Add(-4 * time.Minute)},
		{name: "signed 4 minutes ahead", signedAt: now.Add(4 * time.Minute)},
		{name: "expired: signed 6 minutes ago", signedAt: now.Add(-6 * time.Minute), wantErr: webhookreceiver.ErrTooOld},
		{name: "future: signed 6 minutes ahead", signedAt: now.Add(6 * time.Minute), wantErr: webhookreceiver.ErrTooNew},
		{name: "replayed a day later", signedAt: now.Add(-24 * time.Hour), wantErr: webhookreceiver.ErrTooOld},
	}
	v := mustVerifier(t, webhookreceiver.Config{Secrets: []string{secret}})
	ref, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signedAt := tt.signedAt
			if signedAt.IsZero() {
				signedAt = now
			}
			h, b := refSigned(t, secret, "msg_1", signedAt, body), body
			if tt.tamper != nil {
				h, b = tt.tamper(h, b)
			}
			_, err := v.Verify(h, b)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Verify() = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				wantCode := unical.CodeUnauthorized
				if errors.Is(err, webhookreceiver.ErrMissingHeader) || errors.Is(err, webhookreceiver.ErrBadTimestamp) {
					wantCode = unical.CodeInvalid
				}
				if got := unical.ErrorCode(err); got != wantCode {
					t.Errorf("ErrorCode(Verify()) = %s, want %s", got, wantCode)
				}
				if strings.Contains(err.Error(), strings.TrimPrefix(secret, "whsec_")) {
					t.Errorf("Verify() error %q shows the secret", err)
				}
			}
			if tt.skipRef {
				return
			}
			if refErr := ref.Verify(b, h); (refErr == nil) != (err == nil) {
				t.Errorf("reference Verify() = %v, ours = %v; want both to accept or both to refuse", refErr, err)
			}
		})
	}
}

// TestVerifier_Verify_Tolerance checks a configured tolerance on a fixed
// clock, at and just past its edge on both sides.
func TestVerifier_Verify_Tolerance(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	now := time.Unix(1_790_000_000, 0)
	body := []byte(changedBody)
	tests := []struct {
		offset  time.Duration
		wantErr error
	}{
		{-30 * time.Second, nil},
		{-31 * time.Second, webhookreceiver.ErrTooOld},
		{30 * time.Second, nil},
		{31 * time.Second, webhookreceiver.ErrTooNew},
	}
	v := mustVerifier(t, webhookreceiver.Config{Secrets: []string{secret}, Tolerance: 30 * time.Second, Now: func() time.Time { return now }})
	for _, tt := range tests {
		_, err := v.Verify(refSigned(t, secret, "msg_1", now.Add(tt.offset), body), body)
		if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
			t.Errorf("signed %v from now: Verify() = %v, want %v", tt.offset, err, tt.wantErr)
		}
	}
	// The default is five minutes.
	v = mustVerifier(t, webhookreceiver.Config{Secrets: []string{secret}, Now: func() time.Time { return now }})
	for offset, wantErr := range map[time.Duration]error{
		-5 * time.Minute: nil, -5*time.Minute - time.Second: webhookreceiver.ErrTooOld,
		5 * time.Minute: nil, 5*time.Minute + time.Second: webhookreceiver.ErrTooNew,
	} {
		_, err := v.Verify(refSigned(t, secret, "msg_1", now.Add(offset), body), body)
		if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Errorf("default tolerance, signed %v from now: Verify() = %v, want %v", offset, err, wantErr)
		}
	}
}

// TestVerifier_Verify_SeveralSecrets checks that a delivery signed with any
// of the configured secrets verifies, and the prefix is optional.
func TestVerifier_Verify_SeveralSecrets(t *testing.T) {
	t.Parallel()
	a, b, c := newSecret(t), newSecret(t), newSecret(t)
	now := time.Now()
	body := []byte(changedBody)
	v := mustVerifier(t, webhookreceiver.Config{Secrets: []string{a, strings.TrimPrefix(b, "whsec_")}})
	for name, secret := range map[string]string{"first": a, "second, configured without whsec_": b} {
		if _, err := v.Verify(refSigned(t, secret, "msg_1", now, body), body); err != nil {
			t.Errorf("signed with the %s secret: Verify() = %v, want nil", name, err)
		}
	}
	if _, err := v.Verify(refSigned(t, c, "msg_1", now, body), body); !errors.Is(err, webhookreceiver.ErrNoMatchingSignature) {
		t.Errorf("signed with an unlisted secret: Verify() = %v, want ErrNoMatchingSignature", err)
	}
}

func TestNewVerifier_Refuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       webhookreceiver.Config
		wantField string
	}{
		{"no secret", webhookreceiver.Config{}, "secrets"},
		{"empty secret", webhookreceiver.Config{Secrets: []string{""}}, "secrets"},
		{"prefix only", webhookreceiver.Config{Secrets: []string{"whsec_"}}, "secrets"},
		{"not base64", webhookreceiver.Config{Secrets: []string{newSecret(t), "whsec_not*base64!"}}, "secrets"},
		{"negative tolerance", webhookreceiver.Config{Secrets: []string{newSecret(t)}, Tolerance: -time.Second}, "tolerance"},
	}
	for _, tt := range tests {
		_, err := webhookreceiver.NewVerifier(tt.cfg)
		var ue *unical.Error
		if !errors.As(err, &ue) || ue.Code != unical.CodeInvalid || ue.Field != tt.wantField {
			t.Errorf("%s: NewVerifier() = %v, want a CodeInvalid error naming %s", tt.name, err, tt.wantField)
			continue
		}
		if strings.Contains(err.Error(), "base64!") {
			t.Errorf("%s: NewVerifier() error %q shows the secret", tt.name, err)
		}
	}
}
