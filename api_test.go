package unical_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apisuite"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/rooms"
	"github.com/unical/unical/series"
	"github.com/unical/unical/subscriptions"
)

// scopedWrites names series.API apart from subscriptions.API, so that the
// App's stand-in can embed both.
type scopedWrites = series.API

// TestApp runs the API suite (accounts, calendars, events with filters,
// ordering, expansion and tokens, free/busy, subscriptions, tenancy) against
// the in-process App over the in-memory provider: the Go API tested as Go.
// httpclient's tests run the same suite over HTTP, so the two cannot drift.
func TestApp(t *testing.T) {
	apisuite.Run(t, func(t *testing.T, st *apitest.Stack, appID, _ string) apisuite.API {
		app, err := st.Client.App(t.Context(), appID)
		if err != nil {
			t.Fatal(err)
		}
		// Subscriptions, the delivery log, the room directory and the
		// scoped event writes are package subscriptions', engine's, rooms'
		// and series', beside the App.
		return struct {
			*unical.App
			scopedWrites
			subscriptions.API
			engine.DeliveryLog
			*rooms.Directory
		}{app, series.Of(app), subscriptions.Of(app), engine.DeliveryLogOf(app), rooms.New(st.Client, app)}
	})
}
