package microsoft

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// receiver is a notification endpoint that answers through
// ParseNotification and records the changes it reports.
type receiver struct {
	URL     string
	mu      sync.Mutex
	changes []unical.WatchChange
}

func mustStartReceiver(t *testing.T, p *Provider) *receiver {
	t.Helper()
	rc := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		res, err := p.ParseNotification(&unical.Notification{Method: r.Method, Header: r.Header, Query: r.URL.Query(), Body: body})
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.changes = append(rc.changes, res.Changes...)
		rc.mu.Unlock()
		if res.ContentType != "" {
			w.Header().Set("Content-Type", res.ContentType)
		}
		w.WriteHeader(res.Status)
		_, _ = w.Write(res.Body)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/v1/notifications/graph"
	return rc
}

// take returns and forgets the changes received so far.
func (rc *receiver) take() []unical.WatchChange {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := rc.changes
	rc.changes = nil
	return out
}

// TestWatch creates a subscription through the validation handshake,
// receives a change notification and lifecycle notifications, renews,
// recreates a removed subscription and stops it.
func TestWatch(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, graphtest.Options{AllowHTTPNotificationURLs: true})
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	rc := mustStartReceiver(t, f.p)
	req := &unical.WatchRequest{CalendarID: def, Address: rc.URL, Token: "client-state-1", Expiration: time.Now().Add(30 * 24 * time.Hour)}

	w, err := f.p.Watch(t.Context(), s, req)
	if err != nil {
		t.Fatal(err)
	}
	if limit := time.Now().Add(DefaultMaxWatchLifetime); w.Expiration.After(limit) || w.Expiration.Before(limit.Add(-2*time.Minute)) {
		t.Errorf("expiration %v; want capped near %v", w.Expiration, limit)
	}
	subs := f.srv.Subscriptions()
	if len(subs) != 1 || subs[0].ID != w.ID || subs[0].ClientState != "client-state-1" || subs[0].Resource != "me/calendars/"+def+"/events" ||
		subs[0].NotificationURL != rc.URL || subs[0].LifecycleNotificationURL != rc.URL || subs[0].ChangeType != "created,updated,deleted" {
		t.Fatalf("subscriptions = %+v; watch %+v", subs, w)
	}
	for _, d := range f.srv.Deliveries() {
		if d.Kind != "validation" || d.Status != http.StatusOK || d.Err != "" {
			t.Errorf("delivery %+v; want a passed validation", d)
		}
	}
	if got := rc.take(); len(got) != 0 {
		t.Errorf("validation reported changes %+v", got)
	}

	if _, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
		Title: unical.Some("notify me"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}),
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []unical.WatchChange{{WatchID: w.ID, Token: "client-state-1", Kind: "changed"}}
	if diff := cmp.Diff(want, rc.take()); diff != "" {
		t.Errorf("change notification (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		event string
		kind  unical.WatchChangeKind
	}{
		{"reauthorizationRequired", "reauthorize"},
		{"missed", "missed"},
	} {
		if err := f.srv.TriggerLifecycle(w.ID, tc.event); err != nil {
			t.Fatal(err)
		}
		want := []unical.WatchChange{{WatchID: w.ID, Token: "client-state-1", Kind: tc.kind}}
		if diff := cmp.Diff(want, rc.take()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.event, diff)
		}
	}

	renewReq := *req
	renewReq.Expiration = time.Now().Add(24 * time.Hour)
	renewed, err := f.p.RenewWatch(t.Context(), s, w, &renewReq)
	if err != nil {
		t.Fatal(err)
	}
	if renewed.ID != w.ID || renewed.Token != "client-state-1" || !renewed.Expiration.Equal(renewReq.Expiration.UTC().Truncate(time.Second)) {
		t.Errorf("renewed = %+v; want %s until %v", renewed, w.ID, renewReq.Expiration)
	}
	if subs := f.srv.Subscriptions(); len(subs) != 1 || !subs[0].ExpirationDateTime.Equal(renewed.Expiration) {
		t.Errorf("after renewal: %+v", subs)
	}

	if err := f.srv.TriggerLifecycle(w.ID, "subscriptionRemoved"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]unical.WatchChange{{WatchID: w.ID, Token: "client-state-1", Kind: "removed"}}, rc.take()); diff != "" {
		t.Errorf("subscriptionRemoved (-want +got):\n%s", diff)
	}
	recreated, err := f.p.RenewWatch(t.Context(), s, w, &renewReq)
	if err != nil {
		t.Fatal(err)
	}
	if recreated.ID == w.ID || len(f.srv.Subscriptions()) != 1 {
		t.Errorf("renewing a removed subscription gave %+v; subscriptions %+v", recreated, f.srv.Subscriptions())
	}

	// Graph cannot change clientState: a new token means a new
	// subscription, and the old one is deleted.
	tokenReq := renewReq
	tokenReq.Token = "client-state-2"
	rotated, err := f.p.RenewWatch(t.Context(), s, recreated, &tokenReq)
	if err != nil {
		t.Fatal(err)
	}
	if subs := f.srv.Subscriptions(); rotated.ID == recreated.ID || rotated.Token != "client-state-2" || len(subs) != 1 || subs[0].ID != rotated.ID || subs[0].ClientState != "client-state-2" {
		t.Errorf("renewal with a new token gave %+v; subscriptions %+v", rotated, subs)
	}
	recreated = rotated

	if err := f.p.StopWatch(t.Context(), s, recreated); err != nil {
		t.Fatal(err)
	}
	if subs := f.srv.Subscriptions(); len(subs) != 0 {
		t.Errorf("after StopWatch: %+v", subs)
	}
	if err := f.p.StopWatch(t.Context(), s, recreated); err != nil {
		t.Errorf("stopping a stopped watch: %v", err)
	}

	t.Run("ErrHandshake", func(t *testing.T) {
		dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
		t.Cleanup(dead.Close)
		_, err := f.p.Watch(t.Context(), s, &unical.WatchRequest{CalendarID: def, Address: dead.URL, Token: "x"})
		if unical.ErrorCode(err) != unical.CodeInvalid {
			t.Errorf("endpoint failing the handshake: %v; want CodeInvalid", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := f.p.Watch(t.Context(), s, &unical.WatchRequest{CalendarID: "AAMkNoSuchCalendar", Address: rc.URL, Token: "x"})
		if unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("unknown calendar: %v; want CodeNotFound", err)
		}
	})
}

func TestParseNotification(t *testing.T) {
	t.Parallel()
	p, _ := New(Config{})
	tests := []struct {
		name     string
		n        unical.Notification
		want     *unical.NotificationResult
		wantCode unical.Code
	}{
		{
			name: "Validation",
			n:    unical.Notification{Method: "POST", Query: map[string][]string{"validationToken": {"Validation: Testing client application reachability <&>"}}},
			want: &unical.NotificationResult{Status: 200, ContentType: "text/plain; charset=utf-8", Body: []byte("Validation: Testing client application reachability <&>")},
		},
		{
			name: "Batch",
			n: unical.Notification{Method: "POST", Body: []byte(`{"value":[
				{"subscriptionId":"s1","clientState":"c1","changeType":"updated","resource":"Users/u/Events/e","resourceData":{"id":"e"}},
				{"subscriptionId":"s2","clientState":"c2","changeType":"deleted"},
				{"subscriptionId":"s1","clientState":"c1","lifecycleEvent":"reauthorizationRequired"},
				{"subscriptionId":"s1","clientState":"c1","lifecycleEvent":"somethingNew"},
				{"clientState":"c1","changeType":"created"}]}`)},
			want: &unical.NotificationResult{Status: 202, Changes: []unical.WatchChange{
				{WatchID: "s1", Token: "c1", Kind: "changed"},
				{WatchID: "s2", Token: "c2", Kind: "changed"},
				{WatchID: "s1", Token: "c1", Kind: "reauthorize"},
			}},
		},
		{name: "ErrMethod", n: unical.Notification{Method: "GET", Query: map[string][]string{"validationToken": {"x"}}}, wantCode: unical.CodeInvalid},
		{name: "ErrEmptyToken", n: unical.Notification{Method: "POST", Query: map[string][]string{"validationToken": {""}}}, wantCode: unical.CodeInvalid},
		{name: "ErrNotJSON", n: unical.Notification{Method: "POST", Body: []byte("hello")}, wantCode: unical.CodeInvalid},
		{name: "ErrNoValue", n: unical.Notification{Method: "POST", Body: []byte(`{}`)}, wantCode: unical.CodeInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.ParseNotification(&tc.n)
			if tc.wantCode != "" {
				if unical.ErrorCode(err) != tc.wantCode {
					t.Errorf("ParseNotification() error %v; want %s", err, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseNotification() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWatchFallsBackToMeEvents: where Graph refuses the undocumented
// per-calendar resource, Watch subscribes to the documented me/events and
// still hears about the calendar's changes; an unknown calendar is still
// CodeNotFound.
func TestWatchFallsBackToMeEvents(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, graphtest.Options{AllowHTTPNotificationURLs: true, DocumentedSubscriptionResourcesOnly: true})
	s, _ := f.session(t)
	cal, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Team")})
	if err != nil {
		t.Fatal(err)
	}
	rc := mustStartReceiver(t, f.p)
	w, err := f.p.Watch(t.Context(), s, &unical.WatchRequest{CalendarID: cal.ID, Address: rc.URL, Token: "st"})
	if err != nil {
		t.Fatal(err)
	}
	if subs := f.srv.Subscriptions(); len(subs) != 1 || subs[0].ID != w.ID || subs[0].Resource != "me/events" || w.ResourceID != "me/events" {
		t.Fatalf("subscriptions = %+v; watch %+v; want one on me/events", subs, w)
	}
	if _, err := f.p.CreateEvent(t.Context(), s, cal.ID, &unical.EventParams{
		Title: unical.Some("notify me"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}),
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]unical.WatchChange{{WatchID: w.ID, Token: "st", Kind: "changed"}}, rc.take()); diff != "" {
		t.Errorf("change notification (-want +got):\n%s", diff)
	}
	_, err = f.p.Watch(t.Context(), s, &unical.WatchRequest{CalendarID: "AAMkNoSuchCalendar", Address: rc.URL, Token: "x"})
	if unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("unknown calendar: %v; want CodeNotFound", err)
	}
	if n := len(f.srv.Subscriptions()); n != 1 {
		t.Errorf("%d subscriptions after refusing an unknown calendar; want 1", n)
	}
}
