// Package retrynote carries a provider call's retry counter in its
// context, from the measuring wrapper that sets it (package observe) to
// the retry loop that tells it (package retry), which have nothing else
// in common: observe measures calls and knows no HTTP, retry knows no
// measuring.
package retrynote

import "context"

type counterKey struct{}

// With returns ctx carrying count, which is to be called once per retry,
// before its wait.
func With(ctx context.Context, count func()) context.Context {
	return context.WithValue(ctx, counterKey{}, count)
}

// Note tells ctx's counter, if any, of one retry.
func Note(ctx context.Context) {
	if count, ok := ctx.Value(counterKey{}).(func()); ok {
		count()
	}
}
