// Package requestlog keeps each application's most recent /v1 requests,
// as the operator's dashboard shows them: the method, the route pattern,
// the status, the latency, how the API key begins (never its secret) and the time.
//
// It keeps nothing a request carried: not the path (the route pattern,
// such as /v1/events/{endUserAccountId}/{calendarId}, holds no id), no
// query, no header, no body, and of the API key only its public prefix. It is
// bounded twice: at most Config.PerApplication entries per application
// (the oldest give way) and none older than Config.Retention.
//
// The log lives in the process's memory and costs a request no Store
// write: each unicald replica keeps the requests it served, and a restart
// empties it. Behind a load balancer, an operator sees one replica's
// share of the traffic on each page view.
package requestlog

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config.
const (
	DefaultPerApplication = 200
	DefaultRetention      = 24 * time.Hour
)

// Entry is one request as the log keeps it.
type Entry struct {
	At time.Time `json:"timestamp"`
	// Method is the request's method.
	Method string `json:"method"`
	// Route is the path of the route pattern that served the request,
	// never the request's own path.
	Route  string `json:"route"`
	Status int    `json:"status"`
	// Latency is the time from the request's arrival to its answer.
	Latency time.Duration `json:"-"`
	// KeyPrefix is how the API key the request was made with begins, its
	// public part up to the secret ("uk_<id>_"), as the API keys page
	// and the admin API's key list show it.
	KeyPrefix string `json:"apiKeyPrefix"`
}

// MarshalJSON writes the entry with its latency in milliseconds
// (latencyMs, to the microsecond) and its time in UTC.
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry // without this method
	return json.Marshal(struct {
		plain
		At        time.Time `json:"timestamp"`
		LatencyMS float64   `json:"latencyMs"`
	}{plain(e), e.At.UTC(), float64(e.Latency.Microseconds()) / 1000})
}

// Config configures New.
type Config struct {
	// PerApplication is how many requests are kept per application;
	// default DefaultPerApplication.
	PerApplication int
	// Retention is how long a request is kept; default DefaultRetention.
	Retention time.Duration
	// Now returns the current time; default time.Now.
	Now func() time.Time
}

// Log is the request log of every application. It is safe for
// concurrent use; a nil *Log records nothing.
type Log struct {
	size int
	keep time.Duration
	now  func() time.Time
	// apps holds a *ring per application: read without a lock on every
	// request.
	apps sync.Map
	// rings counts the entries of apps, to prune the idle ones now and
	// then rather than on every request.
	rings atomic.Int64
}

// ring is one application's entries, oldest overwritten first.
type ring struct {
	mu      sync.Mutex
	entries []Entry
	next    int // where the next entry goes once entries is full
	last    time.Time
	// prefixes holds one copy of each key prefix, so that recording a
	// request allocates nothing.
	prefixes map[string]string
}

// maxPrefixes bounds ring.prefixes; past it, prefixes are copied each
// time.
const maxPrefixes = 64

// New returns an empty log.
func New(opts Config) *Log {
	l := &Log{size: opts.PerApplication, keep: opts.Retention, now: opts.Now}
	if l.size <= 0 {
		l.size = DefaultPerApplication
	}
	if l.keep <= 0 {
		l.keep = DefaultRetention
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Record adds a request of application appID. It keeps its own copy of
// e.KeyPrefix, so that the caller may pass a part of the whole key: the
// log never holds on to the key's secret.
func (l *Log) Record(appID string, e Entry) {
	if l == nil {
		return
	}
	v, ok := l.apps.Load(appID)
	if !ok {
		var loaded bool
		if v, loaded = l.apps.LoadOrStore(appID, &ring{}); !loaded && l.rings.Add(1)%64 == 0 {
			l.prune()
		}
	}
	r := v.(*ring)
	r.mu.Lock()
	if p, ok := r.prefixes[e.KeyPrefix]; ok {
		e.KeyPrefix = p
	} else {
		e.KeyPrefix = strings.Clone(e.KeyPrefix)
		if r.prefixes == nil {
			r.prefixes = map[string]string{}
		}
		if len(r.prefixes) < maxPrefixes {
			r.prefixes[e.KeyPrefix] = e.KeyPrefix
		}
	}
	if len(r.entries) < l.size {
		r.entries = append(r.entries, e)
	} else {
		r.entries[r.next] = e
		r.next = (r.next + 1) % l.size
	}
	if e.At.After(r.last) {
		r.last = e.At
	}
	r.mu.Unlock()
}

// prune drops the rings of applications whose newest request has
// expired (a deleted application's among them), so that the log does not
// hold every application that was ever served.
func (l *Log) prune() {
	cutoff := l.now().Add(-l.keep)
	l.apps.Range(func(k, v any) bool {
		r := v.(*ring)
		r.mu.Lock()
		idle := !r.last.After(cutoff)
		r.mu.Unlock()
		if idle && l.apps.CompareAndDelete(k, v) {
			l.rings.Add(-1)
		}
		return true
	})
}

// List returns application appID's kept requests, newest first.
func (l *Log) List(appID string) []Entry {
	if l == nil {
		return nil
	}
	v, ok := l.apps.Load(appID)
	if !ok {
		return nil
	}
	r := v.(*ring)
	cutoff := l.now().Add(-l.keep)
	r.mu.Lock()
	out := make([]Entry, 0, len(r.entries))
	for i := range r.entries {
		e := r.entries[(r.next+i)%len(r.entries)]
		if e.At.After(cutoff) {
			out = append(out, e)
		}
	}
	r.mu.Unlock()
	slices.Reverse(out)
	return out
}

// Retention is how long the log keeps a request.
func (l *Log) Retention() time.Duration { return l.keep }

// PerApplication is how many requests the log keeps per application.
func (l *Log) PerApplication() int { return l.size }
