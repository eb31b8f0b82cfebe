// Package muxpath tells when http.ServeMux would route a request by its
// path exactly as it arrived, so that a handler in front of a ServeMux can
// route the most frequent requests itself, without the ServeMux's work on
// every path (escaping it, cleaning it, unescaping the wildcards), and
// still route them as the ServeMux would.
package muxpath

import (
	"net/http"
	"strings"
)

// Plain returns r.URL.Path and true when http.ServeMux would match r by
// that path as it is and neither clean nor redirect it:
//   - r is not a CONNECT request (ServeMux does not canonicalize those);
//   - the path has no escaped form of its own (RawPath is empty), so the
//     ServeMux's escaped path is r.URL.Path escaped, whose segments it
//     unescapes back to those of r.URL.Path;
//   - the path starts with "/" and has no empty segment and no segment
//     starting with "." (a superset of "." and ".."), so cleaning it
//     changes nothing.
//
// A false answer only means the caller should leave r to the ServeMux.
func Plain(r *http.Request) (string, bool) {
	p := r.URL.Path
	if r.Method == http.MethodConnect || r.URL.RawPath != "" || !strings.HasPrefix(p, "/") {
		return "", false
	}
	// One pass from slash to slash, not one search for each of "//" and
	// "/.": a third of the work.
	for i := 0; ; {
		next := strings.IndexByte(p[i+1:], '/')
		if i+1 < len(p) && (p[i+1] == '/' || p[i+1] == '.') {
			return "", false
		}
		if next < 0 {
			return p, true
		}
		i += 1 + next
	}
}
