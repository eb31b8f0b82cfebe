package caldav

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Resolver looks up the DNS records of RFC 6764 discovery. *net.Resolver
// is one; tests give their own.
type Resolver interface {
	LookupSRV(ctx context.Context, service, proto, name string) (cname string, addrs []*net.SRV, err error)
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// maxSRVTargets bounds how many servers of one SRV answer are tried.
const maxSRVTargets = 3

// discover returns the server URLs to try for an account whose server
// nobody named, from the email's domain (RFC 6764): the targets of
// _caldavs._tcp.DOMAIN in the order of their priority and weight, each
// with the context path of the TXT record "path=" at the same name, then
// https://DOMAIN itself (whose /.well-known/caldav Connect asks). With
// AllowPrivateTargets, _caldav._tcp (plain http) is asked too, after
// _caldavs: this server allows http only then.
func (p *Provider) discover(ctx context.Context, email string) []string {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return nil
	}
	domain := strings.ToLower(strings.TrimSuffix(email[at+1:], "."))
	if domain == "" {
		return nil
	}
	services := []struct{ service, scheme string }{{"caldavs", "https"}}
	if p.allowPrivate {
		services = append(services, struct{ service, scheme string }{"caldav", "http"})
	}
	var out []string
	for _, s := range services {
		out = append(out, p.lookupService(ctx, s.service, s.scheme, domain)...)
	}
	return append(out, (&url.URL{Scheme: "https", Host: domain}).String())
}

// lookupService returns the URLs of one SRV service of domain; none when
// there is no record, or when the record's target is "." (RFC 6764 §3:
// the service is decidedly not available there).
func (p *Provider) lookupService(ctx context.Context, service, scheme, domain string) []string {
	_, addrs, err := p.resolver.LookupSRV(ctx, service, "tcp", domain)
	if err != nil || len(addrs) == 0 {
		return nil
	}
	path := "/"
	if txts, err := p.resolver.LookupTXT(ctx, "_"+service+"._tcp."+domain); err == nil {
		path = contextPath(txts, path)
	}
	var out []string
	for _, a := range addrs[:min(len(addrs), maxSRVTargets)] {
		target := strings.TrimSuffix(a.Target, ".")
		if target == "" {
			return nil
		}
		u := url.URL{Scheme: scheme, Host: net.JoinHostPort(target, strconv.Itoa(int(a.Port))), Path: path}
		out = append(out, u.String())
	}
	return out
}

// contextPath returns the value of the first "path=" TXT string (RFC 6764
// §4), or def. A path that is not absolute is ignored.
func contextPath(txts []string, def string) string {
	for _, t := range txts {
		for _, kv := range strings.Fields(t) {
			if v, ok := strings.CutPrefix(kv, "path="); ok && strings.HasPrefix(v, "/") {
				return v
			}
		}
	}
	return def
}
