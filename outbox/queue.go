package outbox

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Queue connects the writers of the outbox in one process to the engine
// (package engine) that delivers it: a writer calls Notify after queuing
// messages, so that a running engine sends them without waiting for its
// next poll, and the engine attaches to the Queue while it runs, so that
// Close stops it and waits for it. cmd/unicald makes one and hands it to
// the unical.Client (Config.Outbox) and to the engine; a Client given none
// makes its own, which its Config reports. A Queue is safe for concurrent
// use.
type Queue struct {
	wake chan struct{}
	// running is set while an engine is attached.
	running atomic.Bool
	// done is closed by Close; an attached engine stops then. mu orders
	// Attach's registration in engines against Close's Wait.
	done      chan struct{}
	mu        sync.Mutex
	engines   sync.WaitGroup
	closeOnce sync.Once
}

// NewQueue returns a Queue with no engine attached.
func NewQueue() *Queue {
	return &Queue{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Notify wakes a running engine after messages were queued, by the
// Client itself or by an operation built beside it (engine.ResendMessage),
// so that they go out without waiting for the engine's next poll.
func (q *Queue) Notify() {
	select {
	case q.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Queued signals, once for any number of messages, after messages were
// queued, so that a running engine sends them without waiting for its
// next poll.
func (q *Queue) Queued() <-chan struct{} { return q.wake }

// Attach registers a running engine: the returned context ends with ctx
// or when the Queue is closed, and detach, which the engine calls when
// it has stopped, ends what Close waits for. Running reports true in
// between. It fails after Close.
func (q *Queue) Attach(ctx context.Context) (run context.Context, detach func(), err error) {
	q.mu.Lock()
	select {
	case <-q.done:
		q.mu.Unlock()
		return nil, nil, errors.New("unical: engine started after Close")
	default:
	}
	q.engines.Add(1)
	q.mu.Unlock()
	q.running.Store(true)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-q.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		q.running.Store(false)
		q.engines.Done()
	}, nil
}

// Running reports whether an engine is attached: started, and not yet
// stopped or failed. Readiness (/readyz) reports it.
func (q *Queue) Running() bool { return q.running.Load() }

// Close stops an attached engine and waits for it; an engine attached
// later fails to start. unical.Client.Close calls it.
func (q *Queue) Close() {
	q.closeOnce.Do(func() {
		q.mu.Lock()
		close(q.done)
		q.mu.Unlock()
	})
	q.engines.Wait()
}
