package wirecode

import (
	"net/http"
	"testing"

	"github.com/unical/unical"
)

// TestCodeOfWire checks that every wire string of the error table leads
// back to its own code, which needs the strings to be distinct.
func TestCodeOfWire(t *testing.T) {
	for c, w := range codes {
		if got, ok := CodeOfWire(w.Code); !ok || got != c {
			t.Errorf("CodeOfWire(%q) = %q, %v; want %q", w.Code, got, ok, c)
		}
	}
	if got, ok := CodeOfWire("no_such_code"); ok {
		t.Errorf("CodeOfWire of an unknown string = %q, true", got)
	}
}

// TestCodeOfStatus checks that every code of the table is in statusOrder,
// so that a code added to the table is not forgotten there, and that the
// statuses map as documented.
func TestCodeOfStatus(t *testing.T) {
	listed := map[unical.Code]bool{}
	for _, c := range statusOrder {
		listed[c] = true
	}
	for c := range codes {
		if !listed[c] {
			t.Errorf("code %q is in the error table but not in statusOrder", c)
		}
	}
	for status, want := range map[int]unical.Code{
		http.StatusConflict:           unical.CodeConflict,
		http.StatusTooManyRequests:    unical.CodeRateLimited,
		http.StatusBadGateway:         unical.CodeUpstream,
		http.StatusServiceUnavailable: unical.CodeUnavailable,
		http.StatusGatewayTimeout:     Timeout,
		http.StatusTeapot:             unical.CodeInvalid,
		599:                           unical.CodeInternal,
	} {
		if got := CodeOfStatus(status); got != want {
			t.Errorf("CodeOfStatus(%d) = %q, want %q", status, got, want)
		}
	}
}
