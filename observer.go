package unical

import (
	"time"
)

// Observer receives the Client's measurements: push notifications and,
// when it is also a [ProviderWrapper], provider calls. It exists so that
// a program can export metrics (package metrics does, for Prometheus)
// without the root package depending on a metrics library. The engine
// (package engine) measures webhook deliveries and change polls through
// its own engine.Observer, which it finds on the same Config.Observer.
//
// Every argument is from a small fixed set or a number, never an id, an
// email or a secret, so an implementation may use them as label values.
// Methods are called on the paths they measure, from many goroutines:
// they must be cheap and safe for concurrent use. Embed [NopObserver] to
// implement only some of them.
type Observer interface {
	// PushNotification reports a push notification from a provider, and
	// whether it was ignored: it matched no watch of a subscription, so
	// it queued nothing.
	PushNotification(provider ProviderType, ignored bool)
}

// ProviderWrapper is an Observer that measures provider calls: [New]
// wraps each of Config.Providers with WrapProvider. Package observe makes
// such wrappers (observe.Provider), and a *metrics.Metrics is a
// ProviderWrapper. A wrapper answers Unwrap() Provider and may claim every
// optional interface: the Client uses one only when the provider it wraps
// has it.
type ProviderWrapper interface {
	WrapProvider(p Provider) Provider
}

// NopObserver is an Observer that records nothing; embed it to implement
// only part of Observer, or of observe.Observer or engine.Observer, whose
// methods it has too.
type NopObserver struct{}

func (NopObserver) ProviderCall(ProviderType, string, string, time.Duration) {}
func (NopObserver) ProviderRetry(ProviderType, string)                       {}
func (NopObserver) DeliveryAttempt(string, time.Duration)                    {}
func (NopObserver) EndpointDisabled()                                        {}
func (NopObserver) PollCycle(int, time.Duration, time.Duration)              {}
func (NopObserver) PushNotification(ProviderType, bool)                      {}
