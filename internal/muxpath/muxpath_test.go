package muxpath_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/unical/unical/internal/muxpath"
)

// TestPlain checks Plain's promise against http.ServeMux itself: whenever
// Plain answers true, the ServeMux routes the request by that very path,
// without a redirect, and a wildcard's value is the path's segment.
func TestPlain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		target string
		want   bool
	}{
		{"Account", "GET", "/v1/endUserAccounts/acc_06h1x", true},
		{"Query", "GET", "/v1/endUserAccounts?limit=50", true},
		{"TrailingSlash", "GET", "/v1/calendars/", true},
		{"Root", "GET", "/", true},
		{"EscapedByDefault", "GET", "/v1/a%20b/x", true},
		{"NeedlesslyEscaped", "GET", "/v1/a/%7Ex", false},
		{"Delete", "DELETE", "/v1/endUserAccounts/acc_1", true},
		{"EmptySegment", "GET", "/v1//endUserAccounts", false},
		{"Dot", "GET", "/v1/./endUserAccounts", false},
		{"DotDot", "GET", "/v1/x/../endUserAccounts", false},
		{"TrailingDot", "GET", "/v1/x/.", false},
		{"TrailingDotDot", "GET", "/v1/x/..", false},
		{"DotFile", "GET", "/v1/.well-known", false},
		{"EscapedSlash", "GET", "/v1/a/x%2Fy", false},
		{"Connect", "CONNECT", "/v1/a/x", false},
		{"Asterisk", "OPTIONS", "*", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var seen, id string
			served := false
			mux := http.NewServeMux()
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { served, seen = true, r.URL.Path })
			mux.HandleFunc("/v1/a/{id}", func(w http.ResponseWriter, r *http.Request) {
				served, seen, id = true, r.URL.Path, r.PathValue("id")
			})
			r := httptest.NewRequest(tc.method, tc.target, nil)
			p, ok := muxpath.Plain(r)
			if ok != tc.want {
				t.Fatalf("Plain(%s %s) = %t, want %t", tc.method, tc.target, ok, tc.want)
			}
			if !ok {
				return
			}
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			if !served || seen != p {
				t.Fatalf("ServeMux answered %d and served path %q, Plain said %q", w.Code, seen, p)
			}
			if strings.HasPrefix(p, "/v1/a/") && id != p[len("/v1/a/"):] {
				t.Errorf("wildcard id = %q, want the segment of %q", id, p)
			}
		})
	}
}
