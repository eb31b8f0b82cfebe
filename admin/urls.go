package admin

import (
	"net/url"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy"
)

// namedURL is a configured URL the server connects to, with the field
// that holds it.
type namedURL struct{ field, value string }

// checkOutboundURLs refuses, naming the field, a URL the server will
// connect to (a provider's token, API, revocation, directory or CalDAV
// server URL) that is not an absolute http or https URL without
// credentials or a fragment, or whose host, without
// Config.AllowPrivateTargets, is a loopback, private or link-local IP
// literal or localhost (addrpolicy.TargetHostProblem). An empty URL
// is skipped: the provider's public default applies. This is the check
// at save time; the guarded transport (internal/addrpolicy/httpguard)
// refuses the same addresses again at every connection, names that
// resolve to them included.
func (s *Service) checkOutboundURLs(urls ...namedURL) error {
	for _, f := range urls {
		if f.value == "" {
			continue
		}
		if err := checkURLShape(f.field, f.value); err != nil {
			return err
		}
		if problem := addrpolicy.TargetHostProblem(f.field, f.value, s.client.Config().AllowPrivateTargets); problem != "" {
			return unical.FieldError(f.field, "%s", problem)
		}
	}
	return nil
}

// checkURLShape refuses a URL that is not an absolute http or https URL
// without credentials or a fragment, naming field; "" passes.
func checkURLShape(field, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.Fragment != "" {
		return unical.FieldError(field, "%s must be an absolute http or https URL without credentials or a fragment.", field)
	}
	return nil
}
