// Package ifmatch carries an If-Match precondition to the event writes
// of a unical.API: a caller that read an event and wants its update or
// delete to fail rather than overwrite a change made since puts the
// event's etag on the context with [With]. The Client and every provider
// honour it: a write to an event no longer at that etag is
// unical.CodePrecondition naming If-Match, and nothing is written. Over
// HTTP it is the If-Match header of PUT and DELETE
// /v1/events/{endUserAccountId}/{calendarId}/{eventId}, which httpclient
// sends from the context.
package ifmatch

import (
	"context"
	"strings"
)

type key struct{}

// With returns ctx making the event write it is passed to (UpdateEvent,
// DeleteEvent, and their WithScope forms for one event) conditional on
// etag, an event's etag as read.
func With(ctx context.Context, etag string) context.Context {
	return context.WithValue(ctx, key{}, etag)
}

// From returns the etag With set on ctx; ok is false when there is none.
func From(ctx context.Context) (etag string, ok bool) {
	etag, ok = ctx.Value(key{}).(string)
	return etag, ok
}

// Matches reports whether the etag a caller sent names the current one.
// Both are compared without a weak prefix and quotes, since providers
// quote theirs differently (Google and CalDAV keep the quotes, Graph's
// change keys have none) and a caller may add them in a header.
func Matches(sent, current string) bool {
	return current != "" && bare(sent) == bare(current)
}

func bare(etag string) string {
	etag = strings.TrimPrefix(strings.TrimSpace(etag), "W/")
	if len(etag) >= 2 && etag[0] == '"' && etag[len(etag)-1] == '"' {
		etag = etag[1 : len(etag)-1]
	}
	return etag
}

// Quoted returns etag as a quoted entity tag (RFC 9110 §8.8.3), the form
// Google's etags take, whether or not the caller quoted it.
func Quoted(etag string) string { return `"` + bare(etag) + `"` }
