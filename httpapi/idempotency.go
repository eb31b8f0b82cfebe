package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/ics"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// idempotencyHeader carries the key of an idempotent write;
// replayedHeader marks an answer that is a kept one replayed.
const (
	idempotencyHeader = "Idempotency-Key"
	replayedHeader    = "Idempotent-Replayed"
)

// maxWriteBody is the largest request body of any write route: an
// iCalendar import's.
const maxWriteBody = max(MaxBodyBytes, ics.MaxImportBytes)

// isWrite reports whether a method is one Idempotency-Key applies to.
func isWrite(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodDelete
}

// idempotent serves an authenticated write that carries Idempotency-Key
// through App.Idempotency, the one implementation it shares with the
// Go methods: fn runs once per key and its answer, encoded as it went out,
// is kept; a retry gets those bytes again with Idempotent-Replayed: true.
func (h *handler) idempotent(w http.ResponseWriter, r *http.Request, app *unical.App, keys []string, fn appHandler) {
	if len(keys) > 1 {
		h.writeError(w, r, unical.FieldError(idempotencyHeader, "Send one Idempotency-Key header."))
		return
	}
	key := keys[0]
	if msg := idempotency.CheckKey(key); msg != "" {
		h.writeError(w, r, unical.FieldError(idempotency.KeyField, "%s", msg))
		return
	}
	// The body is part of the fingerprint, so it is read first, up to
	// the largest any route takes; one byte over a route's limit is
	// enough for its handler to answer 413 as usual.
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWriteBody+1))
	if err != nil {
		h.writeError(w, r, unical.Errorf(unical.CodeInvalid, "The request body could not be read."))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var first *httpwire.Buffer
	res, replayed, err := app.Idempotency().Run(r.Context(), key, requestFingerprint(r, body), func(ctx context.Context) idempotency.Answer {
		// ctx outlives the client's connection: a client that went away
		// after sending still gets its answer kept, for its retry.
		r := r.WithContext(ctx)
		first = httpwire.NewBuffer(nil)
		var code unical.Code
		if err := fn(first, r, app); err != nil {
			err = h.timedOut(r.Context(), err)
			code = unical.ErrorCode(err)
			h.writeError(first, r, err)
		}
		return idempotency.Answer{Status: first.Status(), Code: string(code), Body: first.Bytes()}
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if !replayed {
		// The first answer goes out as the handler wrote it, headers and
		// all (Retry-After of an answer that is not kept).
		first.CopyTo(w)
		return
	}
	w.Header().Set(replayedHeader, "true")
	writeBody(w, res.Status, res.Body)
}

// requestFingerprint identifies a request for its Idempotency-Key: the
// method, the escaped path, the query (parameters in sorted order) and a
// SHA-256 of the body, and the If-Match header when there is one: a write
// conditional on another etag is another request, as a Go write's
// WriteOptions.IfMatch is part of its fingerprint. No other header is
// part of it, and a request without If-Match has the fingerprint it had
// before If-Match counted.
func requestFingerprint(r *http.Request, body []byte) string {
	sum := sha256.Sum256(body)
	fp := "http\x00" + r.Method + "\x00" + r.URL.EscapedPath() + "\x00" + r.URL.Query().Encode() + "\x00" + hex.EncodeToString(sum[:])
	// A scoped token's writes are its own: the same key and request
	// with the API key or another token is another request, so that no
	// credential replays an answer it could not have been given.
	if g := grantOf(r); g != nil {
		fp = "token\x00" + g.ID + "\x00" + r.Method + "\x00" + r.URL.EscapedPath() + "\x00" + r.URL.Query().Encode() + "\x00" + hex.EncodeToString(sum[:])
	}
	if etags := r.Header.Values("If-Match"); len(etags) > 0 {
		fp += "\x00" + strings.Join(etags, "\x00")
	}
	return fp
}
