package httpapi

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// lazyDeadline is a request's deadline that costs nothing until something
// waits on it. context.WithTimeout starts a timer and registers with the
// connection's context on every request, although most requests (cached
// reads, refused ones) finish without ever waiting on a context; here the
// timer is set only when Done is first called, for the deadline taken when
// the request arrived, so the request still ends when it would have.
type lazyDeadline struct {
	parent   context.Context
	deadline time.Time
	// start is when the request arrived, read once by the front door for
	// the limiters, the deadline and the request metrics (requestStart).
	start time.Time

	once   sync.Once
	armed  atomic.Bool // ctx and cancel are set
	ctx    context.Context
	cancel context.CancelFunc
}

func newLazyDeadline(parent context.Context, timeout time.Duration) *lazyDeadline {
	return newLazyDeadlineFrom(parent, time.Now(), timeout)
}

// newLazyDeadlineFrom is newLazyDeadline for a request that arrived at start.
func newLazyDeadlineFrom(parent context.Context, start time.Time, timeout time.Duration) *lazyDeadline {
	return &lazyDeadline{parent: parent, deadline: start.Add(timeout), start: start}
}

// requestStart is when r arrived: the front door's reading of the clock
// when it set the deadline, so that a request reads the clock once on
// its way in (each reading costs about 50 ns, a tenth of a cached read's
// handling); otherwise now.
func requestStart(r *http.Request) time.Time {
	if d, ok := r.Context().(*lazyDeadline); ok {
		return d.start
	}
	return time.Now()
}

func (d *lazyDeadline) arm() context.Context {
	d.once.Do(func() {
		d.ctx, d.cancel = context.WithDeadline(d.parent, d.deadline)
		d.armed.Store(true)
	})
	return d.ctx
}

// release ends the deadline with the request: it stops the timer when one
// was set, and otherwise makes a later Done the parent's, which net/http
// cancels once the handler has returned.
func (d *lazyDeadline) release() {
	d.once.Do(func() {
		d.ctx, d.cancel = d.parent, func() {}
		d.armed.Store(true)
	})
	d.cancel()
}

func (d *lazyDeadline) Deadline() (time.Time, bool) {
	if p, ok := d.parent.Deadline(); ok && p.Before(d.deadline) {
		return p, true
	}
	return d.deadline, true
}

func (d *lazyDeadline) Done() <-chan struct{} { return d.arm().Done() }

// Err answers without setting the timer: stores and providers ask it far
// more often than they wait on Done.
func (d *lazyDeadline) Err() error {
	if d.armed.Load() {
		return d.ctx.Err()
	}
	if err := d.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(d.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value is the parent's until the timer is set, and then the timer
// context's, so that a context derived from this one finds the timer's
// cancellation (the context package looks it up through Value) and is
// cancelled with it rather than by a goroutine of its own.
func (d *lazyDeadline) Value(key any) any {
	if d.armed.Load() {
		return d.ctx.Value(key)
	}
	return d.parent.Value(key)
}
