package mcpserver

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/internal/adapter/wirecode"
)

// envelopeWriter passes the MCP SDK's answers through, except its own
// refusals of a request it could not take as MCP (a body that is not
// JSON or too large, a Content-Type or Accept it does not serve), which
// it writes as plain text with http.Error: those are kept back and
// answered by finish in the API's error body. The SDK's JSON-RPC errors
// are MCP answers a client reads, and pass through as they are.
type envelopeWriter struct {
	http.ResponseWriter
	// refused holds the status and text of a plain-text refusal; 0 while
	// the answer passes through.
	refused int
	text    bytes.Buffer
}

func (e *envelopeWriter) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(e.Header().Get("Content-Type"), "text/plain") {
		e.refused = status
		return
	}
	e.ResponseWriter.WriteHeader(status)
}

func (e *envelopeWriter) Write(p []byte) (int, error) {
	if e.refused != 0 {
		return e.text.Write(p)
	}
	return e.ResponseWriter.Write(p)
}

// Flush passes a flush on unless the answer is being kept back.
func (e *envelopeWriter) Flush() {
	if e.refused == 0 {
		http.NewResponseController(e.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (e *envelopeWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// finish writes a kept-back refusal as the API's error body.
func (e *envelopeWriter) finish(r *http.Request, logger *slog.Logger) {
	if e.refused == 0 {
		return
	}
	h := e.Header()
	h.Del("Content-Type")
	h.Del("X-Content-Type-Options")
	httpwire.WriteError(e.ResponseWriter, r, logger, refusalOf(e.refused, strings.TrimSpace(e.text.String())))
}

// refusalOf is the API's error for a plain-text refusal of the SDK with
// status and text. A Content-Type refusal (the SDK's 415) is the 400
// naming Content-Type that every /v1 route answers for a body that is
// not JSON; a body over the limit is payload_too_large, as on /v1; other
// statuses keep the code the one table pairs with them, with the SDK's
// words.
func refusalOf(status int, text string) error {
	switch {
	case status == http.StatusUnsupportedMediaType:
		return unical.FieldError("Content-Type", "Send the body as application/json.")
	case status == http.StatusRequestEntityTooLarge:
		return unical.Errorf(unical.CodeTooLarge, "The request body is larger than 1 MiB.")
	case status == http.StatusBadRequest && strings.HasPrefix(text, "Accept "):
		return unical.FieldError("Accept", "Accept must name both application/json and text/event-stream, as MCP's Streamable HTTP asks.")
	case status == http.StatusMethodNotAllowed:
		return &unical.Error{Code: wirecode.MethodNotAllowed, Message: "/v1/mcp takes POST."}
	case status >= 500:
		return unical.Errorf(unical.CodeInternal, "The MCP request could not be served.")
	}
	if text == "" {
		text = http.StatusText(status)
	}
	return &unical.Error{Code: wirecode.CodeOfStatus(status), Message: "MCP: " + text}
}
