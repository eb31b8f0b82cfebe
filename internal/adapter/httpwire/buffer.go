package httpwire

import (
	"bytes"
	"net/http"
)

// Buffer is an http.ResponseWriter that keeps the answer in memory: for
// an answer written before it may be sent (a refusal sent over a taken
// connection, an idempotent write's first answer, which is kept before
// it goes out) and for a handler called in process (the MCP server's
// /v1 calls).
type Buffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// NewBuffer returns an empty Buffer whose header starts as header (a new
// one when header is nil); the Buffer owns it from then on.
func NewBuffer(header http.Header) *Buffer {
	if header == nil {
		header = http.Header{}
	}
	return &Buffer{header: header}
}

// Header returns the answer's header.
func (b *Buffer) Header() http.Header { return b.header }

// WriteHeader keeps the first final status; an informational (1xx)
// status is not the answer's and is passed over, as a later one is.
func (b *Buffer) WriteHeader(status int) {
	if b.status == 0 && status >= 200 {
		b.status = status
	}
}

// Write appends p to the body; a body without a status is a 200's.
func (b *Buffer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// Status returns the answer's status: 200 when the handler wrote none.
func (b *Buffer) Status() int {
	if b.status == 0 {
		return http.StatusOK
	}
	return b.status
}

// Bytes returns the body written so far.
func (b *Buffer) Bytes() []byte { return b.body.Bytes() }

// CopyTo writes the answer to w: its header, status and body.
func (b *Buffer) CopyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.Status())
	_, _ = w.Write(b.body.Bytes())
}
