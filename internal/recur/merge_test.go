package recur_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/recur"
)

// Merge interleaves streams in (key, id) order, including values of one
// stream that share a key but come out of id order (a moved instance on
// another's start), and a consumer may stop early.
func TestMerge(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	type ev struct {
		id  string
		min int
	}
	key := func(e ev) recur.Keyed[ev] {
		return recur.Keyed[ev]{Key: t0.Add(time.Duration(e.min) * time.Minute), ID: e.id, V: e}
	}
	merged := func(limit int) []string {
		streams := []*recur.Stream[ev]{
			recur.NewStream(slices.Values([]ev{{"b", 0}, {"a", 0}, {"e", 30}}), key),
			recur.NewStream(slices.Values([]ev{{"c", 0}, {"d", 15}, {"f", 30}}), key),
			recur.NewStream(slices.Values([]ev(nil)), key),
		}
		defer func() {
			for _, s := range streams {
				s.Stop()
			}
		}()
		var ids []string
		for kv := range recur.Merge(streams) {
			if len(ids) == limit {
				break
			}
			ids = append(ids, kv.ID)
		}
		return ids
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e", "f"}, merged(-1)); diff != "" {
		t.Errorf("Merge() order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, merged(3)); diff != "" {
		t.Errorf("Merge() stopped after 3 (-want +got):\n%s", diff)
	}
}
