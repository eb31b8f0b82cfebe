package storetest

import (
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// fullApplication returns an application with every field set. It is
// deterministic for an id and time, so calling it twice gives two equal,
// independent values.
func fullApplication(id string, created time.Time) *unical.Application {
	return &unical.Application{
		ID:           id,
		Name:         "Application " + id,
		CreatedAt:    created,
		UpdatedAt:    created.Add(time.Minute),
		RedirectURLs: []string{"https://app.example/callback", "http://localhost:8080/cb"},
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderGoogle: {
				ClientID: "google-client", AuthURL: "https://auth.example/a", TokenURL: "https://auth.example/t",
				UserInfoURL: "https://auth.example/u", APIBaseURL: "https://api.example/", RevokeURL: "https://auth.example/revoke", ServerURL: "https://dav.example/",
				Tenant: "common", Scopes: []string{"calendar", "email"},
			},
			unical.ProviderMicrosoft: {
				ClientID: "ms-client", AuthURL: "https://login.example/a", TokenURL: "https://login.example/t",
				UserInfoURL: "https://graph.example/me", APIBaseURL: "https://graph.example/v1.0", RevokeURL: "https://none.example/revoke", ServerURL: "https://none.example/",
				Tenant: "organizations", Scopes: []string{"Calendars.ReadWrite", "offline_access"},
			},
		},
		SealedSecrets: map[unical.ProviderType][]byte{
			unical.ProviderGoogle:    {0x00, 0x01, 0xfe, 0xff},
			unical.ProviderMicrosoft: []byte("sealed microsoft secret"),
		},
		WebhookURL:          "https://app.example/webhooks",
		SealedWebhookSecret: []byte{0xde, 0xad, 0x00, 0xbe, 0xef},
		WebhookState:        fullEndpointState(created),
		WebhookStateURL:     "https://app.example/webhooks",
		Delegations: map[unical.ProviderType]unical.Delegation{
			unical.ProviderMicrosoft: {
				// AdminEmail is Google's only; a Store keeps fields, not rules.
				ClientID: "ms-app", TenantID: "tenant-1", Domains: []string{"corp.example", "corp.example.org"}, AdminEmail: "it@corp.example",
				TokenURL: "https://login.example/t", APIBaseURL: "https://graph.example/v1.0", DirectoryURL: "https://graph.example/places",
				Status: "failing", StatusReason: "consent not granted", UpdatedAt: created.Add(time.Minute), Sealed: []byte{0x00, 's', 0xff},
			},
		},
		SealedMail: []byte{0x01, 'm', 0x00, 0xfe},
	}
}

// fullEndpointState is a disabled endpoint's state: failing from t on,
// disabled five days later.
func fullEndpointState(t time.Time) outbox.EndpointState {
	failing, disabled := t.Add(time.Hour), t.Add(5*24*time.Hour+time.Hour)
	return outbox.EndpointState{FailingSince: &failing, DisabledAt: &disabled, DisabledReason: "failing for 5 days"}
}

// mustCreateApplication stores a new full application.
func mustCreateApplication(tb testing.TB, s unical.Store) *unical.Application {
	tb.Helper()
	app := fullApplication(newID("app"), base)
	mustOK(tb, "CreateApplication()", s.CreateApplication(tb.Context(), app))
	return app
}

// fullAPIKey returns an API key with every field set.
func fullAPIKey(id, appID string, created time.Time) *unical.APIKey {
	return &unical.APIKey{ID: id, ApplicationID: appID, Hash: []byte("sha-256 of " + id + "\x00\xff"), CreatedAt: created, LastUsedAt: created.Add(time.Hour), Label: "deploy « prod » " + id}
}

// fullAccount returns an account with every field set.
func fullAccount(id, appID string, t unical.ProviderType, email string) *unical.AccountRecord {
	providerAccountID := "provider-user-" + id
	return &unical.AccountRecord{
		Account: unical.Account{
			ID:                id,
			CreatedAt:         base,
			UpdatedAt:         base.Add(time.Second),
			Email:             email,
			ExternalID:        "external-" + id,
			AuthorizedScopes:  []string{"calendar", "calendar.events"},
			ProviderAccountID: &providerAccountID,
			ProviderID:        t.PathName(),
			ApplicationID:     appID,
			Status:            unical.AccountStatusActive,
			// A reason with ACTIVE is what no Client writes, but a Store
			// keeps fields, not rules: the round trip must cover it.
			StatusReason: unical.StatusReasonRefreshTokenRevoked,
			ProviderType: t,
			ServerURL:    "https://dav.example/",
			Delegated:    true,
			Room:         &unical.RoomDetails{Name: "Salle « Curie »", Capacity: 8, Building: "B2", Floor: "3"},
		},
		SealedSecrets:        []byte{0x01, 0x00, 0x02, 0xff, 'x'},
		TokenExpiry:          base.Add(time.Hour),
		CredentialsID:        "cred_" + id,
		CredentialsCreatedAt: base.Add(2 * time.Second),
		CredentialsUpdatedAt: base.Add(3 * time.Second),
		ProviderState:        []byte(`{"home":"/calendars/user/"}`),
		ProviderTenantID:     "6f1b4d3e-2c5a-4e8b-9d70-1a2b3c4d5e6f",
	}
}

// mustCreateAccount stores a new full account of appID.
func mustCreateAccount(tb testing.TB, s unical.Store, appID string, t unical.ProviderType, email string) *unical.AccountRecord {
	tb.Helper()
	rec := fullAccount(newID("acc"), appID, t, email)
	mustOK(tb, "CreateAccount()", s.CreateAccount(tb.Context(), rec))
	return rec
}

// fullSubscription returns a subscription with every field set.
func fullSubscription(id, appID, accountID string) *unical.SubscriptionRecord {
	expiration := base.Add(7 * 24 * time.Hour)
	return &unical.SubscriptionRecord{
		Subscription: unical.Subscription{
			ID:               id,
			Provider:         unical.ProviderGoogle,
			URL:              "https://app.example/hooks/" + id,
			CalendarID:       "primary",
			Expiration:       &expiration,
			SubscriptionID:   "channel-" + id,
			ResourceID:       "resource-" + id,
			EndUserAccountID: accountID,
			CreatedAt:        base,
			UpdatedAt:        base.Add(time.Second),
			IncludeEvents:    true,
			EndpointState:    fullEndpointState(base),
		},
		ApplicationID: appID,
		RateLimit:     10,
		SealedSecret:  []byte{0xff, 0x00, 's'},
		Watch: &unical.Watch{
			ID: "channel-" + id, ResourceID: "resource-" + id, Expiration: expiration, Token: "token-" + id,
		},
		Cursor:       "sync-cursor-1",
		CursorAt:     base.Add(4 * time.Second),
		ReconciledAt: base.Add(2 * time.Second),
		NextCheckAt:  base.Add(3 * time.Second),
		NextSendAt:   base.Add(4 * time.Second),
	}
}

// mustCreateSubscription stores a new full subscription of an account.
func mustCreateSubscription(tb testing.TB, s unical.Store, appID, accountID string) *unical.SubscriptionRecord {
	tb.Helper()
	rec := fullSubscription(newID("sub"), appID, accountID)
	mustOK(tb, "CreateSubscription()", s.CreateSubscription(tb.Context(), rec))
	return rec
}

// newMessage returns a pending, unclaimed message due at due.
func newMessage(appID, subID string, due time.Time) *outbox.Message {
	id := newID("msg")
	return &outbox.Message{
		ID: id, ApplicationID: appID, SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged,
		Payload: []byte(`{"eventType":"calendar.event.changed","id":"` + id + `"}`), CreatedAt: base,
		Status: outbox.Pending, NextAttemptAt: due,
	}
}

// fullMessage returns a message with every field set, including a lease
// that has expired at due.
func fullMessage(appID, subID string, due time.Time) *outbox.Message {
	msg := newMessage(appID, subID, due)
	msg.Attempts = 2
	msg.LastError = "HTTP 503 from https://app.example/hooks"
	msg.LeaseOwner = "crashed-worker"
	msg.LeaseExpiry = due.Add(-time.Second)
	return msg
}

// mustEnqueue stores messages.
func mustEnqueue(tb testing.TB, s unical.Store, msgs ...*outbox.Message) {
	tb.Helper()
	mustOK(tb, "EnqueueMessages()", s.EnqueueMessages(tb.Context(), msgs))
}

// fullFlow returns an OAuth flow with every field set.
func fullFlow(id, appID string, expires time.Time) *unical.OAuthFlow {
	return &unical.OAuthFlow{
		ID: id, ApplicationID: appID, ProviderType: unical.ProviderMicrosoft,
		RedirectURL: "https://app.example/done", State: "app-state-" + id, LoginHint: "user@example.com",
		SealedVerifier: []byte{0x00, 0x10, 0xff}, CreatedAt: base, ExpiresAt: expires,
	}
}

// ids returns the ids of records, for comparing lists by membership and
// order.
func ids[T any](recs []T, id func(T) string) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = id(r)
	}
	return out
}

func accountID(r *unical.AccountRecord) string           { return r.ID }
func subscriptionID(r *unical.SubscriptionRecord) string { return r.ID }
func messageID(m *outbox.Message) string                 { return m.ID }
