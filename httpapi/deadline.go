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

	once   sync.Once
	armed  atomic.Bool // ctx and cancel are set
	ctx    context.Context
	cancel context.CancelFunc
}

func newLazyDeadline(parent context.Context, timeout time.Duration) *lazyDeadline {
	return &lazyDeadline{parent: parent, deadline: time.Now().Add(timeout)}
}

// exchange is one request's state from the front door on, carried in the
// ResponseWriter that the front door hands on: when the request arrived
// (one reading of the clock serves the limiters, the deadline and the
// request metrics), its deadline, and the status of its answer for the
// request metrics. Carrying the deadline here, and not in a context that
// replaces the request's (r.WithContext copies the request, 320 bytes),
// lets routeMux skip that copy for reads answered from memory
// (HandleReadFunc); every other route gets the deadline in r.Context().
type exchange struct {
	http.ResponseWriter
	start  time.Time
	status int
	// timed is set when deadline is: RequestTimeout is positive.
	timed    bool
	deadline lazyDeadline
}

func (x *exchange) WriteHeader(code int) {
	if x.status == 0 && code >= 200 { // 1xx answers come before the real one
		x.status = code
	}
	x.ResponseWriter.WriteHeader(code)
}

func (x *exchange) Write(b []byte) (int, error) {
	if x.status == 0 {
		x.status = http.StatusOK
	}
	return x.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (x *exchange) Unwrap() http.ResponseWriter { return x.ResponseWriter }

// requestStart is when the request answered through w arrived: the front
// door's reading of the clock (each reading costs about 50 ns, a tenth of
// a cached read's handling); otherwise now.
func requestStart(w http.ResponseWriter) time.Time {
	if x, ok := w.(*exchange); ok {
		return x.start
	}
	return time.Now()
}

// requestContext is the context of r, answered through w, with the
// request's deadline: the one the front door set, also for a route of
// HandleReadFunc, whose r does not carry it.
func requestContext(w http.ResponseWriter, r *http.Request) context.Context {
	if x, ok := w.(*exchange); ok && x.timed {
		return &x.deadline
	}
	return r.Context()
}

// withDeadline returns r with the request's deadline in its context.
func withDeadline(w http.ResponseWriter, r *http.Request) *http.Request {
	if x, ok := w.(*exchange); ok && x.timed && r.Context() != context.Context(&x.deadline) {
		return r.WithContext(&x.deadline)
	}
	return r
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
