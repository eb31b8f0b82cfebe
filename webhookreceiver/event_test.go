package webhookreceiver_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/webhookreceiver"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 15, 4, 5, 123e6, time.UTC)
	providerAccountID := "ada@example.com"
	account := unical.Account{
		ID: "acc_1", CreatedAt: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), UpdatedAt: at,
		Email: "ada@example.com", ExternalID: "user-7", AuthorizedScopes: []string{"openid", "email"},
		ProviderAccountID: &providerAccountID, ProviderID: "google", ApplicationID: "app_1",
		Status: unical.AccountStatusActive, ProviderType: unical.ProviderGoogle,
	}
	accountJSON, err := json.Marshal(account)
	if err != nil {
		t.Fatal(err)
	}
	accountBody := func(eventType string) string {
		return `{"eventType":"` + eventType + `","timestamp":"2026-11-25T15:04:05.123Z","endUserAccountId":"acc_1","endUserAccount":` + string(accountJSON) + `}`
	}
	tests := []struct {
		name      string
		body      string
		want      webhookreceiver.Event
		wantField string // for an error
	}{
		{
			name: "calendar.event.changed", body: changedBody,
			want: &webhookreceiver.CalendarEvent{Type: unical.EventTypeCalendarEventChanged, Timestamp: at, SubscriptionID: "sub_1", EndUserAccountID: "acc_1", CalendarID: "cal_1"},
		},
		{
			name: "calendar.event.unknown, with a field from a newer unical",
			body: `{"eventType":"calendar.event.unknown","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1","reason":"cursor expired"}`,
			want: &webhookreceiver.CalendarEvent{Type: unical.EventTypeCalendarEventUnknown, Timestamp: at, SubscriptionID: "sub_1", EndUserAccountID: "acc_1", CalendarID: "cal_1"},
		},
		{
			name: "calendar.event.changed with includeEvents data",
			body: `{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1",` +
				`"data":{"events":[{"changeType":"created","eventId":"ev_1","event":{"id":"ev_1","title":"Standup","isCancelled":false}},` +
				`{"changeType":"deleted","eventId":"ev_2","event":{"id":"ev_2","isCancelled":true}},{"changeType":"updated","eventId":"ev_3","truncated":true}],"truncated":true}}`,
			want: &webhookreceiver.CalendarEvent{Type: unical.EventTypeCalendarEventChanged, Timestamp: at, SubscriptionID: "sub_1", EndUserAccountID: "acc_1", CalendarID: "cal_1",
				Changes: []webhookreceiver.Change{
					{Type: "created", EventID: "ev_1", Event: &unical.Event{ID: "ev_1", Title: "Standup"}},
					{Type: "deleted", EventID: "ev_2", Event: &unical.Event{ID: "ev_2", IsCancelled: true}},
					{Type: "updated", EventID: "ev_3", Truncated: true},
				},
				ChangesTruncated: true},
		},
		{name: "a change of an unknown type", body: `{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1","data":{"events":[{"changeType":"moved","eventId":"ev_1"}]}}`, wantField: "data.events[0].changeType"},
		{name: "a change without its event id", body: `{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1","data":{"events":[{"changeType":"created"}]}}`, wantField: "data.events[0].eventId"},
		{
			name: "enduseraccount.created", body: accountBody(unical.EventTypeAccountCreated),
			want: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountCreated, Timestamp: at, EndUserAccountID: "acc_1", Account: account},
		},
		{
			name: "enduseraccount.updated", body: accountBody(unical.EventTypeAccountUpdated),
			want: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountUpdated, Timestamp: at, EndUserAccountID: "acc_1", Account: account},
		},
		{
			name: "enduseraccount.deleted", body: accountBody(unical.EventTypeAccountDeleted),
			want: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountDeleted, Timestamp: at, EndUserAccountID: "acc_1", Account: account},
		},
		{
			name: "enduseraccount.credential.updated", body: accountBody(unical.EventTypeAccountCredentialUpdated),
			want: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountCredentialUpdated, Timestamp: at, EndUserAccountID: "acc_1", Account: account},
		},
		{
			name: "webhook.test to a subscription",
			body: `{"eventType":"webhook.test","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1"}`,
			want: &webhookreceiver.TestEvent{Type: webhookreceiver.EventTypeTest, Timestamp: at, SubscriptionID: "sub_1", EndUserAccountID: "acc_1", CalendarID: "cal_1"},
		},
		{
			name: "webhook.test to the application's endpoint",
			body: `{"eventType":"webhook.test","timestamp":"2026-11-25T15:04:05.123Z"}`,
			want: &webhookreceiver.TestEvent{Type: webhookreceiver.EventTypeTest, Timestamp: at},
		},
		{
			name: "an event type from a newer unical",
			body: `{"eventType":"calendar.deleted","timestamp":"2026-11-25T15:04:05.123Z","calendarId":"cal_1"}`,
			want: &webhookreceiver.UnknownEvent{Type: "calendar.deleted", Timestamp: at, Payload: json.RawMessage(`{"eventType":"calendar.deleted","timestamp":"2026-11-25T15:04:05.123Z","calendarId":"cal_1"}`)},
		},
		{name: "not JSON", body: `eventType=calendar.event.changed`, wantField: ""},
		{name: "a JSON array", body: `[]`, wantField: ""},
		{name: "no eventType", body: `{"timestamp":"2026-11-25T15:04:05.123Z"}`, wantField: "eventType"},
		{name: "no timestamp", body: `{"eventType":"calendar.event.changed","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1","calendarId":"cal_1"}`, wantField: "timestamp"},
		{name: "timestamp in Unix seconds", body: `{"eventType":"calendar.event.changed","timestamp":1790000000}`, wantField: ""},
		{name: "timestamp not RFC 3339", body: `{"eventType":"calendar.event.changed","timestamp":"25/11/2026"}`, wantField: "timestamp"},
		{name: "calendar message without its calendar", body: `{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","webhookSubscriptionId":"sub_1","endUserAccountId":"acc_1"}`, wantField: "calendarId"},
		{name: "calendar message without its subscription", body: `{"eventType":"calendar.event.changed","timestamp":"2026-11-25T15:04:05.123Z","endUserAccountId":"acc_1","calendarId":"cal_1"}`, wantField: "webhookSubscriptionId"},
		{name: "account message without the account", body: `{"eventType":"enduseraccount.deleted","timestamp":"2026-11-25T15:04:05.123Z","endUserAccountId":"acc_1"}`, wantField: "endUserAccount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := webhookreceiver.Decode([]byte(tt.body))
			if tt.want == nil {
				var ue *unical.Error
				if !errors.As(err, &ue) || ue.Code != unical.CodeInvalid || ue.Field != tt.wantField || !errors.Is(err, webhookreceiver.ErrBadPayload) {
					t.Fatalf("Decode() = %v, %v; want ErrBadPayload naming %q", got, err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode() = %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", d)
			}
			if got.EventType() != tt.want.EventType() {
				t.Errorf("EventType() = %q, want %q", got.EventType(), tt.want.EventType())
			}
		})
	}
}
