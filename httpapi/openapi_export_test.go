package httpapi

import "net/http"

// MountedRoutes returns the patterns NewHandler registers with cfg,
// without the catch-all "/" of unrouted requests.
func MountedRoutes(cfg Config) []string {
	h, _ := newHandler(cfg)
	var out []string
	for _, p := range h.mux.registered() {
		if p != "/" {
			out = append(out, p)
		}
	}
	return out
}

var _ http.Handler = (*routeMux)(nil)

// QueryParameters returns the query parameters the route of pattern takes.
func QueryParameters(pattern string) []string { return queryParams[pattern] }

// UncheckedQueryRoutes are the routes whose query is not checked, because
// providers add parameters of their own there.
var UncheckedQueryRoutes = []string{"GET /v1/oauth/callback", "POST /v1/notifications/{provider}/{appID}/{subscriptionID}"}
