package httpapi

import (
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newStringLimiter(rl RateLimit, size int) *limiter[string] {
	return newLimiter(rl, size, hashString)
}

// TestLimiterBucket checks the token bucket: a burst, then one request per
// 1/rate, with the wait until the next token.
func TestLimiterBucket(t *testing.T) {
	l := newStringLimiter(RateLimit{PerSecond: 2, Burst: 3}, 0)
	type answer struct {
		OK   bool
		Wait time.Duration
	}
	ms := int64(time.Millisecond)
	steps := []struct {
		key string
		at  int64
	}{{"a", 0}, {"a", 0}, {"a", 0}, {"a", 0}, {"b", 0}, {"a", 100 * ms}, {"a", 500 * ms}, {"a", 500 * ms}, {"a", 2000 * ms}}
	var got []answer
	for _, s := range steps {
		ok, wait := l.allowAt(s.key, s.at)
		got = append(got, answer{ok, wait})
	}
	want := []answer{{true, 0}, {true, 0}, {true, 0}, {false, 500 * time.Millisecond}, {true, 0},
		{false, 400 * time.Millisecond}, {true, 0}, {false, 500 * time.Millisecond}, {true, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
}

// TestLimiterDefaultBurst checks that a zero Burst is twice the rate, and
// that no rate means no limiter.
func TestLimiterDefaultBurst(t *testing.T) {
	if l := newStringLimiter(RateLimit{}, 0); l != nil {
		t.Error("a zero rate made a limiter")
	}
	l := newStringLimiter(RateLimit{PerSecond: 5}, 0)
	n := 0
	for range 100 {
		if ok, _ := l.allowAt("k", 0); ok {
			n++
		}
	}
	if n != 10 {
		t.Errorf("burst of rate 5 = %d, want 10", n)
	}
}

// TestLimiterBounded sends many distinct callers at one instant: the table
// stays at its size, and callers past it share overflow buckets instead of
// getting a fresh burst each. Once the buckets have filled up again they
// are dropped and new callers get buckets of their own.
func TestLimiterBounded(t *testing.T) {
	const size = 1000
	l := newStringLimiter(RateLimit{PerSecond: 1, Burst: 1}, size)
	allowed := 0
	for i := range 20 * size {
		if ok, _ := l.allowAt("key-"+strconv.Itoa(i), 0); ok {
			allowed++
		}
	}
	shards := len(l.shards)
	if got := l.size(); got != size {
		t.Errorf("table holds %d callers after %d, want %d", got, 20*size, size)
	}
	if allowed != size+shards {
		t.Errorf("%d of %d callers were allowed, want %d (the table plus one overflow token per shard)", allowed, 20*size, size+shards)
	}
	// Two minutes later every bucket is full again: new callers replace
	// them. (Half the size, so that no shard can be full of new callers.)
	later := int64(2 * time.Minute)
	allowed = 0
	for i := range size / 2 {
		if ok, _ := l.allowAt("new-"+strconv.Itoa(i), later); ok {
			allowed++
		}
	}
	if allowed != size/2 || l.size() != size/2 {
		t.Errorf("after the idle sweep %d of %d new callers were allowed and the table holds %d; want all, and only them", allowed, size/2, l.size())
	}
}

// TestLimiterMemory checks with the heap that 200,000 distinct keys do not
// grow a limiter of 1,000 beyond a few hundred kilobytes.
func TestLimiterMemory(t *testing.T) {
	l := newStringLimiter(RateLimit{PerSecond: 1}, 1000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 200_000 {
		l.allowAt("uk_"+strconv.Itoa(i), int64(i)*int64(time.Microsecond))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 2<<20 {
		t.Errorf("the heap grew by %d bytes for a limiter of 1,000 callers", grown)
	}
	runtime.KeepAlive(l)
}

// TestLimiterNoAllocations checks the hot path: finding the client address
// and taking a token of a known caller allocate nothing.
func TestLimiterNoAllocations(t *testing.T) {
	h := &handler{ipLimit: newLimiter(RateLimit{PerSecond: 1e9}, 0, hashAddr), keyLimit: newStringLimiter(RateLimit{PerSecond: 1e9}, 0)}
	r := httptest.NewRequest("GET", "/v1/endUserAccounts", nil)
	r.RemoteAddr = "[2001:db8::7]:4711"
	key := "uk_abc_secret"
	h.ipLimit.allow(h.clientAddr(r))
	h.keyLimit.allow(apiKeyID(key))
	allocs := testing.AllocsPerRun(100, func() {
		h.ipLimit.allow(h.clientAddr(r))
		h.keyLimit.allow(apiKeyID(key))
	})
	if allocs != 0 {
		t.Errorf("%v allocations per request, want 0", allocs)
	}
}

// TestClientAddr checks which address a request counts against.
func TestClientAddr(t *testing.T) {
	tests := []struct {
		name, remote, forwarded string
		trust                   bool
		want                    string
	}{
		{"IPv4", "192.0.2.7:5000", "", false, "192.0.2.7"},
		{"IPv6Is/64", "[2001:db8:1:2:3:4:5:6]:5000", "", false, "2001:db8:1:2::"},
		{"MappedIPv4", "[::ffff:192.0.2.7]:5000", "", false, "192.0.2.7"},
		{"ForwardedIgnored", "192.0.2.7:5000", "198.51.100.1", false, "192.0.2.7"},
		{"ForwardedTrusted", "192.0.2.7:5000", "203.0.113.9, 198.51.100.1", true, "198.51.100.1"},
		{"ForwardedGarbage", "192.0.2.7:5000", "nonsense", true, "192.0.2.7"},
		{"NotIP", "@", "", false, "invalid IP"},
		{"IPv6WithoutBrackets", "2001:db8::1:5000", "", false, "invalid IP"},
		{"IPv6Zone", "[fe80::1%eth0]:5000", "", false, "fe80::"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &handler{trustForwardedFor: tc.trust}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			if tc.forwarded != "" {
				r.Header.Set("X-Forwarded-For", tc.forwarded)
			}
			if got := h.clientAddr(r).String(); got != tc.want {
				t.Errorf("clientAddr = %s, want %s", got, tc.want)
			}
		})
	}
}
