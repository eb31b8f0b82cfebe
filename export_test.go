package unical

import "context"

// EnqueueChangeForTest queues a calendar.event.changed message for a
// subscription the way change detection does (waking a running engine),
// so that benchmarks can time detection-to-delivery without a provider.
func (c *Client) EnqueueChangeForTest(ctx context.Context, appID, subID string) (string, error) {
	sub, err := c.store.GetSubscription(ctx, appID, subID)
	if err != nil {
		return "", err
	}
	return c.EnqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventChanged, nil)
}
