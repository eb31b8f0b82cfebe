package unical

// Outbox queues the messages of change detection (outbox.go) and wakes
// the engine (package engine) that delivers them through the Client's
// [outbox.Queue] (Config.Outbox).
type Outbox struct{ c *Client }
