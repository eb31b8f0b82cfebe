package httpapi_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/observe"
)

// callLog is an Observer that counts ListCalendars calls by outcome and
// their retries, which it hears by wrapping the providers.
type callLog struct {
	unical.NopObserver
	mu       sync.Mutex
	outcomes map[string]int
	retries  int
}

func (l *callLog) ProviderCall(t unical.ProviderType, op, outcome string, _ time.Duration) {
	if op != "ListCalendars" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outcomes[string(t)+" "+outcome]++
}

func (l *callLog) ProviderRetry(t unical.ProviderType, op string) {
	if op != "ListCalendars" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retries++
}

func (l *callLog) WrapProvider(p unical.Provider) unical.Provider { return observe.Provider(p, l) }

func (l *callLog) take() (map[string]int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out, n := l.outcomes, l.retries
	l.outcomes, l.retries = map[string]int{}, 0
	return out, n
}

// TestGoogleE2E_ObservedCalls checks what the Client's Observer hears of
// Google calls: each outcome, and each retry the provider makes.
func TestGoogleE2E_ObservedCalls(t *testing.T) {
	t.Parallel()
	log := &callLog{outcomes: map[string]int{}}
	st := mustNewGoogleStackWith(t, googletest.Options{}, func(cfg *apitest.Config) { cfg.Observer = log })
	accountID := st.connect(t)
	cals := "/v1/calendars/" + accountID

	tests := []struct {
		name        string
		fault       *googletest.Fault
		wantStatus  int
		wantOutcome string
		wantRetries int
	}{
		{"throttled twice, then served", &googletest.Fault{Method: "GET", PathPrefix: "/calendar/v3/", Status: 403, Reason: "userRateLimitExceeded", Times: 2}, 200, "ok", 2},
		{"Retry-After too long to wait", &googletest.Fault{Method: "GET", PathPrefix: "/calendar/v3/", Status: 429, RetryAfter: "1", Times: 1}, 429, "rate_limited", 0},
		{"down through every retry", &googletest.Fault{Method: "GET", PathPrefix: "/calendar/v3/", Status: 503, Times: 4}, 503, "unavailable", 3},
		{"served", nil, 200, "ok", 0},
	}
	for _, tt := range tests {
		if tt.fault != nil {
			st.google.InjectFault(*tt.fault)
		}
		if a := st.do(t, "GET", cals, nil); a.Status != tt.wantStatus {
			t.Fatalf("%s: GET calendars = %d %s, want %d", tt.name, a.Status, a.Body, tt.wantStatus)
		}
		outcomes, retries := log.take()
		if diff := cmp.Diff(map[string]int{"PROVIDER_A " + tt.wantOutcome: 1}, outcomes); diff != "" {
			t.Errorf("%s: outcomes (-want +got):\n%s", tt.name, diff)
		}
		if retries != tt.wantRetries {
			t.Errorf("%s: %d retries, want %d", tt.name, retries, tt.wantRetries)
		}
	}

	st.google.RevokeAccess(e2eClientID, e2eUser)
	if a := st.do(t, "GET", cals, nil); a.Status != http.StatusConflict {
		t.Fatalf("GET calendars after revocation = %d %s, want 409", a.Status, a.Body)
	}
	if outcomes, _ := log.take(); outcomes["PROVIDER_A expired"] != 1 {
		t.Errorf("outcomes after revocation = %v, want one expired", outcomes)
	}
}
