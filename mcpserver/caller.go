package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// A Sender sends one /v1 request and returns its answer: InProcess serves
// it with the server's own handler, and an *http.Client's Do sends it to
// a remote server.
type Sender func(*http.Request) (*http.Response, error)

// InProcess returns a Sender that serves each request with h, the /v1
// handler, in memory: the request passes the same front door, scope
// checks and handlers as one that came over the network.
func InProcess(h http.Handler) Sender {
	return func(r *http.Request) (*http.Response, error) {
		// What net/http gives a server's handler and a client's request
		// lacks: a body to read even when empty, and the request line's
		// target.
		if r.Body == nil {
			r.Body = http.NoBody
		}
		r.RequestURI = r.URL.RequestURI()
		w := httpwire.NewBuffer(nil)
		h.ServeHTTP(w, r)
		body := w.Bytes()
		return &http.Response{
			StatusCode: w.Status(), Header: w.Header(), Request: r,
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		}, nil
	}
}

// maxAnswerBytes bounds the /v1 answer a tool reads: a page of events
// with long descriptions is far below it.
const maxAnswerBytes = 16 << 20

// caller makes the /v1 calls of one MCP client, in its name.
type caller struct {
	send Sender
	// base is the /v1 server's URL without a trailing slash.
	base string
	// header holds the caller's credential (Authorization, x-api-key)
	// and, in process, the forwarding header the per-address limit
	// reads.
	header http.Header
	// remoteAddr is the MCP request's peer, so that in process the
	// per-address limit counts the calls against the agent's address.
	remoteAddr string
	// grantID is the id of the caller's token, which its idempotency
	// keys are taken within; "" for an API key.
	grantID string
}

// forwarded are the request headers copied onto every /v1 call: the
// credential, the address the per-address limit counts, and the browser
// Origin, which the API holds a scoped token's allowedOrigins to.
var forwarded = []string{"Authorization", "X-Api-Key", "X-Forwarded-For", "Origin"}

// answer is a /v1 answer: its status, headers and JSON body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// ok reports whether the answer is a success (200, or 201 for a hold or
// booking made).
func (a answer) ok() bool { return a.status/100 == 2 }

// call sends one /v1 request: body, when not nil, as JSON, and key, when
// not empty, as its Idempotency-Key. An error is a failure to reach the
// server or to read its answer; every answer the server gave, error
// bodies included, is returned as it came.
func (c *caller) call(ctx context.Context, method, path string, query url.Values, body any, key string) (answer, error) {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return answer{}, unical.WrapError(unical.CodeInternal, err, "The request to the API could not be encoded.")
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return answer{}, unical.WrapError(unical.CodeInvalid, err, "The request to the API could not be built.")
	}
	for _, name := range forwarded {
		if v := c.header.Values(name); len(v) > 0 {
			req.Header[name] = v
		}
	}
	req.RemoteAddr = c.remoteAddr
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "unical-mcp")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.send(req)
	if err != nil {
		return answer{}, unical.WrapError(unical.CodeUnavailable, err, "The unical server could not be reached.")
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return answer{}, unical.WrapError(unical.CodeUnavailable, err, "The answer of the unical server could not be read.")
	}
	if len(data) > maxAnswerBytes {
		return answer{}, unical.Errorf(unical.CodeUpstream, "The answer of the unical server is larger than %d bytes.", maxAnswerBytes)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !json.Valid(data) {
		return answer{}, unical.Errorf(unical.CodeUpstream, "The answer of the unical server (status %d) is not the API's JSON.", resp.StatusCode)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// errorBody is the /v1 error body, as far as unicald mcp reports it.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// toolResult is a tool's answer: the /v1 answer's JSON as the structured
// content (and, for clients that read only text, as text), or, for an
// error answer, the /v1 error body as the text of a tool error.
func toolResult(a answer) (*mcp.CallToolResult, any, error) {
	if a.ok() {
		return nil, json.RawMessage(a.body), nil
	}
	return errorResult(a.body), nil, nil
}

// refusal is the tool error of err, a refusal of the server's own (no
// /v1 call made): the /v1 error body of err.
func refusal(err error) *mcp.CallToolResult { return errorResult(httpwire.ErrorJSON(err)) }

// errorResult is a tool error carrying body, a /v1 error body.
func errorResult(body []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
}
