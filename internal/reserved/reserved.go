// Package reserved names the blobs unical keeps for itself in the Store:
// the master key check (the root package) and the hash of the operator
// token (package admin). They are kept under an application id that no
// application has, theirs starting with "app_", and never expire.
package reserved

import "time"

// App is the application id of the reserved blobs.
const App = "unical"

// The reserved blobs' keys.
const (
	// KeyCheck is a known value sealed with the master key.
	KeyCheck = "master-key-check"
	// AdminTokenHash is the SHA-256 hash of the operator token.
	AdminTokenHash = "admin-token-hash"
)

// Never is the expiry of the reserved blobs: no sweep reaches it.
var Never = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
