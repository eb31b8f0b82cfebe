package httpwire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// WriteJSON writes v as a JSON answer with status. The body is encoded into a pooled
// buffer first, so it goes out with a Content-Length in one write, and a
// value that fails to encode is a 500 rather than a status with no body.
func WriteJSON(w http.ResponseWriter, status int, v any) { WriteAppended(w, status, v, AppendJSON) }

// WriteAppended is WriteJSON with the encoder given: appendJSON appends v
// to a buffer as AppendJSON does, so that a front end may write its most
// frequent answers by hand and still answer through here.
func WriteAppended(w http.ResponseWriter, status int, v any, appendJSON func([]byte, any) ([]byte, error)) {
	buf := jsonBuffers.Get().(*[]byte)
	body, err := appendJSON((*buf)[:0], v)
	if err != nil {
		status, body = http.StatusInternalServerError, append(body[:0], internalErrorBody...)
	}
	WriteBody(w, status, body)
	if cap(body) <= maxPooledBuffer {
		*buf = body
		jsonBuffers.Put(buf)
	}
}

// WriteBody writes an encoded JSON answer.
func WriteBody(w http.ResponseWriter, status int, body []byte) {
	WriteBodyLength(w, status, body, []string{strconv.Itoa(len(body))})
}

// WriteBodyLength is WriteBody with the Content-Length value given, so
// that a kept answer keeps its length too (two allocations fewer).
func WriteBodyLength(w http.ResponseWriter, status int, body []byte, length []string) {
	h := w.Header()
	// Shared, never-modified values save two allocations per answer.
	h["Content-Type"] = JSONContentType
	h["Cache-Control"] = noStore
	h["Content-Length"] = length
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// jsonBuffers holds answer buffers for reuse; buffers that grew past
// maxPooledBuffer (long event pages) are left to the garbage collector, so
// the pool stays small.
var jsonBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBuffer = 64 << 10

var (
	// JSONContentType is the Content-Type of every JSON answer, shared and
	// never modified (an allocation fewer per answer).
	JSONContentType   = []string{"application/json; charset=utf-8"}
	noStore           = []string{"no-store"}
	internalErrorBody = `{"error":{"code":"internal","message":"Internal error."}}` + "\n"
)

// AppendJSON appends v as json.Encoder writes it: HTML-safe escaping and
// a newline at the end.
func AppendJSON(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	err := json.NewEncoder(buf).Encode(v)
	return buf.Bytes(), err
}
