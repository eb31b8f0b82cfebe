// Package oauthkit is the OAuth 2.0 side of a unical provider, the code
// Google and Microsoft share: [CallTokens], the one access-token source of
// a provider call (refreshed at most once per call, handed to
// Session.OnTokenRefresh before use, minted from a delegation credential
// for delegated accounts), and [Flow], the token endpoint client that
// redeems codes and refreshes grants with the retries a token endpoint
// deserves and turns its refusals into unical error codes (invalid_grant
// and the provider's other "reconnect" codes are CodeAccountExpired; 429,
// 5xx and network failures are CodeUnavailable after the retries).
package oauthkit

import (
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/oauthflow"
)

type (
	// CallTokens is the access-token source of one provider call; it is
	// an httpkit.TokenSource.
	CallTokens = oauthflow.CallTokens
	// Flow is a provider's token endpoint client.
	Flow = oauthflow.Flow
	// Errors classifies a token endpoint's error codes (RFC 6749 §5.2).
	Errors = oauthflow.Errors
)

// Fresh reports whether t's access token is usable at now: present and
// not expiring within the safety margin.
func Fresh(t unical.Token, now time.Time) bool { return oauthflow.Fresh(t, now) }
