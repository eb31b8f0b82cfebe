package webhookreceiver

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/unical/unical"
)

// DefaultMaxBodyBytes bounds a request body when Handler.MaxBodyBytes is
// zero. unical's payloads are a few hundred bytes (an account message
// carries one account), so 1 MiB leaves room without letting a stranger
// make the receiver buffer much.
const DefaultMaxBodyBytes = 1 << 20

// Handler is an http.Handler for a webhook URL: it reads the body (at most
// MaxBodyBytes), verifies and decodes it with Verifier, and calls Receive.
// Its answers are what unical's delivery engine acts on:
//
//   - 204 No Content when Receive returns nil: delivered;
//   - 400 Bad Request for a missing or malformed header, an unreadable
//     body, or a verified body that is not a unical message;
//   - 401 Unauthorized when no signature matches or the timestamp is
//     outside the tolerance;
//   - 405 Method Not Allowed for anything but POST;
//   - 413 Request Entity Too Large for a body over MaxBodyBytes;
//   - 500 Internal Server Error when Receive fails, so that unical retries
//     the message later (with the same Message.ID).
//
// Error answers carry a one-line plain-text reason and never a secret.
type Handler struct {
	// Verifier checks each delivery; required.
	Verifier *Verifier
	// Receive is called with each verified message, in the request's
	// goroutine and context. Return nil once the message is safely handled
	// (stored or queued): unical then counts it delivered. unical waits 15
	// seconds for an answer, so hand long work to a queue. Required.
	Receive func(ctx context.Context, msg *Message) error
	// MaxBodyBytes is the largest body accepted; zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// OnError, when set, is told of each refused request and each Receive
	// failure with the status answered, for logging.
	OnError func(r *http.Request, status int, err error)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.fail(w, r, http.StatusMethodNotAllowed, unical.Errorf(unical.CodeInvalid, "Webhooks are POSTed."))
		return
	}
	limit := h.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.fail(w, r, http.StatusRequestEntityTooLarge, unical.WrapError(unical.CodeTooLarge, err, "The body is larger than %d bytes.", limit))
			return
		}
		h.fail(w, r, http.StatusBadRequest, unical.WrapError(unical.CodeInvalid, err, "The body could not be read."))
		return
	}
	msg, err := h.Verifier.Verify(r.Header, body)
	if err != nil {
		status := http.StatusBadRequest
		if unical.ErrorCode(err) == unical.CodeUnauthorized {
			status = http.StatusUnauthorized
		}
		h.fail(w, r, status, err)
		return
	}
	if err := h.Receive(r.Context(), msg); err != nil {
		// Receive's error is the program's own business: only OnError
		// sees it, the sender gets a generic reason.
		if h.OnError != nil {
			h.OnError(r, http.StatusInternalServerError, err)
		}
		http.Error(w, "The message was not processed; send it again later.", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// fail answers status with err's caller-safe message.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if h.OnError != nil {
		h.OnError(r, status, err)
	}
	http.Error(w, unical.ErrorMessage(err), status)
}
