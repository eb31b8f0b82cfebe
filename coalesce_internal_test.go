package unical

import (
	"strconv"
	"testing"
)

// The coalescer's map stays bounded however many subscriptions come and go,
// and a deleted subscription's entry goes with it.
func TestCoalescer_Bounded(t *testing.T) {
	co := &coalescer{last: map[string]string{}}
	for i := range maxCoalesced + 10 {
		co.remember("sub"+strconv.Itoa(i), "msg"+strconv.Itoa(i))
		if n := len(co.last); n > maxCoalesced {
			t.Fatalf("after %d subscriptions the map holds %d entries, want at most %d", i+1, n, maxCoalesced)
		}
	}
	last := "sub" + strconv.Itoa(maxCoalesced+9)
	if got := co.last[last]; got != "msg"+strconv.Itoa(maxCoalesced+9) {
		t.Fatalf("newest entry = %q, want it kept", got)
	}
	co.forget(last)
	if _, ok := co.last[last]; ok {
		t.Fatal("forget left the entry in place")
	}
}
