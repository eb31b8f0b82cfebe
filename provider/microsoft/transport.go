package microsoft

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/oauthflow"
	"github.com/unical/unical/internal/adapter/providerhttp"
	"github.com/unical/unical/internal/retry"
)

// client makes the Graph requests of one provider call for one session.
// Its tokens hand out the access token, refreshed at most once in the
// call; a refreshed token (with the refresh token Microsoft may have
// rotated) is handed to Session.OnTokenRefresh before it is used. It is
// not safe for concurrent use.
type client struct {
	p      *Provider
	s      *unical.Session
	base   string
	tokens *oauthflow.CallTokens
}

func (p *Provider) client(s *unical.Session) *client {
	return &client{p: p, s: s, base: apiBase(s.Settings), tokens: &oauthflow.CallTokens{
		Session: s, Current: s.Token, Now: p.now,
		Refresh: func(ctx context.Context, s *unical.Session, current unical.Token) (unical.Token, error) {
			return p.flow(s.Settings, "").RefreshSession(ctx, s, current)
		},
		// A delegated account uses the tenant's app-only token.
		Mint: func(ctx context.Context, force bool) (unical.Token, error) {
			return p.minter.MicrosoftToken(ctx, s.Delegation, force)
		},
		Rejected: unical.Errorf(unical.CodeAccountExpired, "Microsoft Graph no longer accepts the account's credentials; reconnect it."),
	}}
}

// request is one Graph request.
type request struct {
	method string
	// target is a path below the API base ("/me/calendars") or an
	// absolute URL from an @odata.nextLink or deltaLink.
	target string
	query  url.Values
	body   any
	header map[string]string
}

// do sends r and decodes a 2xx answer into out (when not nil). It
// refreshes the token once on 401 and retries 429, 503, 504 and lost
// connections under the provider's policy (see Provider.policy); a
// failure given up on carries the next wait as its RetryAfter. A 403 to
// a delegated account goes through consentWithdrawn.
func (c *client) do(ctx context.Context, r request, out any) error {
	status, err := c.send(ctx, r, out)
	if status == http.StatusForbidden && c.s.Delegation != nil {
		return c.consentWithdrawn(ctx, err)
	}
	return err
}

// errConsentWithdrawn marks a delegated account's 403 that
// consentWithdrawn took for the administrator's consent withdrawn.
var errConsentWithdrawn = errors.New("microsoft: the tenant's application permissions are withdrawn")

// consentWithdrawn tells apart the two causes of a 403 to an app-only
// token. Access tokens cannot be revoked, so one minted before a tenant
// administrator withdrew the application's admin consent keeps working
// until it expires; the tokens minted after carry no application
// permission and Graph answers 403 to every call (graph/resolve-auth-
// errors, "403 Forbidden error: Have you chosen the right set of
// permissions?"). Reading the user's default calendar, which any calendar
// permission allows, tells that apart from a request the credential may
// not make (a calendar shared read-only): when it is refused too, the
// account cannot work until the administrator grants consent again, so
// it is CodeAccountExpired with delegation_revoked, as when the token
// endpoint refuses the credential (delegation.Minter). Otherwise refused
// is returned as it is.
func (c *client) consentWithdrawn(ctx context.Context, refused error) error {
	status, err := c.send(ctx, request{method: "GET", target: "/me/calendar", query: url.Values{"$select": {"id"}}}, nil)
	if status != http.StatusForbidden {
		return refused
	}
	return &unical.Error{Code: unical.CodeAccountExpired, Reason: unical.StatusReasonDelegationRevoked,
		Err:     fmt.Errorf("%w: %w", errConsentWithdrawn, err),
		Message: "Microsoft Graph refuses every call of the application's delegation credential: a tenant administrator must grant its permissions (Calendars.ReadWrite, User.Read.All) again; verify it in the admin API."}
}

// send is do without telling withdrawn consent apart; it also returns
// the status of Graph's last answer (0 when there was none).
func (c *client) send(ctx context.Context, r request, out any) (int, error) {
	target := r.target
	if !strings.HasPrefix(target, "https://") && !strings.HasPrefix(target, "http://") {
		target = c.base + c.userPath(target)
	} else if !strings.HasPrefix(target, c.base+"/") {
		return 0, unical.Errorf(unical.CodeInvalid, "The page or sync token does not belong to this account's Graph endpoint.")
	}
	if len(r.query) > 0 {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		// Graph wants %20 rather than + in $filter and $expand.
		target += sep + strings.ReplaceAll(r.query.Encode(), "+", "%20")
	}
	var payload []byte
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return 0, unical.WrapError(unical.CodeInternal, err, "Cannot encode the Graph request.")
		}
		payload = b
	}
	header := providerhttp.JSONHeader(payload != nil)
	for k, v := range r.header {
		header.Set(k, v)
	}
	var status int
	caller := providerhttp.Caller{
		Client:     c.p.httpClient,
		Tokens:     c.tokens,
		Refresh401: true,
		Policy:     c.p.policy(),
		MaxBody:    maxResponse,
		Classify: func(resp *providerhttp.Response) retry.Outcome {
			status = resp.StatusCode
			switch st := resp.StatusCode; {
			case st >= 200 && st < 300:
				return retry.Outcome{}
			case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable || st == http.StatusGatewayTimeout:
				ra, _ := retryAfter(resp.Header)
				return retry.Outcome{Err: graphFailure(st, resp.Header, resp.Body), Retry: true, RetryAfter: ra}
			default:
				return retry.Outcome{Err: graphFailure(st, resp.Header, resp.Body)}
			}
		},
		SendFailed: func(err error, ctxDone bool) retry.Outcome {
			return retry.Outcome{Err: unical.WrapError(unical.CodeUnavailable, err, "Microsoft Graph cannot be reached."), Retry: !ctxDone}
		},
		TimedOut: "Microsoft Graph did not answer in time.",
	}
	resp, err := caller.Do(ctx, providerhttp.Request{Method: r.method, URL: target, Header: header, Body: payload})
	if err != nil {
		return status, err
	}
	if out != nil && len(bytes.TrimSpace(resp.Body)) > 0 {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return status, unical.WrapError(unical.CodeUpstream, err, "Microsoft Graph answered with JSON unical cannot read.")
		}
	}
	return status, nil
}

// maxResponse bounds the bodies read from Graph.
const maxResponse = 32 << 20

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3), and fractional seconds, which Graph's own sample
// 429 shows in some revisions of concepts/throttling.md
// ("Retry-After: 2.128").
func retryAfter(h http.Header) (time.Duration, bool) {
	if d, ok := retry.After(h, time.Now()); ok {
		return d, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After")), 64)
	if err != nil || !(f >= 0 && f < 1e6) {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// userPath returns path ("/me/..." or "me/...") for the session's user.
// An app-only token, which a delegated account uses, has no signed-in
// user: Graph refuses /me with it ("/me request is only valid with
// delegated authentication flow") and takes /users/{id | userPrincipalName}
// instead, the form every calendar API page lists for application
// permissions (for example api/user-list-calendars.md, "HTTP request").
func (c *client) userPath(path string) string {
	if c.s.Delegation == nil {
		return path
	}
	slash, rest := strings.HasPrefix(path, "/"), strings.TrimPrefix(path, "/")
	tail, isMe := strings.CutPrefix(rest, "me")
	if !isMe || (tail != "" && tail[0] != '/') {
		return path
	}
	who := c.s.ProviderAccountID
	if who == "" {
		who = c.s.Email
	}
	path = "users/" + pathID(who) + tail
	if slash {
		path = "/" + path
	}
	return path
}

// pathID escapes an id for a URL path.
func pathID(id string) string { return url.PathEscape(id) }

// apiBase returns the Graph base URL of settings, without a trailing slash.
func apiBase(settings unical.ProviderSettings) string {
	if settings.APIBaseURL != "" {
		return strings.TrimRight(settings.APIBaseURL, "/")
	}
	return DefaultAPIBaseURL
}

// policy is the provider's retry policy, for Graph and for the token
// endpoint: MaxRetries retries, waits of 250ms, 500ms, 1s, ... capped by
// MaxRetryWait with jitter in the upper half, never shorter than a
// Retry-After, and no wait at all for a Retry-After beyond MaxRetryWait.
func (p *Provider) policy() retry.Policy {
	return retry.Policy{
		MaxRetries:    p.maxRetries,
		Backoff:       retry.Backoff{Base: 250 * time.Millisecond, Max: p.maxRetryWait},
		MaxRetryAfter: p.maxRetryWait,
	}
}
