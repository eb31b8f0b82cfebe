package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/unical/unical/requestlog"
)

// logged returns w as the exchange that records the answer's status: the
// front door's, or a new one when there is no front door.
func logged(w http.ResponseWriter) *exchange {
	if x, ok := w.(*exchange); ok {
		return x
	}
	return &exchange{ResponseWriter: w, start: time.Now()}
}

// logRequest adds the request answered through x to the request log of
// application appID, with status, or x's status when it is 0 (200 when
// nothing was written: net/http sends 200). It keeps the route pattern,
// never the path, and credential: an API key's public prefix ("uk_<id>_",
// which the log copies, so that it holds no part of the key's secret) or
// a scoped token's id.
func (h *handler) logRequest(x *exchange, r *http.Request, appID, credential string, status int) {
	if status == 0 {
		status = x.status
	}
	if status == 0 {
		status = http.StatusOK
	}
	route := r.Pattern
	if _, path, ok := strings.Cut(route, " "); ok {
		route = path
	}
	h.requests.Record(appID, requestlog.Entry{
		At: x.start.UTC(), Method: r.Method, Route: route, Status: status,
		Latency: time.Since(x.start), KeyPrefix: credential,
	})
}
