package httpapi

import (
	_ "embed"
	"net/http"
	"strconv"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route NewHandler
// mounts, written by hand in openapi.json and kept true by the package's
// tests: a route missing from either side, or an answer of a test that
// does not match it, fails them.
//
//go:embed openapi.json
var OpenAPIDocument []byte

// registerOpenAPIRoute serves the document at GET /v1/openapi.json without
// an API key: a client generator must be able to read the contract before
// it has a key, and the document holds nothing about an application.
func (h *handler) registerOpenAPIRoute() {
	h.mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr["Content-Type"] = jsonContentType
		hdr.Set("Content-Length", strconv.Itoa(len(OpenAPIDocument)))
		// The document changes only with the binary.
		hdr.Set("Cache-Control", "public, max-age=300")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(OpenAPIDocument)
	})
}
