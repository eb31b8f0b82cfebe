package unical

import "github.com/unical/unical/outbox"

// The engine (package engine) resolves where a message goes and keeps
// each endpoint's delivery state; the signing secrets it needs are sealed
// under the master key, which stays with the Client, so the Client opens
// them for it.

// CurrentWebhookState is the delivery state of the application's current
// webhook URL.
func (app *Application) CurrentWebhookState() outbox.EndpointState {
	if app.WebhookStateURL != app.WebhookURL {
		return outbox.EndpointState{} // a new URL starts afresh
	}
	return app.WebhookState
}
