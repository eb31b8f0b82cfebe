package ttlcache_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/ttlcache"
)

func TestEvery(t *testing.T) {
	t.Parallel()
	e := ttlcache.NewEvery(time.Minute)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var got []bool
	for _, step := range []struct {
		key    string
		at     time.Duration
		forget bool
	}{
		{key: "a", at: 0},
		{key: "a", at: 59 * time.Second},
		{key: "b", at: 59 * time.Second},
		{key: "a", at: time.Minute},
		{key: "a", at: time.Minute + time.Second, forget: true},
	} {
		if step.forget {
			e.Forget(step.key)
		}
		got = append(got, e.Due(step.key, start.Add(step.at)))
	}
	if diff := cmp.Diff([]bool{true, false, true, true, true}, got); diff != "" {
		t.Errorf("Due() mismatch (-want +got):\n%s", diff)
	}
}
