package apisuite

import (
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

func testAccounts(e *env) {
	t := e.t
	accts := e.connect()
	google := accts[unical.ProviderGoogle]
	if google.Email != googleUser || google.ExternalID != "user-1" || google.Status != unical.AccountStatusActive || google.ID == "" {
		t.Errorf("created account = %+v", google)
	}
	if got := must(e.api.GetAccount(e.ctx, google.ID)); !cmp.Equal(got, google, equate) {
		t.Errorf("GetAccount differs from the created account:\n%s", cmp.Diff(google, got, equate))
	}

	// Oldest first, one per page, walked by the iterator.
	want := []*unical.Account{google, accts[unical.ProviderMicrosoft], accts[unical.ProviderCalDAV]}
	all := collect(t, unical.AllAccounts(e.ctx, e.api, &unical.AccountListParams{Limit: 1}))
	if diff := cmp.Diff(want, all, equate); diff != "" {
		t.Errorf("AllAccounts (-want +got):\n%s", diff)
	}
	first := must(e.api.ListAccounts(e.ctx, &unical.AccountListParams{Limit: 2}))
	if len(first.Data) != 2 || first.NextPageToken == nil {
		t.Errorf("first page of 2: %d accounts, next token %v", len(first.Data), first.NextPageToken)
	}
	last := must(e.api.ListAccounts(e.ctx, &unical.AccountListParams{Limit: 2, PageToken: *first.NextPageToken}))
	if diff := cmp.Diff(want[2:], last.Data, equate); diff != "" || last.NextPageToken != nil {
		t.Errorf("second page (-want +got):\n%s next token %v", diff, last.NextPageToken)
	}
	found := must(e.api.ListAccounts(e.ctx, &unical.AccountListParams{Search: "GRACE", StatusFilter: "active"}))
	if diff := cmp.Diff([]*unical.Account{accts[unical.ProviderMicrosoft]}, found.Data, equate); diff != "" {
		t.Errorf("search for GRACE (-want +got):\n%s", diff)
	}

	creds := must(e.api.GetCredentials(e.ctx, google.ID))
	if creds.EndUserAccountID != google.ID || creds.RefreshToken != googleToken || creds.AccessToken == "" || creds.ExpiresAt.IsZero() {
		t.Errorf("credentials = %+v", creds)
	}

	bob := must(e.api.ConnectBasicAuth(e.ctx, &unical.BasicAuthConnectParams{Email: davUser2, Password: davPassword2}))
	if bob.Email != davUser2 || bob.ProviderType != unical.ProviderCalDAV || bob.Status != unical.AccountStatusActive {
		t.Errorf("basic-auth account = %+v", bob)
	}

	deleted := must(e.api.DeleteAccount(e.ctx, google.ID))
	if !deleted.OK {
		t.Errorf("DeleteAccount = %+v", deleted)
	}
	_, err := e.api.GetAccount(e.ctx, google.ID)
	wantError(t, "GetAccount after delete", err, &unical.Error{Code: unical.CodeNotFound})
	_, err = e.api.DeleteAccount(e.ctx, google.ID)
	wantError(t, "DeleteAccount twice", err, &unical.Error{Code: unical.CodeNotFound})
	left := collect(t, unical.AllAccounts(e.ctx, e.api, nil))
	if len(left) != 3 {
		t.Errorf("%d accounts left after the delete, want 3", len(left))
	}
}

func testAccountErrors(e *env) {
	t := e.t
	for _, tc := range []struct {
		name   string
		params *unical.AccountCreateParams
		want   *unical.Error
	}{
		{"no email", &unical.AccountCreateParams{ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some(googleToken)},
			&unical.Error{Code: unical.CodeInvalid, Field: "email"}},
		{"bad provider type", &unical.AccountCreateParams{Email: googleUser, ProviderType: "PROVIDER_Z"},
			&unical.Error{Code: unical.CodeInvalid, Field: "providerType", Allowed: []string{"PROVIDER_A", "PROVIDER_B", "PROVIDER_C", "VIRTUAL"}}},
		{"no refresh token", &unical.AccountCreateParams{Email: googleUser, ProviderType: unical.ProviderGoogle},
			&unical.Error{Code: unical.CodeInvalid, Field: "refreshToken"}},
		{"refused refresh token", &unical.AccountCreateParams{Email: googleUser, ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("wrong")},
			&unical.Error{Code: unical.CodeInvalid, Field: "refreshToken"}},
		{"refused password", &unical.AccountCreateParams{Email: davUser, ProviderType: unical.ProviderCalDAV, Password: unical.Some("wrong")},
			&unical.Error{Code: unical.CodeInvalid, Field: "password"}},
		{"serverUrl on an OAuth account", &unical.AccountCreateParams{Email: googleUser, ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some(googleToken),
			ServerURL: unical.Some("https://dav.example/")}, &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl"}},
		{"username on a VIRTUAL account", &unical.AccountCreateParams{Email: googleUser, ProviderType: unical.ProviderVirtual, Username: unical.Some("ann")},
			&unical.Error{Code: unical.CodeInvalid, Field: "username"}},
		{"username with a colon", &unical.AccountCreateParams{Email: davUser, ProviderType: unical.ProviderCalDAV, Password: unical.Some(davPassword),
			Username: unical.Some("ann:x")}, &unical.Error{Code: unical.CodeInvalid, Field: "username"}},
	} {
		_, err := e.api.CreateAccount(e.ctx, tc.params)
		wantError(t, "CreateAccount "+tc.name, err, tc.want)
	}
	_, err := e.api.ListAccounts(e.ctx, &unical.AccountListParams{StatusFilter: "paused"})
	wantError(t, "statusFilter paused", err, &unical.Error{Code: unical.CodeInvalid, Field: "statusFilter", Allowed: []string{"active", "expired"}})
	_, err = e.api.ListAccounts(e.ctx, &unical.AccountListParams{PageToken: "not-a-token"})
	wantError(t, "bad pageToken", err, &unical.Error{Code: unical.CodeInvalid, Field: "pageToken"})
	_, err = e.api.ListAccounts(e.ctx, &unical.AccountListParams{Limit: unical.MaxPageSize + 1})
	wantError(t, "limit too large", err, &unical.Error{Code: unical.CodeInvalid, Field: "limit"})
	_, err = e.api.GetAccount(e.ctx, "acc_unknown")
	wantError(t, "unknown account", err, &unical.Error{Code: unical.CodeNotFound})
	_, err = e.api.GetAccount(e.ctx, "")
	wantError(t, "empty account id", err, &unical.Error{Code: unical.CodeNotFound})
	if left := collect(t, unical.AllAccounts(e.ctx, e.api, nil)); len(left) != 0 {
		t.Errorf("failed creates left %d accounts", len(left))
	}
}

func testCalendars(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	primaryID := e.primary[unical.ProviderGoogle]
	var syncToken string
	cals := collect(t, unical.AllCalendars(e.ctx, e.api, acct.ID, nil, &syncToken))
	if len(cals) != 1 || cals[0].ID != primaryID || !cals[0].IsPrimary || syncToken == "" {
		t.Fatalf("calendars = %+v, sync token %q", cals, syncToken)
	}
	if got := must(e.api.GetCalendar(e.ctx, acct.ID, primaryID)); !cmp.Equal(got, cals[0], equate) {
		t.Errorf("GetCalendar differs from the listed one:\n%s", cmp.Diff(cals[0], got, equate))
	}

	work := must(e.api.CreateCalendar(e.ctx, acct.ID, &unical.CalendarParams{
		Name: unical.Some("Work"), HexColor: unical.Some("#112233"), TimeZone: unical.Some("Europe/Berlin")}))
	if work.Name != "Work" || work.HexColor != "#112233" || work.TimeZone != "Europe/Berlin" || work.ID == "" {
		t.Errorf("created calendar = %+v", work)
	}
	renamed := must(e.api.UpdateCalendar(e.ctx, acct.ID, work.ID, &unical.CalendarParams{Name: unical.Some("Work 2")}))
	if renamed.Name != "Work 2" || renamed.HexColor != "#112233" || renamed.TimeZone != "Europe/Berlin" {
		t.Errorf("renamed calendar = %+v", renamed)
	}
	if got := must(e.api.GetCalendar(e.ctx, acct.ID, work.ID)); !cmp.Equal(got, renamed, equate) {
		t.Errorf("GetCalendar differs from the updated one:\n%s", cmp.Diff(renamed, got, equate))
	}

	// The sync token returns only what changed; pages of one are walked
	// with the page token.
	changed := collect(t, unical.AllCalendars(e.ctx, e.api, acct.ID, &unical.CalendarListParams{SyncToken: syncToken, Limit: 1}, nil))
	if diff := cmp.Diff([]*unical.Calendar{renamed}, changed, equate); diff != "" {
		t.Errorf("calendars changed since the sync token (-want +got):\n%s", diff)
	}
	page := must(e.api.ListCalendars(e.ctx, acct.ID, &unical.CalendarListParams{Limit: 1}))
	if len(page.Data) != 1 || page.NextPageToken == "" || page.NextSyncToken != "" {
		t.Errorf("first page of 1: %d calendars, tokens %q %q", len(page.Data), page.NextPageToken, page.NextSyncToken)
	}
	// The page token of a full listing does not continue a sync.
	_, err := e.api.ListCalendars(e.ctx, acct.ID, &unical.CalendarListParams{SyncToken: syncToken, PageToken: page.NextPageToken})
	wantError(t, "syncToken with pageToken", err, &unical.Error{Code: unical.CodeInvalid, Field: "pageToken"})

	_, err = e.api.CreateCalendar(e.ctx, acct.ID, &unical.CalendarParams{HexColor: unical.Some("#112233")})
	wantError(t, "calendar without name", err, &unical.Error{Code: unical.CodeInvalid, Field: "name"})
	_, err = e.api.UpdateCalendar(e.ctx, acct.ID, work.ID, &unical.CalendarParams{HexColor: unical.Some("red")})
	wantError(t, "hexColor red", err, &unical.Error{Code: unical.CodeInvalid, Field: "hexColor"})
	_, err = e.api.UpdateCalendar(e.ctx, acct.ID, work.ID, &unical.CalendarParams{TimeZone: unical.Some("Mars/Olympus")})
	wantError(t, "unknown time zone", err, &unical.Error{Code: unical.CodeInvalid, Field: "timeZone"})

	if ok := must(e.api.DeleteCalendar(e.ctx, acct.ID, work.ID)); !ok.Success {
		t.Errorf("DeleteCalendar = %+v", ok)
	}
	_, err = e.api.GetCalendar(e.ctx, acct.ID, work.ID)
	wantError(t, "GetCalendar after delete", err, &unical.Error{Code: unical.CodeNotFound})
	_, err = e.api.DeleteCalendar(e.ctx, acct.ID, work.ID)
	wantError(t, "DeleteCalendar twice", err, &unical.Error{Code: unical.CodeNotFound})
}
