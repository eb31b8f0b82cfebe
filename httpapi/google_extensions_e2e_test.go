package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestGoogleE2E_NotifyAttendees checks that notifyAttendees reaches Google
// as sendUpdates on every event write (create, update, delete and the
// writes of a thisAndFollowing split), and that a write without it sends
// none, as before.
func TestGoogleE2E_NotifyAttendees(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	accountID := st.connect(t)
	events := "/v1/events/" + accountID + "/primary"
	eventsAPI := "/calendar/v3/calendars/primary/events"
	body := map[string]any{"title": "Review", "start": map[string]any{"dateTime": "2026-05-04T10:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-04T11:00:00Z"},
		"attendees": []map[string]any{{"email": "guest@example.com"}}}

	// writes returns the sendUpdates of the event writes (inserts and
	// patches, which all carry conferenceDataVersion; deletes with
	// sendUpdates) sent since the last call, "(absent)" for none.
	seen := 0
	writes := func() []string {
		var out []string
		all := st.google.RequestQueries("", eventsAPI)
		for _, q := range all[seen:] {
			if v, ok := q["sendUpdates"]; ok {
				out = append(out, v[0])
			} else if q.Has("conferenceDataVersion") {
				out = append(out, "(absent)")
			}
		}
		seen = len(all)
		return out
	}

	var e e2eEvent
	st.must(t, "POST", events+"?notifyAttendees=false", body, &e)
	if diff := cmp.Diff([]string{"none"}, writes()); diff != "" {
		t.Errorf("create with notifyAttendees=false sent sendUpdates (-want +got):\n%s", diff)
	}
	st.must(t, "PUT", events+"/"+e.ID+"?notifyAttendees=true", map[string]any{"title": "Review 2"}, nil)
	if diff := cmp.Diff([]string{"all"}, writes()); diff != "" {
		t.Errorf("update with notifyAttendees=true sent sendUpdates (-want +got):\n%s", diff)
	}
	st.must(t, "PUT", events+"/"+e.ID, map[string]any{"title": "Review 3"}, nil)
	if diff := cmp.Diff([]string{"(absent)"}, writes()); diff != "" {
		t.Errorf("update without notifyAttendees sent sendUpdates (-want +got):\n%s", diff)
	}
	st.must(t, "DELETE", events+"/"+e.ID+"?notifyAttendees=false", nil, nil)
	got := st.google.RequestQueries("DELETE", eventsAPI+"/"+e.ID)
	if len(got) != 1 || got[0].Get("sendUpdates") != "none" {
		t.Errorf("delete with notifyAttendees=false sent %v, want sendUpdates=none", got)
	}
	writes()

	// A split writes the new series and trims the old one: both carry it.
	var series e2eEvent
	st.must(t, "POST", events, map[string]any{"title": "Daily", "start": map[string]any{"dateTime": "2026-05-05T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-05T09:15:00Z"},
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=4"}, "attendees": []map[string]any{{"email": "guest@example.com"}}}, &series)
	occ, _ := st.listAll(t, events+"/"+series.ID+"/occurrences", url.Values{"startDateTime": {"2026-05-06T12:00:00Z"}, "endDateTime": {"2026-06-01T00:00:00Z"}})
	if len(occ) == 0 {
		t.Fatal("no occurrences to split at")
	}
	writes()
	st.must(t, "PUT", events+"/"+url.PathEscape(occ[0].ID)+"?scope=thisAndFollowing&notifyAttendees=false", map[string]any{"title": "Daily (new)"}, nil)
	split := writes()
	if len(split) < 2 || strings.Count(strings.Join(split, ","), "none") != len(split) {
		t.Errorf("split writes sent sendUpdates %v, want none on each (at least the insert and the trim)", split)
	}

	r := st.do(t, "POST", events+"?notifyAttendees=perhaps", body)
	if e := r.Error(t); r.Status != 400 || e.Field != "notifyAttendees" {
		t.Errorf("notifyAttendees=perhaps = %d %+v, want 400 naming notifyAttendees", r.Status, e)
	}
}

// TestGoogleE2E_DeleteRevokesGrant checks that deleting a Google account
// revokes its grant at Google's revocation endpoint once, and that
// revokeGrant=false leaves the grant alive.
func TestGoogleE2E_DeleteRevokesGrant(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	accountID := st.connect(t)
	var cred struct{ RefreshToken string }
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)

	st.must(t, "DELETE", "/v1/endUserAccounts/"+accountID, nil, nil)
	if n := st.google.RequestCount("POST", "/revoke"); n != 1 {
		t.Errorf("revocation requests after the delete = %d, want 1", n)
	}
	if r := st.do(t, "GET", "/v1/endUserAccounts/"+accountID, nil); r.Status != 404 {
		t.Errorf("account after delete: %d, want 404", r.Status)
	}
	// The grant is gone at Google: its refresh token is refused.
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cred.RefreshToken}, "client_id": {e2eClientID}, "client_secret": {e2eSecret}}
	resp, err := http.PostForm(st.google.TokenURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("refresh with the deleted account's token = %d, want 400 (revoked)", resp.StatusCode)
	}

	kept := st.connect(t)
	st.must(t, "DELETE", "/v1/endUserAccounts/"+kept+"?revokeGrant=false", nil, nil)
	if n := st.google.RequestCount("POST", "/revoke"); n != 1 {
		t.Errorf("revocation requests after a delete with revokeGrant=false = %d, want still 1", n)
	}
}

// TestGraphE2E_NotifyAttendeesFalseRefused checks that Graph, which emails
// attendees whatever it is asked, refuses notifyAttendees=false on every
// event write before writing anything, naming the parameter and the
// provider, and takes true (what it does anyway).
func TestGraphE2E_NotifyAttendeesFalseRefused(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var list struct{ Data []struct{ ID string } }
	st.must(t, "GET", "/v1/calendars/"+acct, nil).Into(t, &list)
	events := "/v1/events/" + acct + "/" + esc(list.Data[0].ID)
	body := map[string]any{"title": "Sync", "start": map[string]any{"dateTime": "2026-01-15T09:30:00", "timeZone": "Europe/Berlin"},
		"end": map[string]any{"dateTime": "2026-01-15T10:00:00", "timeZone": "Europe/Berlin"}}
	var e unical.Event
	st.must(t, "POST", events+"?notifyAttendees=true", body).Into(t, &e)
	for _, w := range []struct{ method, path string }{
		{"POST", events}, {"PUT", events + "/" + esc(e.ID)}, {"DELETE", events + "/" + esc(e.ID)},
	} {
		r := st.do(t, w.method, w.path+"?notifyAttendees=false", body)
		wantError(t, w.method+" notifyAttendees=false", r, 400, "invalid_request", "notifyAttendees")
		if !strings.Contains(string(r.Body), "PROVIDER_B") {
			t.Errorf("%s refusal does not name the provider: %s", w.method, r.Body)
		}
	}
	all, _ := st.listAll(t, events)
	if len(all) != 1 || all[0].Title != "Sync" {
		t.Errorf("events after the refusals = %+v, want only the first, unchanged", all)
	}
}
