package ifmatch_test

import (
	"testing"

	"github.com/unical/unical/ifmatch"
)

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		sent, current string
		want          bool
	}{
		{`"42"`, `"42"`, true},
		{`42`, `"42"`, true},     // a Google or CalDAV etag sent without its quotes
		{`"ck1"`, `ck1`, true},   // a Graph change key sent quoted
		{`W/"ck1"`, `ck1`, true}, // as Graph's @odata.etag writes it
		{`"41"`, `"42"`, false},
		{`"42"`, ``, false}, // a provider without a version never matches
		{`""`, ``, false},
	} {
		if got := ifmatch.Matches(tc.sent, tc.current); got != tc.want {
			t.Errorf("Matches(%s, %s) = %v, want %v", tc.sent, tc.current, got, tc.want)
		}
	}
}

func TestQuoted(t *testing.T) {
	if got := ifmatch.Quoted(`7`); got != `"7"` {
		t.Errorf("Quoted(7) = %s", got)
	}
	if got := ifmatch.Quoted(`"7"`); got != `"7"` {
		t.Errorf(`Quoted("7") = %s`, got)
	}
}
