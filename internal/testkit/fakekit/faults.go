package fakekit

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// Faults is a queue of faults a fake server applies to the requests that
// match them, in the order they were added; one request takes at most one
// fault. F is the fake's own description of what to answer. The zero
// value is an empty queue, safe for concurrent use.
type Faults[F any] struct {
	mu   sync.Mutex
	list []*queued[F]
}

type queued[F any] struct {
	method, pathPrefix string
	left               int
	fault              F
}

// Add queues fault for the next times requests whose method is method
// (empty: any) and whose URL path starts with pathPrefix (empty: every
// path). times below 1 counts as 1.
func (q *Faults[F]) Add(method, pathPrefix string, times int, fault F) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = append(q.list, &queued[F]{method: method, pathPrefix: pathPrefix, left: max(times, 1), fault: fault})
}

// Take returns the first queued fault that matches r and uses up one of
// its times; ok is false when none matches.
func (q *Faults[F]) Take(r *http.Request) (fault F, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, f := range q.list {
		if (f.method != "" && f.method != r.Method) || !strings.HasPrefix(r.URL.Path, f.pathPrefix) {
			continue
		}
		f.left--
		if f.left <= 0 {
			q.list = append(q.list[:i:i], q.list[i+1:]...)
		}
		return f.fault, true
	}
	return fault, false
}

// Clear drops the faults not used up yet.
func (q *Faults[F]) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = nil
}

// Hold waits d, as a fault's delay does, and reports whether the whole
// delay passed: it returns false as soon as the request is cancelled or
// shutdown (a fake server's close; nil: never) is closed, and the caller
// then answers nothing.
func Hold(r *http.Request, d time.Duration, shutdown <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-shutdown:
		return false
	}
}
