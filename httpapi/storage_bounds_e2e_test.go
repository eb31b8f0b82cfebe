package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/adapter/eventbook"
	"github.com/unical/unical/internal/testkit/apitest"
)

// TestStorageBounds_KeyedVirtualUpdates repeats the review's measurement:
// forty PUTs, each with its own Idempotency-Key, of one VIRTUAL event
// with the longest description it may hold grow the bbolt file by less
// than 16 MiB, and a 900 KB description is refused with 400 naming the
// field, keeping nothing.
func TestStorageBounds_KeyedVirtualUpdates(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": roomEmail, "providerType": "VIRTUAL"}).Into(t, &acct)
	var cals unical.Page[unical.Calendar]
	st.Must(t, "GET", "/v1/calendars/"+acct.ID, nil).Into(t, &cals)
	events := "/v1/events/" + acct.ID + "/" + cals.Data[0].ID
	var ev unical.Event
	st.Must(t, "POST", events, map[string]any{
		"title": "Maintenance", "start": map[string]string{"dateTime": "2026-05-04T09:00:00Z"}, "end": map[string]string{"dateTime": "2026-05-04T10:00:00Z"},
	}).Into(t, &ev)

	body := func(title, description string) []byte {
		b, err := json.Marshal(map[string]any{"title": title, "description": description})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r := idemRequest(t, st.URL, st.APIKey, "big-1", "PUT", events+"/"+ev.ID, body("Big", strings.Repeat("x", 900_000)))
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "description" {
		t.Fatalf("PUT with a 900 KB description = %d %+v, want 400 naming description", r.Status, e)
	}

	before, err := os.Stat(st.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		r := idemRequest(t, st.URL, st.APIKey, fmt.Sprintf("update-%d", i), "PUT", events+"/"+ev.ID,
			body(fmt.Sprintf("Maintenance %d", i), strings.Repeat("y", eventbook.MaxDescription)))
		if r.Status != http.StatusOK {
			t.Fatalf("keyed PUT %d = %d %s", i, r.Status, r.Body)
		}
	}
	after, err := os.Stat(st.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	if grown := after.Size() - before.Size(); grown >= 16<<20 {
		t.Errorf("forty keyed updates grew the store by %d bytes, want under 16 MiB", grown)
	}
	var got unical.Event
	st.Must(t, "GET", events+"/"+ev.ID, nil).Into(t, &got)
	if got.Title != "Maintenance 39" || len(got.Description) != eventbook.MaxDescription {
		t.Errorf("the event reads %q with a %d-character description, want the last update", got.Title, len(got.Description))
	}
}
