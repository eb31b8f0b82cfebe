package httpapi

import "net/http"

// MountedRoutes returns the patterns NewHandler registers with opts,
// without the catch-all "/" of unrouted requests.
func MountedRoutes(opts Options) []string {
	h, _ := newHandler(nil, opts)
	var out []string
	for _, p := range h.mux.registered() {
		if p != "/" {
			out = append(out, p)
		}
	}
	return out
}

var _ http.Handler = (*routeMux)(nil)
