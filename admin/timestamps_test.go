package admin_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/audit"
	"github.com/unical/unical/outbox"
)

// TestViews_Timestamps: every time of the admin API's answers is written
// as /v1 writes its timestamps, in UTC with exactly three decimals,
// whatever the precision and zone of the stored time; the other fields
// are as before.
func TestViews_Timestamps(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	nanos := time.Date(2026, 1, 5, 9, 0, 0, 123456789, berlin) // 08:00:00.123 UTC
	whole := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	const (
		nanosWant = "2026-01-05T08:00:00.123Z"
		wholeWant = "2026-01-05T08:00:00.000Z"
	)
	for _, tc := range []struct {
		name string
		view any
		want map[string]any
	}{
		{
			name: "ApplicationView",
			view: &admin.ApplicationView{ID: "app_1", Name: "one", CreatedAt: nanos, UpdatedAt: whole, RedirectURLs: []string{},
				Webhook: &admin.WebhookView{URL: "https://example.com/hook", SecretSet: true,
					EndpointState: outbox.EndpointState{FailingSince: &nanos, DisabledAt: &whole, DisabledReason: "gone"}}},
			want: map[string]any{"applicationId": "app_1", "name": "one", "createdAt": nanosWant, "updatedAt": wholeWant,
				"redirectUrls": []any{}, "providers": nil, "webhook": map[string]any{"url": "https://example.com/hook", "secretSet": true,
					"failingSince": nanosWant, "disabledAt": wholeWant, "disabledReason": "gone"}, "mail": nil},
		},
		{
			name: "WebhookViewWorking",
			view: &admin.WebhookView{URL: "https://example.com/hook", SecretSet: true},
			want: map[string]any{"url": "https://example.com/hook", "secretSet": true},
		},
		{
			name: "APIKeyView",
			view: &admin.APIKeyView{ID: "key_1", Label: "billing", Prefix: "uk_1_", CreatedAt: nanos, LastUsedAt: &whole},
			want: map[string]any{"id": "key_1", "label": "billing", "prefix": "uk_1_", "createdAt": nanosWant, "lastUsedAt": wholeWant},
		},
		{
			name: "APIKeyViewNeverUsed",
			view: &admin.APIKeyView{ID: "key_1", Prefix: "uk_1_", CreatedAt: nanos},
			want: map[string]any{"id": "key_1", "label": "", "prefix": "uk_1_", "createdAt": nanosWant, "lastUsedAt": nil},
		},
		{
			name: "DelegationView",
			view: &admin.DelegationView{Provider: unical.ProviderMicrosoft, ClientID: "daemon", Domains: []string{"corp.example.org"}, Status: "pending", UpdatedAt: nanos},
			want: map[string]any{"provider": "PROVIDER_B", "clientId": "daemon", "domains": []any{"corp.example.org"}, "roomDirectory": "",
				"status": "pending", "updatedAt": nanosWant},
		},
		{
			name: "OutboxStatus",
			view: &admin.OutboxStatus{Pending: 2, OldestPendingAt: &nanos},
			want: map[string]any{"pending": 2.0, "oldestPendingAt": nanosWant},
		},
		{
			name: "OutboxStatusEmpty",
			view: &admin.OutboxStatus{},
			want: map[string]any{"pending": 0.0, "oldestPendingAt": nil},
		},
		{
			name: "AuditPage",
			view: &admin.AuditPage{Data: []*audit.Entry{{ID: "aud_1", At: nanos, Actor: "cli", Operation: "application.create", ApplicationID: "app_1"}},
				NextPageToken: "next"},
			want: map[string]any{"data": []any{map[string]any{"id": "aud_1", "at": nanosWant, "actor": "cli", "operation": "application.create",
				"applicationId": "app_1"}}, "nextPageToken": "next"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.view)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("json.Marshal(%T) mismatch (-want +got):\n%s", tc.view, diff)
			}
		})
	}
}
