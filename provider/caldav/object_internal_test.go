package caldav

import "testing"

func TestNormalizeETag(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{`"abc"`, `"abc"`},
		{`W/"abc"`, `W/"abc"`},
		{"abc", `"abc"`},
		{" abc ", `"abc"`},
		{"W/abc", `W/"abc"`},
		{`"abc`, `"abc"`},
	}
	for _, tt := range tests {
		if got := normalizeETag(tt.in); got != tt.want {
			t.Errorf("normalizeETag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWeakMatch follows the table of RFC 7232 §2.3.2.
func TestWeakMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{`W/"1"`, `W/"1"`, true},
		{`W/"1"`, `W/"2"`, false},
		{`W/"1"`, `"1"`, true},
		{`"1"`, `"1"`, true},
		{`"1"`, "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := weakMatch(tt.a, tt.b); got != tt.want {
			t.Errorf("weakMatch(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
