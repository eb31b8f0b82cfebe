// Package precondition checks a caller's If-Match (unical.WriteOptions'
// IfMatch, which a provider reads as Session.IfMatch) against the version
// of an event a provider has just read, so that a stale one fails before
// anything is written, the same way on every provider.
package precondition

import (
	"errors"

	"github.com/unical/unical"
	"github.com/unical/unical/ifmatch"
)

// Check returns CodePrecondition naming If-Match when the caller sent an
// If-Match, sent, that does not name current, the etag of the event as
// the provider holds it now; nil when it does or when sent is "".
func Check(sent, current string) error {
	if sent == "" || ifmatch.Matches(sent, current) {
		return nil
	}
	return &unical.Error{Code: unical.CodePrecondition, Field: "If-Match",
		Message: "The event changed since the etag in If-Match was read; read it again and reapply the change."}
}

// Name names If-Match on err when it is CodePrecondition and the caller
// sent an If-Match (sent is not ""): the provider refused the conditional
// write, so the event is no longer at the etag the caller sent either.
// Providers apply it to what their UpdateEvent and DeleteEvent return.
func Name(sent string, err error) error {
	var ue *unical.Error
	if sent != "" && errors.As(err, &ue) && ue.Code == unical.CodePrecondition {
		ue.Field = "If-Match"
	}
	return err
}
