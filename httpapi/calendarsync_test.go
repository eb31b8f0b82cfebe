package httpapi_test

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/apitest"
)

// checkCalendarDeletionSynced creates two calendars, takes a sync token,
// deletes one and changes the other, and checks that the sync listing
// returns the changed calendar and the deleted one as {id, isDeleted}
// (our extension), then nothing more from its own token.
func checkCalendarDeletionSynced(t *testing.T, st *apitest.Stack, acct string) {
	t.Helper()
	list := "/v1/calendars/" + acct
	var kept, gone struct{ ID string }
	st.Must(t, "POST", list, `{"name":"Kept"}`).Into(t, &kept)
	st.Must(t, "POST", list, `{"name":"Gone"}`).Into(t, &gone)
	type syncPage struct {
		Data          []map[string]any
		NextSyncToken string
	}
	var first syncPage
	st.Must(t, "GET", list, nil).Into(t, &first)
	st.Must(t, "DELETE", list+"/"+url.PathEscape(gone.ID), nil)
	st.Must(t, "PUT", list+"/"+url.PathEscape(kept.ID), `{"name":"Kept 2"}`)

	var page syncPage
	st.Must(t, "GET", list+"?syncToken="+url.QueryEscape(first.NextSyncToken), nil).Into(t, &page)
	// A deleted calendar is compared whole: its id and the mark alone.
	var got []map[string]any
	for _, c := range page.Data {
		if _, deleted := c["isDeleted"]; !deleted {
			c = map[string]any{"id": c["id"], "name": c["name"]}
		}
		got = append(got, c)
	}
	want := []map[string]any{{"id": kept.ID, "name": "Kept 2"}, {"id": gone.ID, "isDeleted": true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("calendar sync after a change and a deletion (-want +got):\n%s", d)
	}
	var again syncPage
	st.Must(t, "GET", list+"?syncToken="+url.QueryEscape(page.NextSyncToken), nil).Into(t, &again)
	if len(again.Data) != 0 {
		t.Errorf("second sync = %v, want nothing", again.Data)
	}
}

func TestCalendarSyncDeletionVirtual(t *testing.T) {
	t.Parallel()
	st, acct := mustVirtualAccount(t)
	checkCalendarDeletionSynced(t, st, acct)
}

func TestCalendarSyncDeletionGoogle(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	checkCalendarDeletionSynced(t, st.Stack, st.connect(t))
}
