// Package httpclient is a typed Go client of a unicald server's /v1 API.
// Its Client has the methods, parameter types and result types of the
// in-process *unical.App: both implement [unical.API], so a program moves
// between embedding unical and calling a server by changing the one
// constructor it calls.
//
//	api, err := httpclient.New(httpclient.Config{BaseURL: "https://cal.example.com", APIKey: apiKey})
//	for acct, err := range unical.AllAccounts(ctx, api, nil) { ... }
//
// Every failure is a *unical.Error: the server's error body comes back with
// its Code (read from httpapi's one error table), Message, Field, Allowed
// and, from the Retry-After header, RetryAfter. A failure to reach the
// server is CodeUnavailable and an answer that cannot be read is
// CodeUpstream; both wrap the cause, so errors.Is(err, context.Canceled)
// still works.
package httpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/adapter/wirecode"
	"github.com/unical/unical/rooms"
)

// Config configures New. BaseURL and one of APIKey and Token are
// required; the other fields' zero values are the defaults.
type Config struct {
	// BaseURL is the server, for example "https://cal.example.com"; a path
	// prefix is kept.
	BaseURL string
	// APIKey authenticates every call with an application's API key.
	APIKey string
	// Token authenticates with a scoped token (Authorization: Bearer)
	// instead of an API key: for an agent or a service given a token
	// rather than the key. Calls outside the token's grant answer
	// CodeForbidden errors (403 forbidden) naming what it lacks.
	Token string
	// HTTPClient sends the requests; default a client without a timeout
	// (each call's context bounds it). Its CheckRedirect is replaced in
	// a copy: redirects are never followed, so the API key is sent to the
	// configured server only.
	HTTPClient *http.Client
	// ApplicationID is the id of the API key's application. Only
	// ConnectBasicAuth needs it, because its route names the application.
	ApplicationID string
	// UserAgent is sent with every request; default "unical-httpclient".
	UserAgent string
}

// Client calls a unicald server with one application's API key. It is
// safe for concurrent use.
type Client struct {
	base      string
	apiKey    string
	token     string // a scoped token, sent instead of apiKey (Config.Token)
	appID     string
	userAgent string
	hc        *http.Client
}

var (
	_ unical.API   = (*Client)(nil)
	_ rooms.Lister = (*Client)(nil)
	_ booking.API  = (*Client)(nil)
)

// maxAnswerBytes bounds the answer read for one call: a full page of
// events with long descriptions is far below it.
const maxAnswerBytes = 64 << 20

// New returns a Client of the server at cfg.BaseURL that authenticates
// with cfg.APIKey or cfg.Token.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("httpclient: Config.BaseURL must be an absolute http or https URL without query or fragment")
	}
	switch {
	case cfg.APIKey == "" && cfg.Token == "":
		return nil, errors.New("httpclient: an API key (Config.APIKey) or a scoped token (Config.Token) is required")
	case cfg.APIKey != "" && cfg.Token != "":
		return nil, errors.New("httpclient: Config.APIKey and Config.Token exclude each other")
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{
		base:      strings.TrimRight(cfg.BaseURL, "/"),
		apiKey:    cfg.APIKey,
		token:     cfg.Token,
		appID:     cfg.ApplicationID,
		userAgent: cfg.UserAgent,
		hc:        hc,
	}
	if c.userAgent == "" {
		c.userAgent = "unical-httpclient"
	}
	return c, nil
}

// path builds a request path from literal parts and ids; ids are escaped as
// one path segment each, since provider ids hold '/', '@' and '+'. An empty
// id is CodeNotFound without a request, as the in-process App answers: an
// empty segment would name another route.
func path(parts ...string) (string, error) {
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(p)
			continue
		}
		if p == "" {
			return "", unical.Errorf(unical.CodeNotFound, "No such resource: an id is empty.")
		}
		b.WriteString(url.PathEscape(p))
	}
	return b.String(), nil
}

// do sends one request and decodes a 200 answer into out. body, when not
// nil, is sent as JSON; o's Idempotency-Key and If-Match, when set, are
// sent as those headers.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any, o unical.WriteOptions) error {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return unical.WrapError(unical.CodeInvalid, err, "The request body could not be encoded.")
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return unical.WrapError(unical.CodeInvalid, err, "The request could not be built.")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	} else {
		req.Header.Set("x-api-key", c.apiKey)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if o.IfMatch != "" {
		req.Header.Set("If-Match", o.IfMatch)
	}
	if key := o.IdempotencyKey; key != "" {
		// As the in-process App does, a write with a key runs once per
		// key; a key that could not travel in a header is refused here as
		// the server would.
		if msg := idempotency.CheckKey(key); msg != "" {
			return unical.FieldError(idempotency.KeyField, "%s", msg)
		}
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return unical.WrapError(unical.CodeUnavailable, err, "The unical server could not be reached.")
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return unical.WrapError(unical.CodeUnavailable, err, "The answer of the unical server could not be read.")
	}
	// 201 answers a hold or booking made.
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return answerError(resp, data)
	}
	if len(data) > maxAnswerBytes {
		return unical.Errorf(unical.CodeUpstream, "The answer of the unical server is larger than %d bytes.", maxAnswerBytes)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return unical.WrapError(unical.CodeUpstream, err, "The answer of the unical server is not the JSON expected.")
	}
	return nil
}

// answerError turns a non-200 answer into the *unical.Error the server
// wrote: the error body's code through httpapi's table, or the status's
// code when the body is not the API's (a proxy's page, say).
func answerError(resp *http.Response, data []byte) error {
	var body struct {
		Error *struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Field   string   `json:"field"`
			Allowed []string `json:"allowed"`
		} `json:"error"`
	}
	e := &unical.Error{Code: wirecode.CodeOfStatus(resp.StatusCode), RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	if resp.StatusCode < 400 {
		// The API answers 200 (201 for a hold or booking) or an error; a redirect (never followed) or
		// another status is not its answer.
		e.Code = unical.CodeUpstream
	}
	if json.Unmarshal(data, &body) == nil && body.Error != nil {
		if code, ok := wirecode.CodeOfWire(body.Error.Code); ok {
			e.Code = code
		}
		e.Message, e.Field, e.Allowed = body.Error.Message, body.Error.Field, body.Error.Allowed
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("The unical server answered %s.", resp.Status)
	}
	return e
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// queryBuilder collects the query parameters of a listing, leaving out the
// ones at their zero value, as the server reads an absent parameter.
type queryBuilder url.Values

func (q queryBuilder) str(name, v string) {
	if v != "" {
		url.Values(q).Set(name, v)
	}
}

func (q queryBuilder) integer(name string, v int) {
	if v != 0 {
		url.Values(q).Set(name, strconv.Itoa(v))
	}
}

func (q queryBuilder) boolean(name string, v bool) {
	if v {
		url.Values(q).Set(name, "true")
	}
}

func (q queryBuilder) time(name string, t time.Time) {
	if !t.IsZero() {
		url.Values(q).Set(name, t.Format(time.RFC3339Nano))
	}
}

func (q queryBuilder) metadata(name string, f *unical.MetadataFilters) error {
	if f == nil {
		return nil
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return unical.WrapError(unical.CodeInvalid, err, "metadataFilters could not be encoded.")
	}
	url.Values(q).Set(name, string(raw))
	return nil
}
