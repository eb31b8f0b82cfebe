package httpapi

import (
	_ "embed"
	"net/http"
	"strconv"
	"sync"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/internal/adapter/openapienum"
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
// Its provider type enums name the client's providers (OpenAPIDocumentFor).
func (h *handler) registerOpenAPIRoute() {
	doc := sync.OnceValue(func() []byte { return OpenAPIDocumentFor(h.client) })
	h.mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		doc := doc()
		hdr := w.Header()
		hdr["Content-Type"] = httpwire.JSONContentType
		hdr.Set("Content-Length", strconv.Itoa(len(doc)))
		// The document changes only with the binary.
		hdr.Set("Cache-Control", "public, max-age=300")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	})
}

// OpenAPIDocumentFor is [OpenAPIDocument] with its provider type enums
// naming c's providers: the document as written for a server built as
// unical ships, and one that names every other provider a server has.
func OpenAPIDocumentFor(c *unical.Client) []byte {
	doc, err := openapienum.Fill(OpenAPIDocument, openapienum.ProviderLists(c))
	if err != nil {
		panic("httpapi: openapi.json: " + err.Error()) // the embedded document is tested to parse
	}
	return doc
}
