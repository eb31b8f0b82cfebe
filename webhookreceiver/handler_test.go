package webhookreceiver_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/webhookreceiver"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	now := time.Unix(1_790_000_000, 0)
	v := mustVerifier(t, webhookreceiver.Config{Secrets: []string{secret}, Now: func() time.Time { return now }})
	body := []byte(changedBody)
	signed := func(ts time.Time, b []byte) http.Header { return refSigned(t, secret, "msg_1", ts, b) }
	bigBody := []byte(`{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","pad":"` + strings.Repeat("x", 2000) + `"}`)
	wantMsg := &webhookreceiver.Message{
		ID: "msg_1", Timestamp: now, Body: body,
		Event: &webhookreceiver.CalendarEvent{
			Type: unical.EventTypeCalendarEventChanged, Timestamp: time.Date(2026, 11, 25, 15, 4, 5, 123e6, time.UTC),
			SubscriptionID: "sub_1", EndUserAccountID: "acc_1", CalendarID: "cal_1",
		},
	}
	tests := []struct {
		name       string
		method     string
		header     http.Header
		body       []byte
		receiveErr error
		wantStatus int
		wantMsg    *webhookreceiver.Message // the message Receive gets; nil: not called
	}{
		{name: "verified", header: signed(now, body), body: body, wantStatus: http.StatusNoContent, wantMsg: wantMsg},
		{name: "Receive fails", header: signed(now, body), body: body, receiveErr: errors.New("disk full at /var/spool"), wantStatus: http.StatusInternalServerError, wantMsg: wantMsg},
		{name: "tampered body", header: signed(now, body), body: []byte(strings.Replace(changedBody, "sub_1", "sub_2", 1)), wantStatus: http.StatusUnauthorized},
		{name: "expired", header: signed(now.Add(-10*time.Minute), body), body: body, wantStatus: http.StatusUnauthorized},
		{name: "from the future", header: signed(now.Add(10*time.Minute), body), body: body, wantStatus: http.StatusUnauthorized},
		{name: "unsigned", header: http.Header{}, body: body, wantStatus: http.StatusBadRequest},
		{name: "signed, but not a unical message", header: signed(now, []byte(`{"hello":"world"}`)), body: []byte(`{"hello":"world"}`), wantStatus: http.StatusBadRequest},
		{name: "signed, but over the body limit", header: signed(now, bigBody), body: bigBody, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "GET", method: http.MethodGet, header: signed(now, nil), wantStatus: http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []*webhookreceiver.Message
			var refused []int
			h := &webhookreceiver.Handler{
				Verifier:     v,
				MaxBodyBytes: 1024,
				Receive: func(ctx context.Context, msg *webhookreceiver.Message) error {
					got = append(got, msg)
					return tt.receiveErr
				},
				OnError: func(r *http.Request, status int, err error) { refused = append(refused, status) },
			}
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			req := httptest.NewRequest(method, "/hooks/unical", strings.NewReader(string(tt.body)))
			req.Header = tt.header
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d (body %q)", rec.Code, tt.wantStatus, rec.Body)
			}
			var want []*webhookreceiver.Message
			if tt.wantMsg != nil {
				want = append(want, tt.wantMsg)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Receive calls mismatch (-want +got):\n%s", d)
			}
			var wantRefused []int
			if tt.wantStatus != http.StatusNoContent {
				wantRefused = []int{tt.wantStatus}
				if rec.Body.Len() == 0 {
					t.Error("error answer has no reason")
				}
			}
			if d := cmp.Diff(wantRefused, refused); d != "" {
				t.Errorf("OnError statuses mismatch (-want +got):\n%s", d)
			}
			if strings.Contains(rec.Body.String(), "/var/spool") {
				t.Errorf("answer %q shows Receive's error", rec.Body)
			}
			if tt.method == http.MethodGet && rec.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q, want POST", rec.Header().Get("Allow"))
			}
		})
	}
}

// TestHandler_DefaultBodyLimit checks that without MaxBodyBytes a body
// just over DefaultMaxBodyBytes is refused, signed or not, and one at the
// limit is read.
func TestHandler_DefaultBodyLimit(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	v := mustVerifier(t, webhookreceiver.Config{Secrets: []string{secret}})
	h := &webhookreceiver.Handler{Verifier: v, Receive: func(context.Context, *webhookreceiver.Message) error { return nil }}
	for size, want := range map[int]int{
		webhookreceiver.DefaultMaxBodyBytes:     http.StatusBadRequest, // read, then refused as not a unical message
		webhookreceiver.DefaultMaxBodyBytes + 1: http.StatusRequestEntityTooLarge,
	} {
		body := []byte(`{"pad":"` + strings.Repeat("x", size-10) + `"}`)
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		req.Header = refSigned(t, secret, "msg_1", time.Now(), body)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("%d-byte body: status = %d, want %d", len(body), rec.Code, want)
		}
	}
}
