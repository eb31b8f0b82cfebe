package httpapi_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/series"
)

// TestEditScopesWithIdempotencyKey checks that a thisAndFollowing split,
// which makes several writes, runs once under one Idempotency-Key in Go:
// the key covers the whole call (the writes inside do not reuse it, which
// would refuse the second as another request), and a retry replays the
// first answer without splitting again.
func TestEditScopesWithIdempotencyKey(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	app, err := st.Client.App(t.Context(), st.AppID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "room@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	cal := "primary"
	standup, err := app.CreateEvent(t.Context(), acct.ID, cal, &unical.EventParams{
		Title:      unical.Some("Standup"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-03-02T09:00:00", TimeZone: "Europe/Paris"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-03-02T10:00:00", TimeZone: "Europe/Paris"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=6"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	window := &unical.OccurrenceListParams{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	occ, err := app.ListOccurrences(t.Context(), acct.ID, cal, standup.ID, window)
	if err != nil || len(occ.Data) != 6 {
		t.Fatalf("occurrences = %v, %v", occ, err)
	}
	ctx, key := t.Context(), unical.WriteOptions{IdempotencyKey: "split-once"}
	params := &unical.EventParams{Title: unical.Some("Standup (new time)")}
	first, err := series.Update(ctx, app, acct.ID, cal, occ.Data[3].ID, series.ScopeThisAndFollowing, params, key)
	if err != nil {
		t.Fatalf("keyed split: %v", err)
	}
	again, err := series.Update(ctx, app, acct.ID, cal, occ.Data[3].ID, series.ScopeThisAndFollowing, params, key)
	if err != nil {
		t.Fatalf("retried split: %v", err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the retry's answer differs from the first (-first +retry):\n%s", diff)
	}
	events, err := app.ListEvents(t.Context(), acct.ID, cal, &unical.EventListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, e := range events.Data {
		titles = append(titles, e.Title)
	}
	slices.Sort(titles)
	if diff := cmp.Diff([]string{"Standup", "Standup (new time)"}, titles); diff != "" {
		t.Errorf("series after a split and its retry (-want +got):\n%s", diff)
	}
	if _, err := series.Delete(ctx, app, acct.ID, cal, first.ID, series.ScopeThisAndFollowing, key); unical.ErrorCode(err) != unical.CodeKeyReused {
		t.Errorf("the key reused for a delete = %v, want %s", err, unical.CodeKeyReused)
	}
}
