// Package webhook holds the parts of outgoing webhook delivery that need no
// network: Standard Webhooks signing, the retry schedule with jitter and
// the address policy that keeps deliveries away from internal networks. The HTTP client that applies the
// policy at connection time is in the deliver subpackage, so that the root
// package can use this one without depending on net/http.
//
// The wire format is Standard Webhooks
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
// the headers webhook-id, webhook-timestamp (Unix seconds of the attempt)
// and webhook-signature ("v1," + base64 of HMAC-SHA256 over
// id.timestamp.body, keyed with the base64-decoded whsec_ secret).
package webhook
