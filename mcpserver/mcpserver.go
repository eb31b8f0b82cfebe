// Package mcpserver is unical's MCP server (Model Context Protocol): the
// tools an AI agent uses to read calendars, find times, hold and book
// slots, cancel bookings and answer invitations, within what its scoped
// token grants.
//
// Every tool is one call of the /v1 API made with the agent's own
// credential: in process through the server's own handler (NewHandler,
// mounted at /v1/mcp over Streamable HTTP), or over HTTP to a running
// server (Remote, which `unicald mcp` runs over stdio). So a token's
// scopes are checked in one place, the /v1 front door, a tool's result
// is the /v1 answer's JSON, and both transports share all of this code.
// The protocol itself is the official Go SDK's
// (github.com/modelcontextprotocol/go-sdk).
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/scopedtoken"
)

// instructions tell the agent how the tools are used.
const instructions = `unical's tools call its /v1 calendar API with your token; each result is the API's JSON answer, and a failure is the API's error body {"error": {"code", "message", "field"}}. You see only the tools your token's scopes allow.
To book: get_slots (or find_availability), then optionally hold_slot, then book. Every write tool takes an idempotencyKey: use a new one per action and the same one when you retry it, so that a retry never books twice. cancel_booking, and rsvp with "declined", need "confirm": true, which you send only after the user agreed.`

// grant is what a caller may do: the fields of GET /v1/tokens/current
// the server uses.
type grant struct {
	// ID is the token's id; "" for the application's API key.
	ID     string              `json:"id"`
	Scopes []scopedtoken.Scope `json:"scopes"`
	// cors are the CORS headers the API answered the token's check with:
	// those of a browser origin the token allows, none otherwise.
	cors http.Header
}

// resolveGrant asks the /v1 API what c's credential grants: a scoped
// token (Authorization: Bearer) its grant, an API key every scope. A
// credential the API refuses is returned as its answer, to pass on.
func (c *caller) resolveGrant(ctx context.Context) (*grant, *answer, error) {
	if c.header.Get("Authorization") != "" {
		a, err := c.call(ctx, http.MethodGet, "/v1/tokens/current", nil, nil, "")
		if err != nil {
			return nil, nil, err
		}
		if !a.ok() {
			return nil, &a, nil
		}
		var g grant
		if err := json.Unmarshal(a.body, &g); err != nil {
			return nil, nil, unical.WrapError(unical.CodeUpstream, err, "The token's grant answered by the unical server could not be read.")
		}
		c.grantID = g.ID
		g.cors = corsOf(a.header)
		return &g, nil, nil
	}
	// The API key's check: the cheapest route that takes it.
	a, err := c.call(ctx, http.MethodGet, "/v1/capabilities", nil, nil, "")
	if err != nil {
		return nil, nil, err
	}
	if !a.ok() {
		return nil, &a, nil
	}
	return &grant{Scopes: scopedtoken.Scopes}, nil, nil
}

// newServer returns an MCP server whose tools call the API through c,
// listing only those within g's scopes.
func newServer(c *caller, g *grant, cache *mcp.SchemaCache, logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "unical", Title: "unical calendar API", Version: "1"}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       logger,
		SchemaCache:  cache,
		// The tool list is fixed for a connection: its token's scopes do
		// not change.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, t := range tools {
		t.add(s, c)
	}
	s.AddReceivingMiddleware(withinScopes(g.Scopes))
	return s
}

// withinScopes keeps a server to the tools whose scope is granted:
// tools/list leaves out the others, and a call of one of them is a tool
// error naming the scope it lacks (the /v1 API would refuse its call with
// 403 anyway; this says so before any call).
func withinScopes(granted []scopedtoken.Scope) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok {
				if scope, known := toolScopes[call.Params.Name]; known && !slices.Contains(granted, scope) {
					err := &unical.Error{Code: scopedtoken.CodeForbidden, Field: "scope",
						Message: "This token does not have the scope " + string(scope) + ", which the tool " + call.Params.Name + " needs."}
					return refusal(err), nil
				}
			}
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !slices.Contains(granted, toolScopes[t.Name]) })
			}
			return res, err
		}
	}
}

// Config configures NewHandler. Sender is required.
type Config struct {
	// Sender makes each tool's /v1 call; [InProcess] sends it to the
	// server's own handler.
	Sender Sender
	// Logger receives the SDK's log of protocol failures; default none.
	Logger *slog.Logger
}

// NewHandler serves MCP over Streamable HTTP (the route POST /v1/mcp),
// making each tool's /v1 call through cfg.Sender with the credential of the
// MCP request that asked for it.
//
// It is stateless: no session is kept between requests, so any replica
// answers any request, and each request's tools are those its credential
// grants now (GET /v1/tokens/current, asked once per request). Answers
// are JSON, not event streams, as the server sends the client nothing of
// its own; GET and DELETE are 405.
func NewHandler(cfg Config) http.Handler {
	h := &handler{send: cfg.Sender, cache: mcp.NewSchemaCache(), log: quiet(cfg.Logger), errLog: cfg.Logger}
	if h.errLog == nil {
		h.errLog = slog.New(slog.DiscardHandler)
	}
	h.sdk = mcp.NewStreamableHTTPHandler(serverOf, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       h.log,
		// The SDK refuses a loopback request with another Host, against
		// DNS rebinding. That guards servers trusting whoever reaches
		// them; this one needs the caller's token, which a rebinding page
		// does not have, and unicald often runs on loopback behind a
		// proxy that keeps the public Host.
		DisableLocalhostProtection:   true,
		PropagateRequestCancellation: true,
		// As /v1's bodies (httpapi.MaxBodyBytes).
		MaxRequestBodyBytes: 1 << 20,
	})
	return h
}

type handler struct {
	send  Sender
	cache *mcp.SchemaCache
	log   *slog.Logger // the SDK's, warnings and errors only
	// errLog receives the failures to reach the API (httpwire.WriteError).
	errLog *slog.Logger
	sdk    *mcp.StreamableHTTPHandler
}

// serverKey is the context key of a request's server, from ServeHTTP to
// the SDK's getServer (serverOf).
type serverKey struct{}

func serverOf(r *http.Request) *mcp.Server {
	s, _ := r.Context().Value(serverKey{}).(*mcp.Server)
	return s
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	header := http.Header{}
	for _, name := range forwarded {
		if v := r.Header.Values(name); len(v) > 0 {
			header[name] = slices.Clone(v)
		}
	}
	c := &caller{send: h.send, base: "http://" + r.Host, header: header, remoteAddr: r.RemoteAddr}
	g, refused, err := c.resolveGrant(r.Context())
	switch {
	case err != nil:
		httpwire.WriteError(w, r, h.errLog, err)
		return
	case refused != nil:
		if refused.status == http.StatusUnauthorized {
			// RFC 9728's hint for MCP clients: send a bearer token.
			w.Header().Set("WWW-Authenticate", `Bearer realm="unical"`)
		}
		httpwire.WriteBody(w, refused.status, refused.body)
		return
	}
	// A browser origin the token allows is named as the API names it,
	// on the MCP answer and on the SDK's refusals alike.
	for k, v := range g.cors {
		w.Header()[k] = v
	}
	s := newServer(c, g, h.cache, h.log)
	ew := &envelopeWriter{ResponseWriter: w}
	h.sdk.ServeHTTP(ew, r.WithContext(context.WithValue(r.Context(), serverKey{}, s)))
	ew.finish(r, h.errLog)
}

// corsOf keeps the CORS headers of an answer of the API.
func corsOf(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		if strings.HasPrefix(k, "Access-Control-") || k == "Vary" {
			out[k] = slices.Clone(v)
		}
	}
	return out
}

// Remote is the MCP server of a local agent: its tools call the /v1 API of
// the unicald server at URL with Token, and it never opens a store.
type Remote struct {
	// URL is the server's base URL, such as https://cal.example.com.
	URL string
	// Token is a scoped token (ust_...), sent as Authorization: Bearer,
	// or, for a trusted local agent, the application's API key (uk_...),
	// sent as x-api-key.
	Token string
	// HTTPClient sends the calls, required; it must not follow
	// redirects, so that the token goes to URL only.
	HTTPClient *http.Client
	// Logger receives the SDK's log of protocol failures; default none.
	Logger *slog.Logger
}

// Run serves MCP on t (stdio for `unicald mcp`) until the client leaves
// or ctx ends. The token's grant is read once, at the start: a token the
// server refuses is an error before anything is served.
func (rm *Remote) Run(ctx context.Context, t mcp.Transport) error {
	if rm.HTTPClient == nil || rm.Token == "" {
		return errors.New("mcpserver: Remote needs an HTTPClient and a Token")
	}
	header := http.Header{}
	if strings.HasPrefix(rm.Token, "uk_") {
		header.Set("X-Api-Key", rm.Token)
	} else {
		header.Set("Authorization", "Bearer "+rm.Token)
	}
	c := &caller{send: rm.HTTPClient.Do, base: strings.TrimRight(rm.URL, "/"), header: header}
	g, refused, err := c.resolveGrant(ctx)
	if err != nil {
		return err
	}
	if refused != nil {
		var b errorBody
		_ = json.Unmarshal(refused.body, &b)
		return errors.New("the server refused the token (" + b.Error.Code + "): " + b.Error.Message)
	}
	return newServer(c, g, nil, quiet(rm.Logger)).Run(ctx, t)
}

// quiet passes on the SDK's warnings and errors only: its info lines (a
// session connected, initialized, ended) come with every request of a
// stateless server.
func quiet(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(warnings{l.Handler()})
}

// warnings is a slog.Handler that drops records below slog.LevelWarn.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && w.Handler.Enabled(ctx, level)
}

func (w warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{w.Handler.WithAttrs(attrs)}
}

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }
