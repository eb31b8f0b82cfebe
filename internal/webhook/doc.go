// Package webhook holds the parts of outgoing webhook messages that need
// no network and no domain types: Standard Webhooks signing, the retry
// schedule with jitter, and the change list of an includeEvents message
// (which changes, in which order, with which bodies). The root package
// builds messages with it and package engine delivers them; it imports
// neither. The address policy is package addrpolicy, and the HTTP client
// that applies it when connecting is package webhooksender.
//
// The wire format is Standard Webhooks
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
// the headers webhook-id, webhook-timestamp (Unix seconds of the attempt)
// and webhook-signature ("v1," + base64 of HMAC-SHA256 over
// id.timestamp.body, keyed with the base64-decoded whsec_ secret).
package webhook
