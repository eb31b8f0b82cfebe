package storetest

import (
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/audit"
)

// auditEntry returns an audit entry with every field set, made at; ids
// from newID sort in the order entries are made.
func auditEntry(appID string, at time.Time) *audit.Entry {
	return &audit.Entry{ID: newID("aud"), At: at, Actor: "dashboard", Operation: "apiKey.revoke", ApplicationID: appID, TargetID: newID("key")}
}

// auditIDs returns the ids of entries, in order.
func auditIDs(entries []*audit.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

var auditTests = []testCase{
	{"AppendList/OK", func(t *testing.T, s unical.Store) {
		want := auditEntry("app_A", base)
		checkFull(t, want)
		in := *want
		in.At = base.In(time.FixedZone("UTC+2", 2*3600))
		mustOK(t, "AppendAudit()", s.AppendAudit(t.Context(), &in, time.Time{}))
		got, err := s.ListAudit(t.Context(), "app_A", "", 10)
		mustOK(t, "ListAudit()", err)
		if d := diff([]*audit.Entry{want}, got); d != "" {
			t.Errorf("ListAudit() mismatch (-want +got):\n%s", d)
		}
		if len(got) == 1 && got[0].At.Location() != time.UTC {
			t.Errorf("ListAudit() At in %v, want UTC", got[0].At.Location())
		}
	}},
	{"List/NewestFirstPagedPerApplication", func(t *testing.T, s unical.Store) {
		var all, appA []string
		for i := range 5 {
			app := "app_A"
			if i == 2 {
				app = "app_B"
			}
			e := auditEntry(app, base.Add(time.Duration(i)*time.Minute))
			mustOK(t, "AppendAudit()", s.AppendAudit(t.Context(), e, time.Time{}))
			all = append([]string{e.ID}, all...)
			if app == "app_A" {
				appA = append([]string{e.ID}, appA...)
			}
		}
		for _, tc := range []struct {
			name, appID, before string
			limit               int
			want                []string
		}{
			{"All", "", "", 10, all},
			{"AllFirstPage", "", "", 2, all[:2]},
			{"AllAfterSecond", "", all[1], 10, all[2:]},
			{"OneApp", "app_A", "", 10, appA},
			{"OneAppAfterFirst", "app_A", appA[0], 2, appA[1:3]},
			{"OtherApp", "app_B", "", 10, all[2:3]},
			{"UnknownApp", "app_C", "", 10, []string{}},
		} {
			got, err := s.ListAudit(t.Context(), tc.appID, tc.before, tc.limit)
			mustOK(t, "ListAudit()", err)
			if d := diff(tc.want, auditIDs(got)); d != "" {
				t.Errorf("%s: ListAudit(%q, %q, %d) ids mismatch (-want +got):\n%s", tc.name, tc.appID, tc.before, tc.limit, d)
			}
		}
	}},
	{"Append/RemovesOlderThanRetention", func(t *testing.T, s unical.Store) {
		old := auditEntry("app_A", base)
		mustOK(t, "AppendAudit()", s.AppendAudit(t.Context(), old, time.Time{}))
		kept := auditEntry("app_A", base.Add(48*time.Hour))
		mustOK(t, "AppendAudit()", s.AppendAudit(t.Context(), kept, time.Time{}))
		last := auditEntry("app_B", base.Add(72*time.Hour))
		mustOK(t, "AppendAudit()", s.AppendAudit(t.Context(), last, base.Add(24*time.Hour)))
		got, err := s.ListAudit(t.Context(), "", "", 10)
		mustOK(t, "ListAudit()", err)
		if d := diff([]string{last.ID, kept.ID}, auditIDs(got)); d != "" {
			t.Errorf("ListAudit() after retention ids mismatch (-want +got):\n%s", d)
		}
		got, err = s.ListAudit(t.Context(), "app_A", "", 10)
		mustOK(t, "ListAudit(app_A)", err)
		if d := diff([]string{kept.ID}, auditIDs(got)); d != "" {
			t.Errorf("ListAudit(app_A) after retention ids mismatch (-want +got):\n%s", d)
		}
	}},
	{"Append/ErrInvalid", func(t *testing.T, s unical.Store) {
		e := auditEntry("app_A", base)
		e.Operation = ""
		wantCode(t, "AppendAudit(no operation)", s.AppendAudit(t.Context(), e, time.Time{}), unical.CodeInvalid)
		got, err := s.ListAudit(t.Context(), "", "", 10)
		mustOK(t, "ListAudit()", err)
		if len(got) != 0 {
			t.Errorf("ListAudit() after a refused entry = %d entries, want none", len(got))
		}
	}},
}

var apiKeyLabelTests = []testCase{
	{"Set/OK", func(t *testing.T, s unical.Store) {
		key := fullAPIKey(newID("key"), "app_A", base)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
		got, err := s.SetAPIKeyLabel(t.Context(), "app_A", key.ID, "billing")
		mustOK(t, "SetAPIKeyLabel()", err)
		key.Label = "billing"
		if d := diff(key, got); d != "" {
			t.Errorf("SetAPIKeyLabel() mismatch (-want +got):\n%s", d)
		}
		read, err := s.GetAPIKey(t.Context(), key.ID)
		mustOK(t, "GetAPIKey()", err)
		if d := diff(key, read); d != "" {
			t.Errorf("GetAPIKey() after SetAPIKeyLabel mismatch (-want +got):\n%s", d)
		}
	}},
	{"Set/ErrForeignApp", func(t *testing.T, s unical.Store) {
		key := fullAPIKey(newID("key"), "app_A", base)
		mustOK(t, "CreateAPIKey()", s.CreateAPIKey(t.Context(), key))
		_, err := s.SetAPIKeyLabel(t.Context(), "app_B", key.ID, "stolen")
		wantCode(t, "SetAPIKeyLabel(other app)", err, unical.CodeNotFound)
		_, err = s.SetAPIKeyLabel(t.Context(), "app_A", newID("key"), "none")
		wantCode(t, "SetAPIKeyLabel(unknown)", err, unical.CodeNotFound)
		read, err := s.GetAPIKey(t.Context(), key.ID)
		mustOK(t, "GetAPIKey()", err)
		if d := diff(key, read); d != "" {
			t.Errorf("GetAPIKey() after refused label mismatch (-want +got):\n%s", d)
		}
	}},
}
