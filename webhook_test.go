package unical_test

import (
	"errors"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/subscriptions"
)

func TestApp_CreateSubscription_Invalid(t *testing.T) {
	t.Parallel()
	env := mustNewEngineEnv(t, func(cfg *unical.Config) { cfg.AllowPrivateTargets = false })
	tests := []struct {
		name      string
		url       string
		calendar  string
		rate      unical.Optional[int]
		wantField string
	}{
		{"ErrHTTP", "http://hooks.example.com/x", env.CalendarID, unical.Optional[int]{}, "webhookUrl"},
		{"ErrLoopback", "https://127.0.0.1:8443/x", env.CalendarID, unical.Optional[int]{}, "webhookUrl"},
		{"ErrPrivate", "https://10.1.2.3/x", env.CalendarID, unical.Optional[int]{}, "webhookUrl"},
		{"ErrLinkLocal", "https://[fe80::1]/x", env.CalendarID, unical.Optional[int]{}, "webhookUrl"},
		{"ErrMetadata", "https://169.254.169.254/latest", env.CalendarID, unical.Optional[int]{}, "webhookUrl"},
		{"ErrLocalhost", "https://localhost/x", env.CalendarID, unical.Optional[int]{}, "webhookUrl"},
		{"ErrRateLimitZero", "https://hooks.example.com/x", env.CalendarID, unical.Some(0), "rateLimit"},
		{"ErrUnknownCalendar", "https://hooks.example.com/x", "nope", unical.Optional[int]{}, "calendarId"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := subscriptions.Create(t.Context(), env.App, env.AccountID, &subscriptions.CreateParams{CalendarID: tc.calendar, WebhookURL: tc.url, RateLimit: tc.rate})
			var ue *unical.Error
			if unical.ErrorCode(err) != unical.CodeInvalid || !asError(err, &ue) || ue.Field != tc.wantField {
				t.Errorf("CreateSubscription() = %v, want CodeInvalid naming %s", err, tc.wantField)
			}
		})
	}
	t.Run("OKPublic", func(t *testing.T) {
		t.Parallel()
		if _, err := subscriptions.Create(t.Context(), env.App, env.AccountID, &subscriptions.CreateParams{CalendarID: env.CalendarID, WebhookURL: "https://hooks.example.com/x"}); err != nil {
			t.Errorf("CreateSubscription() = %v", err)
		}
	})
}

// TestApp_CreateSubscription_PlainHTTPOnLoopback: with AllowPrivateTargets
// (unicald --allow-private-targets) a receiver on this machine may use
// plain http; anywhere else, and without the setting, https stays required.
func TestApp_CreateSubscription_PlainHTTPOnLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		allowPrivate bool
		url          string
		wantOK       bool
	}{
		{true, "http://127.0.0.1:8081/hook", true},
		{true, "http://127.9.9.9/hook", true},
		{true, "http://[::1]:8081/hook", true},
		{true, "http://localhost:8081/hook", true},
		{true, "http://10.1.2.3/hook", false},
		{true, "http://hooks.example.com/hook", false},
		{true, "http://127.0.0.1.nip.io/hook", false},
		{true, "http://user:pw@127.0.0.1/hook", false},
		{false, "http://127.0.0.1:8081/hook", false},
		{false, "http://localhost/hook", false},
	}
	envs := map[bool]*engineEnv{}
	for _, allow := range []bool{true, false} {
		envs[allow] = mustNewEngineEnv(t, func(cfg *unical.Config) { cfg.AllowPrivateTargets = allow })
	}
	for _, tc := range tests {
		env := envs[tc.allowPrivate]
		_, err := subscriptions.Create(t.Context(), env.App, env.AccountID, &subscriptions.CreateParams{CalendarID: env.CalendarID, WebhookURL: tc.url})
		var ue *unical.Error
		switch {
		case tc.wantOK && err != nil:
			t.Errorf("allowPrivate=%v %s: CreateSubscription() = %v, want accepted", tc.allowPrivate, tc.url, err)
		case !tc.wantOK && (!asError(err, &ue) || ue.Code != unical.CodeInvalid || ue.Field != "webhookUrl"):
			t.Errorf("allowPrivate=%v %s: CreateSubscription() = %v, want CodeInvalid naming webhookUrl", tc.allowPrivate, tc.url, err)
		}
	}
}

// asError is errors.As for *unical.Error.
func asError(err error, target **unical.Error) bool { return errors.As(err, target) }
