package mcpserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// initialize is an MCP initialize request, the first message of a client.
var initialize = map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
	"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "browser-agent", "version": "1"}}}

// mcpHeader is what a Streamable HTTP client sends, from origin when not
// empty.
func mcpHeader(origin string) http.Header {
	h := http.Header{"Accept": {"application/json, text/event-stream"}}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return h
}

// TestBrowserOrigin: /v1/mcp holds a scoped token to its allowedOrigins
// as every /v1 route does (docs/security.md, CORS): from an allowed
// origin the answer names it, from another the request is refused 403
// naming Origin without a CORS header, and without an Origin (an agent)
// no CORS header is sent.
func TestBrowserOrigin(t *testing.T) {
	t.Parallel()
	st, host, _ := bookingStack(t)
	token := newToken(t, st, map[string]any{"endUserAccountIds": []string{host.ID}, "scopes": []string{"events.read"},
		"ttlSeconds": 600, "allowedOrigins": []string{"https://agent.example"}})
	type answer struct {
		Status      int
		AllowOrigin string
		Code, Field string
	}
	for _, tt := range []struct {
		origin string
		want   answer
	}{
		{"https://agent.example", answer{Status: 200, AllowOrigin: "https://agent.example"}},
		{"https://other.example", answer{Status: 403, Code: "forbidden", Field: "Origin"}},
		{"", answer{Status: 200}},
	} {
		r := st.DoToken(t, token, "POST", "/v1/mcp", initialize, mcpHeader(tt.origin))
		got := answer{Status: r.Status, AllowOrigin: r.Header.Get("Access-Control-Allow-Origin")}
		if r.Status != http.StatusOK {
			e := r.Error(t)
			got.Code, got.Field = e.Code, e.Field
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("origin %q (-want +got):\n%s\n%s", tt.origin, d, r.Body)
		}
	}
	// A tool call from the allowed origin reaches /v1 with the origin,
	// which the token allows.
	r := st.DoToken(t, token, "POST", "/v1/mcp", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "list_calendars", "arguments": map[string]any{"endUserAccountId": host.ID}}}, mcpHeader("https://agent.example"))
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), `"isError":true`) {
		t.Errorf("a tool call from the allowed origin = %d %s", r.Status, r.Body)
	}
}

// TestPreflight: a CORS preflight of /v1/mcp is answered as every /v1
// preflight, with the headers an MCP client adds among those allowed.
func TestPreflight(t *testing.T) {
	t.Parallel()
	st, _, _ := bookingStack(t)
	got := st.Preflight(t, "/v1/mcp", "https://agent.example", "authorization, content-type, mcp-protocol-version")
	want := map[string]string{
		"status":                       "204 No Content",
		"Access-Control-Allow-Origin":  "https://agent.example",
		"Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
		"Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key, Mcp-Protocol-Version, Mcp-Method, Mcp-Name",
		"Vary":                         "Origin",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("preflight (-want +got):\n%s", d)
	}
}

// TestProtocolRefusalsAreErrorBodies: what the MCP library refuses
// before any message is read (a body that is not JSON or too large, an
// Accept or protocol version it does not serve) is answered in the
// API's error body, with the status and code /v1 gives the same fault.
func TestProtocolRefusalsAreErrorBodies(t *testing.T) {
	t.Parallel()
	st, _, _ := bookingStack(t)
	type refusal struct {
		Status            int
		ContentType       string
		Code, Field       string
		MessageIsNotEmpty bool
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	for _, tt := range []struct {
		name   string
		body   any
		header http.Header
		want   refusal
	}{
		{"a body that is not JSON", "hello", http.Header{"Accept": {"application/json, text/event-stream"}, "Content-Type": {"text/plain"}},
			refusal{400, "application/json", "invalid_request", "Content-Type", true}},
		{"an Accept without event streams", initialize, http.Header{"Accept": {"application/json"}},
			refusal{400, "application/json", "invalid_request", "Accept", true}},
		{"a body over 1 MiB", big, mcpHeader(""),
			refusal{413, "application/json", "payload_too_large", "", true}},
		{"malformed JSON", `{"jsonrpc":`, mcpHeader(""),
			refusal{400, "application/json", "invalid_request", "", true}},
		{"an unknown protocol version", initialize, http.Header{"Accept": {"application/json, text/event-stream"}, "Mcp-Protocol-Version": {"1999-01-01"}},
			refusal{400, "application/json", "invalid_request", "", true}},
	} {
		r := st.DoHeader(t, "POST", "/v1/mcp", tt.body, tt.header)
		got := refusal{Status: r.Status, ContentType: r.Header.Get("Content-Type")}
		if strings.HasPrefix(got.ContentType, "application/json") {
			got.ContentType = "application/json"
			e := r.Error(t)
			got.Code, got.Field, got.MessageIsNotEmpty = e.Code, e.Field, e.Message != ""
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s\n%.300s", tt.name, d, r.Body)
		}
	}
}
