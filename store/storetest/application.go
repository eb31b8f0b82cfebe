package storetest

import (
	"testing"
	"time"

	"github.com/unical/unical"
)

var applicationTests = []testCase{
	{"CreateGet/OK", func(t *testing.T, s unical.Store) {
		id := newID("app")
		want := fullApplication(id, base)
		checkFull(t, want)
		mustOK(t, "CreateApplication()", s.CreateApplication(t.Context(), fullApplication(id, base)))
		got, err := s.GetApplication(t.Context(), id)
		mustOK(t, "GetApplication()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetApplication() mismatch (-want +got):\n%s", d)
		}
	}},
	{"CreateGet/TimesInUTC", func(t *testing.T, s unical.Store) {
		id := newID("app")
		zone := time.FixedZone("UTC-7", -7*3600)
		app := fullApplication(id, base.In(zone))
		mustOK(t, "CreateApplication()", s.CreateApplication(t.Context(), app))
		got, err := s.GetApplication(t.Context(), id)
		mustOK(t, "GetApplication()", err)
		want := fullApplication(id, base)
		if d := diff(want, got); d != "" {
			t.Errorf("GetApplication() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Create/ErrConflict", func(t *testing.T, s unical.Store) {
		app := mustCreateApplication(t, s)
		other := fullApplication(app.ID, base.Add(time.Hour))
		other.Name = "Impostor"
		wantCode(t, "CreateApplication(same id)", s.CreateApplication(t.Context(), other), unical.CodeConflict)
		got, err := s.GetApplication(t.Context(), app.ID)
		mustOK(t, "GetApplication()", err)
		if d := diff(app, got); d != "" {
			t.Errorf("GetApplication() after conflict mismatch (-want +got):\n%s", d)
		}
	}},
	{"Get/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.GetApplication(t.Context(), newID("app"))
		wantCode(t, "GetApplication(unknown)", err, unical.CodeNotFound)
	}},
	{"Update/OK", func(t *testing.T, s unical.Store) {
		app := mustCreateApplication(t, s)
		want := fullApplication(app.ID, base)
		want.Name = "Renamed"
		want.UpdatedAt = base.Add(time.Hour)
		want.RedirectURLs = []string{"https://new.example/cb"}
		want.Providers = map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderCalDAV: {ServerURL: "https://caldav.example/"},
		}
		want.SealedSecrets = nil
		want.WebhookURL = ""
		want.SealedWebhookSecret = nil
		mustOK(t, "UpdateApplication()", s.UpdateApplication(t.Context(), want))
		got, err := s.GetApplication(t.Context(), app.ID)
		mustOK(t, "GetApplication()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetApplication() after update mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/ErrNotFound", func(t *testing.T, s unical.Store) {
		app := fullApplication(newID("app"), base)
		wantCode(t, "UpdateApplication(unknown)", s.UpdateApplication(t.Context(), app), unical.CodeNotFound)
		_, err := s.GetApplication(t.Context(), app.ID)
		wantCode(t, "GetApplication() after failed update", err, unical.CodeNotFound)
	}},
	{"List/OK", func(t *testing.T, s unical.Store) {
		got, err := s.ListApplications(t.Context())
		mustOK(t, "ListApplications(empty)", err)
		if len(got) != 0 {
			t.Fatalf("ListApplications() on an empty store = %d applications, want 0", len(got))
		}
		var want []*unical.Application
		for i := range 3 {
			app := fullApplication(newID("app"), base.Add(time.Duration(i)*time.Minute))
			mustOK(t, "CreateApplication()", s.CreateApplication(t.Context(), app))
			want = append(want, app)
		}
		got, err = s.ListApplications(t.Context())
		mustOK(t, "ListApplications()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("ListApplications() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		id := newID("app")
		app := fullApplication(id, base)
		mustOK(t, "CreateApplication()", s.CreateApplication(t.Context(), app))
		mutateApplication(app)
		got, err := s.GetApplication(t.Context(), id)
		mustOK(t, "GetApplication()", err)
		mutateApplication(got)
		list, err := s.ListApplications(t.Context())
		mustOK(t, "ListApplications()", err)
		mutateApplication(list[0])
		got, err = s.GetApplication(t.Context(), id)
		mustOK(t, "GetApplication()", err)
		if d := diff(fullApplication(id, base), got); d != "" {
			t.Errorf("GetApplication() after changing copies mismatch (-want +got):\n%s", d)
		}
	}},
}

// mutateApplication changes app in place, down to its slices and maps.
func mutateApplication(app *unical.Application) {
	app.Name = "changed"
	app.RedirectURLs[0] = "https://evil.example/"
	p := app.Providers[unical.ProviderGoogle]
	p.Scopes[0] = "changed"
	app.Providers[unical.ProviderGoogle] = p
	app.SealedSecrets[unical.ProviderGoogle][0] = 'X'
	app.SealedWebhookSecret[0] = 'X'
}

var apiKeyTests = []testCase{
	{"CreateGet/OK", func(t *testing.T, s unical.Store) {
		id := newID("key")
		want := fullAPIKey(id, "app_1", base)
		checkFull(t, want)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), fullAPIKey(id, "app_1", base)))
		got, err := s.GetAPIKey(t.Context(), id)
		mustOK(t, "GetAPIKey()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetAPIKey() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Create/ErrConflict", func(t *testing.T, s unical.Store) {
		id := newID("key")
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), fullAPIKey(id, "app_1", base)))
		err := s.CreateAPIKey(t.Context(), fullAPIKey(id, "app_2", base))
		wantCode(t, "CreateAPIKey(same id)", err, unical.CodeConflict)
		got, err := s.GetAPIKey(t.Context(), id)
		mustOK(t, "GetAPIKey()", err)
		if d := diff(fullAPIKey(id, "app_1", base), got); d != "" {
			t.Errorf("GetAPIKey() after conflict mismatch (-want +got):\n%s", d)
		}
	}},
	{"Get/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.GetAPIKey(t.Context(), newID("key"))
		wantCode(t, "GetAPIKey(unknown)", err, unical.CodeNotFound)
	}},
	{"List/OK", func(t *testing.T, s unical.Store) {
		var wantA, wantB []*unical.APIKey
		for i := range 4 {
			created := base.Add(time.Duration(i) * time.Minute)
			if i == 2 {
				key := fullAPIKey(newID("key"), "app_B", created)
				mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
				wantB = append(wantB, key)
				continue
			}
			key := fullAPIKey(newID("key"), "app_A", created)
			mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
			wantA = append(wantA, key)
		}
		for _, tc := range []struct {
			appID string
			want  []*unical.APIKey
		}{{"app_A", wantA}, {"app_B", wantB}, {"app_C", nil}} {
			got, err := s.ListAPIKeys(t.Context(), tc.appID)
			mustOK(t, "ListAPIKeys()", err)
			if d := diff(tc.want, got); d != "" {
				t.Errorf("ListAPIKeys(%s) mismatch (-want +got):\n%s", tc.appID, d)
			}
		}
	}},
	{"Delete/OK", func(t *testing.T, s unical.Store) {
		keep, gone := fullAPIKey(newID("key"), "app_A", base), fullAPIKey(newID("key"), "app_A", base.Add(time.Second))
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), keep))
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), gone))
		mustOK(t, "DeleteAPIKey()", s.DeleteAPIKey(t.Context(), "app_A", gone.ID))
		_, err := s.GetAPIKey(t.Context(), gone.ID)
		wantCode(t, "GetAPIKey(deleted)", err, unical.CodeNotFound)
		wantCode(t, "DeleteAPIKey(deleted)", s.DeleteAPIKey(t.Context(), "app_A", gone.ID), unical.CodeNotFound)
		got, err := s.ListAPIKeys(t.Context(), "app_A")
		mustOK(t, "ListAPIKeys()", err)
		if d := diff([]*unical.APIKey{keep}, got); d != "" {
			t.Errorf("ListAPIKeys() after delete mismatch (-want +got):\n%s", d)
		}
	}},
	{"Delete/ErrNotFound", func(t *testing.T, s unical.Store) {
		wantCode(t, "DeleteAPIKey(unknown)", s.DeleteAPIKey(t.Context(), "app_A", newID("key")), unical.CodeNotFound)
	}},
	{"Delete/ErrForeignApp", func(t *testing.T, s unical.Store) {
		key := fullAPIKey(newID("key"), "app_A", base)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
		wantCode(t, "DeleteAPIKey(other app)", s.DeleteAPIKey(t.Context(), "app_B", key.ID), unical.CodeNotFound)
		got, err := s.GetAPIKey(t.Context(), key.ID)
		mustOK(t, "GetAPIKey() after foreign delete", err)
		if d := diff(key, got); d != "" {
			t.Errorf("GetAPIKey() after foreign delete mismatch (-want +got):\n%s", d)
		}
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		id := newID("key")
		key := fullAPIKey(id, "app_A", base)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
		key.Hash[0] = 'X'
		got, err := s.GetAPIKey(t.Context(), id)
		mustOK(t, "GetAPIKey()", err)
		got.Hash[0] = 'X'
		list, err := s.ListAPIKeys(t.Context(), "app_A")
		mustOK(t, "ListAPIKeys()", err)
		list[0].Hash[0] = 'X'
		got, err = s.GetAPIKey(t.Context(), id)
		mustOK(t, "GetAPIKey()", err)
		if d := diff(fullAPIKey(id, "app_A", base), got); d != "" {
			t.Errorf("GetAPIKey() after changing copies mismatch (-want +got):\n%s", d)
		}
	}},
}

var applicationDeleteTests = []testCase{
	{"Delete/OK", func(t *testing.T, s unical.Store) {
		app, other := mustCreateApplication(t, s), mustCreateApplication(t, s)
		key, otherKey := fullAPIKey(newID("key"), app.ID, base), fullAPIKey(newID("key"), other.ID, base)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), otherKey))
		mustOK(t, "DeleteApplication()", s.DeleteApplication(t.Context(), app.ID))
		_, err := s.GetApplication(t.Context(), app.ID)
		wantCode(t, "GetApplication(deleted)", err, unical.CodeNotFound)
		_, err = s.GetAPIKey(t.Context(), key.ID)
		wantCode(t, "GetAPIKey(of deleted application)", err, unical.CodeNotFound)
		keys, err := s.ListAPIKeys(t.Context(), app.ID)
		mustOK(t, "ListAPIKeys(deleted application)", err)
		if len(keys) != 0 {
			t.Errorf("ListAPIKeys(deleted application) = %d keys, want 0", len(keys))
		}
		list, err := s.ListApplications(t.Context())
		mustOK(t, "ListApplications()", err)
		if d := diff([]*unical.Application{other}, list); d != "" {
			t.Errorf("ListApplications() after delete mismatch (-want +got):\n%s", d)
		}
		got, err := s.GetAPIKey(t.Context(), otherKey.ID)
		mustOK(t, "GetAPIKey(other application's)", err)
		if d := diff(otherKey, got); d != "" {
			t.Errorf("GetAPIKey(other application's) mismatch (-want +got):\n%s", d)
		}
	}},
	{"Delete/ErrNotFound", func(t *testing.T, s unical.Store) {
		wantCode(t, "DeleteApplication(unknown)", s.DeleteApplication(t.Context(), newID("app")), unical.CodeNotFound)
	}},
	{"Delete/ErrConflictWithAccounts", func(t *testing.T, s unical.Store) {
		app := mustCreateApplication(t, s)
		key := fullAPIKey(newID("key"), app.ID, base)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
		acct := mustCreateAccount(t, s, app.ID, unical.ProviderCalDAV, "ada@example.com")
		wantCode(t, "DeleteApplication(with an account)", s.DeleteApplication(t.Context(), app.ID), unical.CodeConflict)
		got, err := s.GetApplication(t.Context(), app.ID)
		mustOK(t, "GetApplication() after refused delete", err)
		if d := diff(app, got); d != "" {
			t.Errorf("GetApplication() after refused delete mismatch (-want +got):\n%s", d)
		}
		gotKey, err := s.GetAPIKey(t.Context(), key.ID)
		mustOK(t, "GetAPIKey() after refused delete", err)
		if d := diff(key, gotKey); d != "" {
			t.Errorf("GetAPIKey() after refused delete mismatch (-want +got):\n%s", d)
		}
		mustOK(t, "DeleteAccount()", s.DeleteAccount(t.Context(), app.ID, acct.ID))
		mustOK(t, "DeleteApplication(after its account went)", s.DeleteApplication(t.Context(), app.ID))
	}},
}

var apiKeyUsedTests = []testCase{
	{"MarkUsed/OK", func(t *testing.T, s unical.Store) {
		key := fullAPIKey(newID("key"), "app_A", base)
		key.LastUsedAt = time.Time{}
		mustOK(t, "CreateAPIKey(never used)", s.CreateAPIKey(t.Context(), key))
		later := base.Add(2 * time.Hour).In(time.FixedZone("UTC+2", 2*3600))
		mustOK(t, "MarkAPIKeyUsed()", s.MarkAPIKeyUsed(t.Context(), key.ID, later))
		// An earlier time (a slower replica's) does not move it back.
		mustOK(t, "MarkAPIKeyUsed(earlier)", s.MarkAPIKeyUsed(t.Context(), key.ID, base.Add(time.Hour)))
		want := fullAPIKey(key.ID, "app_A", base)
		want.LastUsedAt = base.Add(2 * time.Hour)
		got, err := s.GetAPIKey(t.Context(), key.ID)
		mustOK(t, "GetAPIKey()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetAPIKey() after MarkAPIKeyUsed mismatch (-want +got):\n%s", d)
		}
		list, err := s.ListAPIKeys(t.Context(), "app_A")
		mustOK(t, "ListAPIKeys()", err)
		if d := diff([]*unical.APIKey{want}, list); d != "" {
			t.Errorf("ListAPIKeys() after MarkAPIKeyUsed mismatch (-want +got):\n%s", d)
		}
	}},
	{"MarkUsed/ErrNotFound", func(t *testing.T, s unical.Store) {
		wantCode(t, "MarkAPIKeyUsed(unknown)", s.MarkAPIKeyUsed(t.Context(), newID("key"), base), unical.CodeNotFound)
	}},
}
