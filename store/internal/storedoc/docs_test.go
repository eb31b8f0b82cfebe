package storedoc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// TestFormat pins the stored bytes: the JSON below is what the bolt store
// wrote before the documents moved here, so a changed tag, field or order
// fails here before it reaches anybody's file.
func TestFormat(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	t1 := t0.Add(time.Hour)
	pa := "pa"
	es := outbox.EndpointState{FailingSince: &t0, DisabledAt: &t1, DisabledReason: "gone"}
	app, err := FromApplication(&unical.Application{ID: "app1", Name: "N", CreatedAt: t0, UpdatedAt: t1, RedirectURLs: []string{"https://r"},
		Providers:     map[unical.ProviderType]unical.ProviderSettings{"google": {ClientID: "c", AuthURL: "a", TokenURL: "t", UserInfoURL: "u", APIBaseURL: "b", ServerURL: "s", Tenant: "te", Scopes: []string{"x"}}},
		SealedSecrets: map[unical.ProviderType][]byte{"google": []byte("sec")}, WebhookURL: "https://w", SealedWebhookSecret: []byte("ws"), WebhookState: es, WebhookStateURL: "https://w"})
	must(t, err)
	acc, err := FromAccount(&unical.AccountRecord{Account: unical.Account{ID: "acc1", CreatedAt: t0, UpdatedAt: t1, Email: "e@x", ExternalID: "ext", AuthorizedScopes: []string{"s"}, ProviderAccountID: &pa, ProviderID: "pid", ApplicationID: "app1", Status: "connected", StatusReason: "r", ProviderType: "google"},
		SealedSecrets: []byte("ss"), TokenExpiry: t1, CredentialsID: "cid", CredentialsCreatedAt: t0, CredentialsUpdatedAt: t1, ProviderState: []byte("ps")})
	must(t, err)
	sub, err := FromSubscription(&unical.SubscriptionRecord{Subscription: unical.Subscription{ID: "sub1", Provider: "google", URL: "https://u", CalendarID: "cal", Expiration: &t1, SubscriptionID: "sid", ResourceID: "rid", EndUserAccountID: "acc1", CreatedAt: t0, UpdatedAt: t1, EndpointState: es},
		ApplicationID: "app1", RateLimit: 7, SealedSecret: []byte("x"), Cursor: "cur", ReconciledAt: t0, NextCheckAt: t1, NextSendAt: t0, Watch: &unical.Watch{ID: "w", ResourceID: "wr", Expiration: t1, Token: "tok"}})
	must(t, err)
	emptySub, err := FromSubscription(&unical.SubscriptionRecord{Subscription: unical.Subscription{ID: "sub2", EndUserAccountID: "acc1"}, ApplicationID: "app1"})
	must(t, err)
	fl, err := FromFlow(&unical.OAuthFlow{ID: "f", ApplicationID: "app1", ProviderType: "google", RedirectURL: "https://r", State: "st", LoginHint: "lh", SealedVerifier: []byte("v"), CreatedAt: t0, ExpiresAt: t1})
	must(t, err)
	// A used flow as the OAuth callback records it: no field of the
	// earlier versions' flows.
	usedFlow, err := FromFlow(&unical.OAuthFlow{ID: "Qx7dZrVbS8m4kWcP1aJ0nA", ApplicationID: "app1", ProviderType: "PROVIDER_A", CreatedAt: t0, ExpiresAt: t1})
	must(t, err)

	docs := map[string]any{"application": app, "account": acc, "subscription": sub, "empty subscription": emptySub, "flow": fl, "used flow": usedFlow}
	for _, tc := range []struct {
		name string
		want string
	}{
		{"application", "{\"id\":\"app1\",\"name\":\"N\",\"createdAt\":\"2026-01-02T03:04:05.000000006Z\",\"updatedAt\":\"2026-01-02T04:04:05.000000006Z\",\"redirectUrls\":[\"https://r\"],\"providers\":{\"google\":{\"clientId\":\"c\",\"authUrl\":\"a\",\"tokenUrl\":\"t\",\"userInfoUrl\":\"u\",\"apiBaseUrl\":\"b\",\"serverUrl\":\"s\",\"tenant\":\"te\",\"scopes\":[\"x\"]}},\"sealedSecrets\":{\"google\":\"c2Vj\"},\"webhookUrl\":\"https://w\",\"sealedWebhookSecret\":\"d3M=\",\"webhookState\":{\"failingSince\":\"2026-01-02T03:04:05.000000006Z\",\"disabledAt\":\"2026-01-02T04:04:05.000000006Z\",\"disabledReason\":\"gone\"},\"webhookStateUrl\":\"https://w\"}"},
		{"account", "{\"id\":\"acc1\",\"applicationId\":\"app1\",\"createdAt\":\"2026-01-02T03:04:05.000000006Z\",\"updatedAt\":\"2026-01-02T04:04:05.000000006Z\",\"email\":\"e@x\",\"externalId\":\"ext\",\"authorizedScopes\":[\"s\"],\"providerAccountId\":\"pa\",\"providerId\":\"pid\",\"status\":\"connected\",\"statusReason\":\"r\",\"providerType\":\"google\",\"sealedSecrets\":\"c3M=\",\"tokenExpiry\":\"2026-01-02T04:04:05.000000006Z\",\"credentialsId\":\"cid\",\"credentialsCreatedAt\":\"2026-01-02T03:04:05.000000006Z\",\"credentialsUpdatedAt\":\"2026-01-02T04:04:05.000000006Z\",\"providerState\":\"cHM=\"}"},
		{"subscription", "{\"id\":\"sub1\",\"applicationId\":\"app1\",\"endUserAccountId\":\"acc1\",\"provider\":\"google\",\"url\":\"https://u\",\"calendarId\":\"cal\",\"expiration\":\"2026-01-02T04:04:05.000000006Z\",\"subscriptionId\":\"sid\",\"resourceId\":\"rid\",\"createdAt\":\"2026-01-02T03:04:05.000000006Z\",\"updatedAt\":\"2026-01-02T04:04:05.000000006Z\",\"rateLimit\":7,\"sealedSecret\":\"eA==\",\"watch\":{\"id\":\"w\",\"resourceId\":\"wr\",\"expiration\":\"2026-01-02T04:04:05.000000006Z\",\"token\":\"tok\"},\"cursor\":\"cur\",\"reconciledAt\":\"2026-01-02T03:04:05.000000006Z\",\"endpoint\":{\"failingSince\":\"2026-01-02T03:04:05.000000006Z\",\"disabledAt\":\"2026-01-02T04:04:05.000000006Z\",\"disabledReason\":\"gone\"},\"nextCheckAt\":\"2026-01-02T04:04:05.000000006Z\",\"nextSendAt\":\"2026-01-02T03:04:05.000000006Z\"}"},
		{"empty subscription", "{\"id\":\"sub2\",\"applicationId\":\"app1\",\"endUserAccountId\":\"acc1\",\"provider\":\"\",\"url\":\"\",\"calendarId\":\"\",\"expiration\":null,\"subscriptionId\":\"\",\"resourceId\":\"\",\"createdAt\":\"0001-01-01T00:00:00Z\",\"updatedAt\":\"0001-01-01T00:00:00Z\",\"rateLimit\":0,\"sealedSecret\":null,\"watch\":null,\"cursor\":\"\",\"endpoint\":{}}"},
		{"flow", "{\"id\":\"f\",\"applicationId\":\"app1\",\"providerType\":\"google\",\"redirectUrl\":\"https://r\",\"state\":\"st\",\"loginHint\":\"lh\",\"sealedVerifier\":\"dg==\",\"createdAt\":\"2026-01-02T03:04:05.000000006Z\",\"expiresAt\":\"2026-01-02T04:04:05.000000006Z\"}"},
		{"used flow", "{\"id\":\"Qx7dZrVbS8m4kWcP1aJ0nA\",\"applicationId\":\"app1\",\"providerType\":\"PROVIDER_A\",\"createdAt\":\"2026-01-02T03:04:05.000000006Z\",\"expiresAt\":\"2026-01-02T04:04:05.000000006Z\"}"},
	} {
		got, err := json.Marshal(docs[tc.name])
		must(t, err)
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("stored %s changed (-was +now):\n%s", tc.name, diff)
		}
	}

	// Reading back gives the records that went in.
	back, err := FromAccount(acc.ToAccountRecord())
	must(t, err)
	if diff := cmp.Diff(acc, back); diff != "" {
		t.Errorf("account round trip (-want +got):\n%s", diff)
	}
	backSub, err := FromSubscription(sub.ToSubscriptionRecord())
	must(t, err)
	if diff := cmp.Diff(sub, backSub); diff != "" {
		t.Errorf("subscription round trip (-want +got):\n%s", diff)
	}
	backApp, err := FromApplication(app.ToApplication())
	must(t, err)
	if diff := cmp.Diff(app, backApp); diff != "" {
		t.Errorf("application round trip (-want +got):\n%s", diff)
	}
	backFlow, err := FromFlow(fl.ToFlow())
	must(t, err)
	if diff := cmp.Diff(fl, backFlow); diff != "" {
		t.Errorf("flow round trip (-want +got):\n%s", diff)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
