package requestlog_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/requestlog"
)

var t0 = time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

func entry(i int) requestlog.Entry {
	return requestlog.Entry{At: t0.Add(time.Duration(i) * time.Minute), Method: "GET", Route: "/v1/endUserAccounts",
		Status: 200 + i, Latency: time.Millisecond, KeyPrefix: "uk_k1_"}
}

func statuses(es []requestlog.Entry) []int {
	out := []int{}
	for _, e := range es {
		out = append(out, e.Status)
	}
	return out
}

func TestLog_List(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		size     int
		keep     time.Duration
		recorded int
		now      time.Time
		want     []int // statuses, newest first
	}{
		{name: "NewestFirst", size: 5, keep: time.Hour, recorded: 3, now: t0.Add(3 * time.Minute), want: []int{202, 201, 200}},
		{name: "OldestGiveWay", size: 3, keep: time.Hour, recorded: 5, now: t0.Add(5 * time.Minute), want: []int{204, 203, 202}},
		{name: "ExpiredLeftOut", size: 10, keep: 90 * time.Second, recorded: 4, now: t0.Add(4 * time.Minute), want: []int{203}},
		{name: "AllExpired", size: 10, keep: time.Minute, recorded: 2, now: t0.Add(time.Hour), want: []int{}},
		{name: "Empty", size: 10, keep: time.Hour, now: t0, want: []int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{now: tc.now}
			l := requestlog.New(requestlog.Config{PerApplication: tc.size, Retention: tc.keep, Now: c.Now})
			for i := range tc.recorded {
				l.Record("app1", entry(i))
			}
			if d := cmp.Diff(tc.want, statuses(l.List("app1"))); d != "" {
				t.Errorf("List() mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestLog_Applications checks that each application sees its own
// requests only, and that an application idle past the retention is
// forgotten while others are recorded.
func TestLog_Applications(t *testing.T) {
	t.Parallel()
	c := &clock{now: t0}
	l := requestlog.New(requestlog.Config{Retention: time.Hour, Now: c.Now})
	l.Record("app1", entry(0))
	l.Record("app2", entry(1))
	if d := cmp.Diff([]requestlog.Entry{entry(0)}, l.List("app1")); d != "" {
		t.Errorf("List(app1) mismatch (-want +got):\n%s", d)
	}
	if got := l.List("app3"); len(got) != 0 {
		t.Errorf("List(app3) = %v, want none", got)
	}
	c.Set(t0.Add(2 * time.Hour))
	for i := range 200 {
		l.Record(fmt.Sprintf("other%d", i), requestlog.Entry{At: c.Now(), Status: 200})
	}
	if got := l.List("app2"); len(got) != 0 {
		t.Errorf("List(app2) after its retention = %v, want none", got)
	}
}

func TestLog_Nil(t *testing.T) {
	t.Parallel()
	var l *requestlog.Log
	l.Record("app1", entry(0))
	if got := l.List("app1"); got != nil {
		t.Errorf("nil Log List() = %v, want nil", got)
	}
}

func TestLog_Defaults(t *testing.T) {
	t.Parallel()
	l := requestlog.New(requestlog.Config{})
	if l.PerApplication() != requestlog.DefaultPerApplication || l.Retention() != requestlog.DefaultRetention {
		t.Errorf("defaults = %d, %s; want %d, %s", l.PerApplication(), l.Retention(), requestlog.DefaultPerApplication, requestlog.DefaultRetention)
	}
}

// BenchmarkLog_Record measures what a request pays for its entry, from
// many goroutines at once as a server records them.
func BenchmarkLog_Record(b *testing.B) {
	l := requestlog.New(requestlog.Config{})
	e := entry(0)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Record("app1", e)
		}
	})
}
