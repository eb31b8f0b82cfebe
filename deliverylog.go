package unical

// The delivery log's operations (listing attempts, resending a message)
// are package engine's, their wire types package outbox's. This file
// keeps what they need of an App that only the root can give: its Client
// (the sealed page tokens are ListStorePage's; the Go path of an
// Idempotency-Key is App.Idempotency).

// Client returns the Client the App belongs to, for operations built
// beside the root over its Store (package engine's delivery log).
func (a *App) Client() *Client { return a.c }
