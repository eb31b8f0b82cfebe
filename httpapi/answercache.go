package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"

	"github.com/unical/unical"
	"github.com/unical/unical/storeversion"
)

// answerCache keeps the encoded answers of account reads, the most
// frequent calls, by application and URL, together with the
// Store version they were read at (storeversion.Store). An answer is
// reused only while the version has not moved, so it is byte for byte what
// reading and encoding again would give: a write to an account (with
// bbolt, any write) makes every entry miss once, and so does, with the
// PostgreSQL store, one made by another replica once the database's
// notification of it arrives. The API key is still checked on every request,
// and the application id in the key keeps each application's answers its
// own. Credentials are never cached (they are only unsealed on request).
type answerCache struct {
	mu      sync.Mutex
	entries map[answerKey]cachedAnswer
	bytes   int
}

// answerKey is an answer's application and URL. The URL is kept as its
// parts, not as URL.RequestURI, which escapes the path again on every
// request (about 500 instructions): equal parts are the same request.
type answerKey struct {
	app, path, rawPath, query string
}

type cachedAnswer struct {
	version uint64
	body    []byte // shared by every writer of the answer; never changed
	// length is body's Content-Length value, shared and never changed
	// like body.
	length []string
}

// Bounds of the cache: answers larger than maxCachedAnswer are not kept,
// and past maxCachedBytes in all the cache starts over.
const (
	maxCachedAnswer = 128 << 10
	maxCachedBytes  = 4 << 20
)

func (c *answerCache) get(key answerKey, version uint64) (cachedAnswer, bool) {
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok || e.version != version {
		return cachedAnswer{}, false
	}
	return e, true
}

func (c *answerCache) put(key answerKey, version uint64, body []byte) {
	if len(body) > maxCachedAnswer {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= len(old.body)
	}
	if c.entries == nil || c.bytes+len(body) > maxCachedBytes {
		c.entries, c.bytes = map[answerKey]cachedAnswer{}, 0
	}
	c.entries[key] = cachedAnswer{version: version, body: body, length: []string{strconv.Itoa(len(body))}}
	c.bytes += len(body)
}

// cachedRead answers a GET from the cache when the Store has not changed
// since the answer was encoded, and otherwise calls read and keeps its
// encoded answer. Errors are never cached. read is given the request's
// context with its deadline (requestContext): a route of cachedRead is
// registered with HandleReadFunc, so r does not carry the deadline.
func (h *handler) cachedRead(w http.ResponseWriter, r *http.Request, app *unical.App, read func(ctx context.Context) (any, error)) error {
	// The version is read before the data, so an answer is never filed
	// under a version newer than what it shows.
	version, versioned := storeversion.Of(h.client.Store())
	if !versioned {
		v, err := read(requestContext(w, r))
		if err != nil {
			return err
		}
		return ok(w, v)
	}
	key := answerKey{app.ID(), r.URL.Path, r.URL.RawPath, r.URL.RawQuery}
	if kept, hit := h.answers.get(key, version); hit {
		writeBodyLength(w, http.StatusOK, kept.body, kept.length)
		return nil
	}
	v, err := read(requestContext(w, r))
	if err != nil {
		return err
	}
	body, err := appendJSON(nil, v)
	if err != nil {
		return ok(w, v) // writeJSON answers the failure
	}
	h.answers.put(key, version, body)
	writeBody(w, http.StatusOK, body)
	return nil
}
