// Package fakekit holds what every fake provider server under internal/
// needs and none should write again: a queue of injected faults, a
// request log, a settable clock, and the OAuth 2.0 pieces that are the
// same at every authorization server (PKCE, client authentication, ID
// tokens as JWTs, random token strings).
//
// What differs between providers stays in each fake: the wire shape of an
// error, which grant types a token endpoint takes, the claims of an ID
// token. A fake keeps its own public Fault type (its fields name the
// provider's error vocabulary) and stores it in a [Faults] queue, so its
// tests read as before while the matching, counting and waiting are
// written once.
package fakekit
