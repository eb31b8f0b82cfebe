package addrpolicy

import (
	"net/url"
)

// TargetURLProblem checks a URL unical will post to on a user's behalf (a
// webhook receiver) and returns why it is refused, as a sentence naming
// field for the user, or "" when it is accepted. It must be an absolute
// https URL with a host and no credentials or fragment, and, unless
// allowPrivate, its host must not be a forbidden IP literal or localhost
// (see [TargetHostProblem]). With allowPrivate, plain http is accepted for
// a loopback host too, so that a receiver on the developer's own machine
// needs no certificate; nothing leaves the machine unencrypted.
func TargetURLProblem(field, raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err == nil && allowPrivate && u.Scheme == "http" && LoopbackHost(u.Hostname()) {
		u.Scheme = "https" // the rest of the shape rules still apply
		raw = u.String()
	}
	if problem := urlShapeProblem(field, raw); problem != "" {
		return problem
	}
	return TargetHostProblem(field, raw, allowPrivate)
}

// TargetHostProblem refuses, unless allowPrivate, a URL whose host is a
// forbidden IP literal or localhost ([ForbiddenHost]): a webhook URL, or a
// CalDAV server URL an operator saves. It returns why, as a sentence
// naming field, or "". A name that resolves to a forbidden address passes
// here and is refused when dialled ([Control]).
func TargetHostProblem(field, raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err == nil && !allowPrivate && ForbiddenHost(u.Hostname()) {
		return field + " must not point at a loopback, private or link-local address."
	}
	return ""
}

// urlShapeProblem requires an absolute https URL with a host and no
// credentials or fragment.
func urlShapeProblem(field, raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return field + " must be an absolute HTTPS URL."
	case u.Scheme != "https":
		return field + " must use https."
	case u.User != nil || u.Fragment != "":
		return field + " must not carry credentials or a fragment."
	}
	return ""
}
