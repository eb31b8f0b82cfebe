// Package freebusy merges busy intervals into the sorted, disjoint slots a
// free/busy answer shows.
package freebusy

import (
	"sort"
	"time"
)

// Interval is a half-open range [Start, End).
type Interval struct {
	Start, End time.Time
}

// Merge clips intervals to [from, to), drops empty ones, and joins the ones
// that overlap or touch, returning them sorted by start. The input is not
// modified.
func Merge(in []Interval, from, to time.Time) []Interval {
	clipped := make([]Interval, 0, len(in))
	for _, iv := range in {
		if iv.Start.Before(from) {
			iv.Start = from
		}
		if iv.End.After(to) {
			iv.End = to
		}
		if iv.End.After(iv.Start) {
			clipped = append(clipped, iv)
		}
	}
	sort.Slice(clipped, func(i, j int) bool { return clipped[i].Start.Before(clipped[j].Start) })
	out := make([]Interval, 0, len(clipped))
	for _, iv := range clipped {
		if n := len(out); n > 0 && !iv.Start.After(out[n-1].End) {
			if iv.End.After(out[n-1].End) {
				out[n-1].End = iv.End
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}
