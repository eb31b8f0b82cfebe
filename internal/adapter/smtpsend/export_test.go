package smtpsend

import "net/url"

// PlainAllowed exposes plainAllowed to the tests.
func PlainAllowed(raw string, allowPrivate bool) bool {
	u, _ := url.Parse(raw)
	return plainAllowed(u, allowPrivate)
}
