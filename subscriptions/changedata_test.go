package subscriptions

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
)

// TestChangeData checks what one sync step's listing becomes in an
// includeEvents message: change types from the previous step's time,
// oldest change first, bodies up to MaxChangeBytes and announcements
// after, and at most MaxChangesListed changes.
func TestChangeData(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 5, 1, 12, 0, 0, 500e6, time.UTC)
	type view struct {
		Type, ID  string
		Body      bool
		Truncated bool
	}
	viewOf := func(d *unical.ChangeData) []view {
		var out []view
		for _, c := range d.Events {
			out = append(out, view{c.ChangeType, c.EventID, len(c.Event) > 0, c.Truncated})
		}
		return out
	}
	t.Run("Types and order", func(t *testing.T) {
		d := changeData([]*unical.Event{
			{ID: "old", CreatedAt: "2026-04-01T00:00:00Z", UpdatedAt: "2026-05-01T12:00:03Z"},
			{ID: "new", CreatedAt: "2026-05-01T12:00:01.000Z", UpdatedAt: "2026-05-01T12:00:01Z"},
			{ID: "gone", IsCancelled: true},
			// CalDAV's CREATED has whole seconds: the cursor's second counts.
			{ID: "caldav", CreatedAt: "2026-05-01T12:00:00Z", UpdatedAt: "2026-05-01T12:00:02Z"},
		}, since)
		want := []view{{"created", "new", true, false}, {"deleted", "gone", true, false}, {"created", "caldav", true, false}, {"updated", "old", true, false}}
		if diff := cmp.Diff(want, viewOf(d)); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
		if got := string(d.Events[1].Event); got != `{"id":"gone","isCancelled":true}` {
			t.Errorf("deleted body = %s", got)
		}
	})
	t.Run("Bytes", func(t *testing.T) {
		big := strings.Repeat("x", unical.MaxChangeBytes/3)
		d := changeData([]*unical.Event{{ID: "a", Description: big}, {ID: "b", Description: big}, {ID: "c", Description: big}, {ID: "d"}}, since)
		want := []view{{"updated", "a", true, false}, {"updated", "b", true, false}, {"updated", "c", false, true}, {"updated", "d", false, true}}
		if diff := cmp.Diff(want, viewOf(d)); diff != "" || d.Truncated {
			t.Errorf("changes (-want +got):\n%s\ntruncated %v", diff, d.Truncated)
		}
	})
	t.Run("Count", func(t *testing.T) {
		events := make([]*unical.Event, unical.MaxChangesListed+1)
		for i := range events {
			events[i] = &unical.Event{ID: "e"}
		}
		d := changeData(events, since)
		bodies := 0
		for _, c := range d.Events {
			if len(c.Event) > 0 {
				bodies++
			}
		}
		if len(d.Events) != unical.MaxChangesListed || !d.Truncated || bodies != unical.MaxChangeBodies {
			t.Errorf("%d changes, %d bodies, truncated %v; want %d, %d, true", len(d.Events), bodies, d.Truncated, unical.MaxChangesListed, unical.MaxChangeBodies)
		}
	})
}
