package freebusy_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/freebusy"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return time.Date(2026, 1, 5, h, 0, 0, 0, time.UTC) }
	iv := func(a, b int) freebusy.Interval { return freebusy.Interval{Start: at(a), End: at(b)} }
	tests := []struct {
		name string
		in   []freebusy.Interval
		want []freebusy.Interval
	}{
		{"Empty", nil, []freebusy.Interval{}},
		{"Disjoint", []freebusy.Interval{iv(14, 15), iv(9, 10)}, []freebusy.Interval{iv(9, 10), iv(14, 15)}},
		{"Overlapping", []freebusy.Interval{iv(9, 11), iv(10, 12)}, []freebusy.Interval{iv(9, 12)}},
		{"Touching", []freebusy.Interval{iv(9, 10), iv(10, 11)}, []freebusy.Interval{iv(9, 11)}},
		{"Contained", []freebusy.Interval{iv(9, 17), iv(10, 11)}, []freebusy.Interval{iv(9, 17)}},
		{"ClippedToWindow", []freebusy.Interval{iv(6, 9), iv(19, 23)}, []freebusy.Interval{iv(8, 9), iv(19, 20)}},
		{"OutsideWindow", []freebusy.Interval{iv(1, 2), iv(21, 22)}, []freebusy.Interval{}},
		{"ZeroLength", []freebusy.Interval{iv(10, 10)}, []freebusy.Interval{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := freebusy.Merge(tc.in, at(8), at(20))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Merge() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
