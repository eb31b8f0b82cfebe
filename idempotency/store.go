package idempotency

import (
	"context"
	"time"
)

// Response is the kept answer of a request made with an Idempotency-Key.
type Response struct {
	// Status is the HTTP status of the answer; 0 for an answer kept by a Go
	// call, which has no HTTP form.
	Status int
	// Code is the answer's error code (a unical.Code's string); "" for a
	// success.
	Code string
	// SealedBody is the encoded answer (the JSON body, byte for byte),
	// sealed by the Runner, because answers such as a new subscription's
	// secret must not be in the Store in plaintext; empty when too large.
	SealedBody []byte
}

// Record is an application's use of one Idempotency-Key: a claim while
// the first request runs, then the answer that every retry gets.
type Record struct {
	ApplicationID string
	Key           string
	// Fingerprint identifies the request the key was first used with; a
	// retry must bring the same one.
	Fingerprint string
	// Claim identifies the attempt that holds the key, so that an attempt
	// whose lease ran out and was taken over cannot complete it.
	Claim     string
	CreatedAt time.Time
	// LeaseExpiry is when an attempt that has not completed stops holding
	// the key (its process may have died), so that a retry may run again.
	LeaseExpiry time.Time
	// ExpiresAt is when the record is forgotten, answer and all.
	ExpiresAt time.Time
	// Response is the kept answer; nil while the first attempt runs.
	Response *Response
}

// Store keeps Idempotency-Key records with atomic claims. It is part of
// unical.Store: a Store written outside this module implements it, and
// storetest checks it. Its errors are unical's *Error values, as every
// Store method's are.
type Store interface {
	// BeginIdempotent claims rec.Key of rec.ApplicationID for the attempt
	// rec describes (Response nil), in one atomic step. It stores rec and
	// returns (nil, nil) when the key is free: no record, a record expired
	// at rec.CreatedAt, or a record with the same Fingerprint, no Response
	// and a lease expired at rec.CreatedAt (its attempt is taken over).
	// Otherwise it stores nothing and returns the record that holds the
	// key: one with a Response (completed), or one in flight, or one made
	// for another fingerprint. CodeInvalid for an empty key. A new key is
	// refused with CodeRateLimited, storing nothing, when the application
	// already holds maxKeys records or maxBytes bytes of SealedBody (each
	// bound when positive; expired records count until Sweep removes
	// them); keys already held are answered as before.
	BeginIdempotent(ctx context.Context, rec *Record, maxKeys int, maxBytes int64) (*Record, error)
	// CompleteIdempotent ends the attempt claim of the application's key:
	// it stores resp as the key's answer, or, with a nil resp, removes the
	// record so that the key is free again. CodeConflict if claim no
	// longer holds the key (its lease expired and another attempt took it
	// over, or it completed), CodeNotFound if there is no record.
	CompleteIdempotent(ctx context.Context, appID, key, claim string, resp *Response) error
}
