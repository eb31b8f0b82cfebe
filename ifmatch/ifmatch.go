// Package ifmatch compares the etags of an If-Match precondition: a
// caller that read an event and wants its update or delete to fail rather
// than overwrite a change made since passes the event's etag as
// unical.WriteOptions.IfMatch (over HTTP, the If-Match header of PUT and
// DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}). The
// Client hands it to the provider as Session.IfMatch, and every provider
// honours it: a write to an event no longer at that etag is
// unical.CodePrecondition naming If-Match, and nothing is written.
package ifmatch

import "strings"

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
