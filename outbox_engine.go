package unical

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Outbox is the Client's side of the engine (package engine) that
// delivers the outbox: it wakes a running engine when messages were
// queued through the Client, and tracks the engine's run, which
// [Client.Close] ends and waits for.
type Outbox struct {
	store Store
	now   func() time.Time
	wake  chan struct{}
	// running is set while an engine is attached.
	running atomic.Bool
	// done is closed by close; an attached engine stops then. mu orders
	// Attach's registration in engines against close's Wait.
	done      chan struct{}
	mu        sync.Mutex
	engines   sync.WaitGroup
	closeOnce sync.Once
}

// Notify wakes a running engine after messages were queued, by the
// Client itself or by an operation built beside it (engine.ResendMessage),
// so that they go out without waiting for the engine's next poll.
func (o *Outbox) Notify() {
	select {
	case o.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Queued signals, once for any number of messages, after messages were
// queued, so that a running engine sends them without waiting for its
// next poll.
func (o *Outbox) Queued() <-chan struct{} { return o.wake }

// Attach registers a running engine: the returned context ends with ctx
// or when the Client is closed, and detach, which the engine calls when
// it has stopped, ends what [Client.Close] waits for. EngineRunning
// reports true in between. It fails after Close.
func (o *Outbox) Attach(ctx context.Context) (context.Context, func(), error) {
	o.mu.Lock()
	select {
	case <-o.done:
		o.mu.Unlock()
		return nil, nil, errors.New("unical: engine started after Close")
	default:
	}
	o.engines.Add(1)
	o.mu.Unlock()
	o.running.Store(true)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-o.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		o.running.Store(false)
		o.engines.Done()
	}, nil
}

// EngineRunning reports whether an engine is attached: started, and not
// yet stopped or failed.
func (o *Outbox) EngineRunning() bool { return o.running.Load() }

// close stops an attached engine and waits for it.
func (o *Outbox) close() {
	o.closeOnce.Do(func() {
		o.mu.Lock()
		close(o.done)
		o.mu.Unlock()
	})
	o.engines.Wait()
}
