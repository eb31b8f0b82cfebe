package memory_test

import (
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
)

// TestRespondToEvent_MovesETag shows that an answer is a change like any
// other (issue 21): the event's ETag and updatedAt move.
func TestRespondToEvent_MovesETag(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := memory.New(memory.Config{Type: unical.ProviderGoogle})
	cal := p.AddUser("ada@example.com", "rt", "")
	s := &unical.Session{Email: "ada@example.com"}
	created, err := p.CreateEvent(ctx, s, cal, &unical.EventParams{
		Title:     unical.Some("Review"),
		Start:     unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z", TimeZone: "UTC"}),
		End:       unical.Some(unical.EventDateTime{DateTime: "2026-05-04T10:00:00Z", TimeZone: "UTC"}),
		Attendees: unical.Some([]unical.Attendee{{Email: s.Email}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The provider reads the real clock, to the millisecond: let it pass
	// the creation's millisecond (a few at most).
	for deadline := time.Now().Add(time.Second); unical.FormatTimestamp(time.Now()) <= created.UpdatedAt && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if err := p.RespondToEvent(ctx, s, cal, created.ID, unical.ResponseAccepted); err != nil {
		t.Fatal(err)
	}
	got, err := p.GetEvent(ctx, s, cal, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag == created.ETag {
		t.Errorf("the ETag stayed %s after the answer", got.ETag)
	}
	if got.UpdatedAt <= created.UpdatedAt {
		t.Errorf("updatedAt = %s after the answer, want later than %s", got.UpdatedAt, created.UpdatedAt)
	}
}
