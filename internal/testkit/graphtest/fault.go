package graphtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical/internal/testkit/fakekit"
)

// Fault makes the next Count requests that match answer with an error or
// wait first.
type Fault struct {
	// PathPrefix selects requests by URL path, such as
	// "/v1.0/me/calendarView" or "/" for every request.
	PathPrefix string
	// Method selects requests by method; empty means any.
	Method string
	// Count is how many matching requests the fault affects. Default 1.
	Count int
	// Status is the answer: 429 (Graph's TooManyRequests), 503
	// (serviceNotAvailable), 504 or any other status; 0 lets the request
	// through after Delay.
	Status int
	// RetryAfter sets the Retry-After header (whole seconds) when positive.
	// Graph sends it with 429 and may send it with 503
	// (https://learn.microsoft.com/graph/throttling).
	RetryAfter time.Duration
	// RetryAfterHeader, when set, is the Retry-After header verbatim and
	// overrides RetryAfter. Revisions of concepts/throttling.md show both
	// "Retry-After: 10" and "Retry-After: 2.128" in the sample 429, so
	// tests can send fractional seconds (or an HTTP date).
	RetryAfterHeader string
	// Delay waits before answering (or before handling the request when
	// Status is 0), up to the request's cancellation.
	Delay time.Duration
}

// InjectFault adds a fault. Faults apply in the order they were added; one
// request consumes at most one fault.
func (s *Server) InjectFault(f Fault) {
	s.faults.Add(f.Method, f.PathPrefix, f.Count, f)
}

// ClearFaults removes the faults not used up yet, so that Graph answers
// again.
func (s *Server) ClearFaults() { s.faults.Clear() }

// Throttle makes the next n requests under pathPrefix answer 429 Too Many
// Requests with Retry-After.
func (s *Server) Throttle(pathPrefix string, n int, retryAfter time.Duration) {
	s.InjectFault(Fault{PathPrefix: pathPrefix, Count: n, Status: http.StatusTooManyRequests, RetryAfter: retryAfter})
}

// applyFault delays and answers a faulted request. It reports whether it
// wrote the response.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f Fault) bool {
	if !fakekit.Hold(r, f.Delay, s.ctx.Done()) {
		return true
	}
	if f.Status == 0 {
		return false
	}
	switch {
	case f.RetryAfterHeader != "":
		w.Header().Set("Retry-After", f.RetryAfterHeader)
	case f.RetryAfter > 0:
		w.Header().Set("Retry-After", strconv.Itoa(int((f.RetryAfter+time.Second-1)/time.Second)))
	}
	now := s.now()
	if !strings.HasPrefix(r.URL.Path, "/v1.0/") {
		s.writeTokenError(w, &tokenError{f.Status, "temporarily_unavailable", 90033, "A transient error has occurred. Please try again."})
		return true
	}
	switch f.Status {
	case http.StatusTooManyRequests:
		// The sample response of concepts/throttling.md: code
		// TooManyRequests, message "Please retry again later.", and an
		// innerError with code and status "429".
		writeGraphErrorInner(w, r, now, f.Status, "TooManyRequests", "Please retry again later.",
			map[string]any{"code": "429", "message": "Please retry after", "status": "429"})
	case http.StatusServiceUnavailable:
		writeGraphError(w, r, now, f.Status, "serviceNotAvailable", "The service is not available. Try the request again after a delay.")
	case http.StatusGatewayTimeout:
		writeGraphError(w, r, now, f.Status, "GatewayTimeout", "The server, while acting as a proxy, did not receive a timely response from the upstream server.")
	default:
		writeGraphError(w, r, now, f.Status, "generalException", "graphtest: injected fault %d.", f.Status)
	}
	return true
}

// Clock is a settable clock for Options.Now, shared by the fakes.
type Clock = fakekit.Clock

// NewClock returns a Clock that starts at t.
func NewClock(t time.Time) *Clock { return fakekit.NewClock(t) }
