package httpapi_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
	"github.com/unical/unical/webhookreceiver"
)

// changeView is what a test compares of one change: its type, the event
// id, the title of its body and whether it was truncated.
type changeView struct {
	Type, EventID, Title string
	Cancelled, Truncated bool
	HasBody              bool
}

// nextChanges waits for the receiver's next delivery, decodes it with
// webhookreceiver as a receiver would, and returns its changes.
func nextChanges(t *testing.T, rcv *apitest.Receiver, seen *int) *webhookreceiver.CalendarEvent {
	t.Helper()
	got := rcv.WaitFor(t, *seen+1)
	*seen++
	d := got[*seen-1]
	if !d.Verified {
		t.Errorf("delivery %s did not verify", d.ID)
	}
	ev, err := webhookreceiver.Decode(d.Body)
	if err != nil {
		t.Fatalf("decode %s: %v", d.Body, err)
	}
	ce, ok := ev.(*webhookreceiver.CalendarEvent)
	if !ok || ce.Type != unical.EventTypeCalendarEventChanged {
		t.Fatalf("delivered %s, want calendar.event.changed", d.Body)
	}
	return ce
}

func viewsOf(ce *webhookreceiver.CalendarEvent) []changeView {
	var out []changeView
	for _, c := range ce.Changes {
		v := changeView{Type: c.Type, EventID: c.EventID, Truncated: c.Truncated, HasBody: c.Event != nil}
		if c.Event != nil {
			v.Title, v.Cancelled = c.Event.Title, c.Event.IsCancelled
		}
		out = append(out, v)
	}
	return out
}

// TestGoogleE2E_IncludeEvents checks change payloads end to end against
// the fake Google, polled and pushed: created, updated and deleted events
// arrive in order with the event as GET returns it (id and isCancelled
// for a deletion); a burst between two sync steps arrives as one message;
// a burst past 100 events announces the rest without bodies.
func TestGoogleE2E_IncludeEvents(t *testing.T) {
	t.Parallel()
	for _, push := range []bool{false, true} {
		t.Run(map[bool]string{false: "Poll", true: "Push"}[push], func(t *testing.T) {
			t.Parallel()
			rcv, seen := apitest.NewReceiver(t), 0
			// Without AllowHTTPPush Google refuses our http:// address and
			// the subscription is polled.
			st := mustNewGoogleStackWith(t, googletest.Options{AllowHTTPPush: push}, func(cfg *apitest.Config) {
				cfg.Sender, cfg.AllowPrivateTargets = rcv.Sender(), true
				cfg.OutboxPollInterval, cfg.ChangePollInterval, cfg.RetryJitter = 20*time.Millisecond, -1, -1
				cfg.ReconcileInterval = -1
			})
			go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
			accountID := st.connect(t)
			var sub subscriptions.Created
			st.must(t, "POST", "/v1/calendarSubscriptions/"+accountID, map[string]any{"calendarId": e2eUser, "webhookUrl": rcv.URL + "/hook", "includeEvents": true}, &sub)
			rcv.SetSecret(sub.EndpointSecret)
			if got := len(st.google.Channels()); got != map[bool]int{false: 0, true: 1}[push] {
				t.Fatalf("%d channels, want push %v", got, push)
			}
			var subs struct{ Data []unical.Subscription }
			st.must(t, "GET", "/v1/calendarSubscriptions/"+accountID, nil, &subs)
			if len(subs.Data) != 1 || !subs.Data[0].IncludeEvents {
				t.Errorf("listed subscription = %+v, want includeEvents", subs.Data)
			}
			// step makes the sync step a poll makes; under push the
			// notification has made it already.
			step := func() {
				t.Helper()
				if !push {
					if err := engine.PollChanges(t.Context(), st.Client, st.Engine); err != nil {
						t.Fatal(err)
					}
				}
			}
			base := "/v1/events/" + accountID + "/" + url.PathEscape(e2eUser)
			body := func(title string, day int) map[string]any {
				return map[string]any{"title": title, "start": map[string]any{"dateTime": fmt.Sprintf("2026-05-%02dT09:00:00Z", day)},
					"end": map[string]any{"dateTime": fmt.Sprintf("2026-05-%02dT10:00:00Z", day)}}
			}
			// wantBodyAsGET checks that a change carries the event as GET
			// returns it.
			wantBodyAsGET := func(what string, c webhookreceiver.Change) {
				t.Helper()
				var got unical.Event
				st.must(t, "GET", base+"/"+url.PathEscape(c.EventID), nil, &got)
				// Google's listing (the sync step) gives a timed start or
				// end without a zone of its own the calendar's zone, which
				// events.get does not return.
				listed := *c.Event
				for _, d := range []**unical.EventDateTime{&listed.Start, &listed.End} {
					if *d != nil && (*d).TimeZone == "Europe/Paris" {
						cp := **d
						cp.TimeZone = ""
						*d = &cp
					}
				}
				if diff := cmp.Diff(&got, &listed); diff != "" {
					t.Errorf("%s: event in the message differs from GET (-GET +message):\n%s", what, diff)
				}
			}

			// One change per step.
			var ev unical.Event
			st.must(t, "POST", base, body("Standup", 4), &ev)
			step()
			created := nextChanges(t, rcv, &seen)
			if diff := cmp.Diff([]changeView{{Type: "created", EventID: ev.ID, Title: "Standup", HasBody: true}}, viewsOf(created)); diff != "" {
				t.Fatalf("create (-want +got):\n%s", diff)
			}
			wantBodyAsGET("create", created.Changes[0])
			st.must(t, "PUT", base+"/"+url.PathEscape(ev.ID), map[string]any{"title": "Standup (moved)", "description": "room 2"}, nil)
			step()
			updated := nextChanges(t, rcv, &seen)
			if diff := cmp.Diff([]changeView{{Type: "updated", EventID: ev.ID, Title: "Standup (moved)", HasBody: true}}, viewsOf(updated)); diff != "" {
				t.Fatalf("update (-want +got):\n%s", diff)
			}
			wantBodyAsGET("update", updated.Changes[0])
			st.must(t, "DELETE", base+"/"+url.PathEscape(ev.ID), nil, nil)
			step()
			deleted := nextChanges(t, rcv, &seen)
			if diff := cmp.Diff([]webhookreceiver.Change{{Type: "deleted", EventID: ev.ID, Event: &unical.Event{ID: ev.ID, IsCancelled: true}}}, deleted.Changes); diff != "" {
				t.Fatalf("delete (-want +got):\n%s", diff)
			}
			if push {
				return // bursts under push are left to the poll subtest: notifications come one per change
			}

			// A burst between two steps: one message, every change once in
			// its latest state, oldest change first. Google's tombstones
			// carry no time (the Event.status reference guarantees only
			// their id), so a deletion keeps the place Google lists it at.
			var a, b, c unical.Event
			st.must(t, "POST", base, body("A", 5), &a)
			st.must(t, "POST", base, body("B", 6), &b)
			st.must(t, "POST", base, body("C", 7), &c)
			st.must(t, "PUT", base+"/"+url.PathEscape(a.ID), map[string]any{"title": "A2"}, nil)
			st.must(t, "DELETE", base+"/"+url.PathEscape(b.ID), nil, nil)
			step()
			burst := nextChanges(t, rcv, &seen)
			var kept, gone []changeView
			for _, v := range viewsOf(burst) {
				if v.Type == "deleted" {
					gone = append(gone, v)
				} else {
					kept = append(kept, v)
				}
			}
			want := []changeView{
				{Type: "created", EventID: c.ID, Title: "C", HasBody: true},
				{Type: "created", EventID: a.ID, Title: "A2", HasBody: true},
			}
			if diff := cmp.Diff(want, kept); diff != "" {
				t.Errorf("burst: created and updated events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]changeView{{Type: "deleted", EventID: b.ID, Cancelled: true, HasBody: true}}, gone); diff != "" {
				t.Errorf("burst: deleted events (-want +got):\n%s", diff)
			}
			time.Sleep(100 * time.Millisecond)
			if n := len(rcv.Deliveries()); n != seen {
				t.Errorf("the burst made %d more messages, want one", n-seen+1)
			}

			// A burst past the limits: 100 bodies, then announcements.
			for i := range outbox.MaxChangeBodies + 5 {
				st.google.AddEvent(e2eUser, googletest.Event{Summary: fmt.Sprintf("bulk %03d", i),
					Start: &googletest.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}})
			}
			step()
			bulk := nextChanges(t, rcv, &seen)
			if len(bulk.Changes) != outbox.MaxChangeBodies+5 || bulk.ChangesTruncated {
				t.Fatalf("bulk message has %d changes (truncated %v), want %d listed", len(bulk.Changes), bulk.ChangesTruncated, outbox.MaxChangeBodies+5)
			}
			for i, ch := range bulk.Changes {
				wantBody := i < outbox.MaxChangeBodies
				if (ch.Event != nil) != wantBody || ch.Truncated == wantBody || ch.Type != "created" {
					t.Errorf("bulk change %d = %+v, want body %v", i, ch, wantBody)
				}
				if wantBody && ch.Event.Title != fmt.Sprintf("bulk %03d", i) {
					t.Errorf("bulk change %d has %q, want them in order", i, ch.Event.Title)
				}
			}
		})
	}
}
