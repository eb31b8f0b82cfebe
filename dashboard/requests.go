package dashboard

import (
	"net/http"
	"time"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/requestlog"
)

// requestsData is the Requests page: an application's recent /v1
// requests from this process's request log, newest first.
type requestsData struct {
	// Kept says whether a request log is kept at all.
	Kept bool
	// Failed shows only the requests answered with a 4xx or 5xx.
	Failed   bool
	Requests []requestRow
	// PerApplication and Retention bound the log, for the page's note.
	PerApplication int
	Retention      time.Duration
}

// requestRow is one request with the key it was made with, by its label.
type requestRow struct {
	requestlog.Entry
	// Key is the API key the request was made with; nil when it was
	// revoked since.
	Key *admin.APIKeyView
}

func (h *handler) loadRequests(r *http.Request, app *admin.ApplicationView) (any, error) {
	d := &requestsData{Kept: h.requests != nil, Failed: r.URL.Query().Get("failed") == "1"}
	if !d.Kept {
		return d, nil
	}
	d.PerApplication, d.Retention = h.requests.PerApplication(), h.requests.Retention()
	keys, err := h.admin.ListAPIKeyViews(r.Context(), app.ID)
	if err != nil {
		return d, err
	}
	byPrefix := map[string]*admin.APIKeyView{}
	for _, k := range keys {
		byPrefix[k.Prefix] = k
	}
	for _, e := range h.requests.List(app.ID) {
		if d.Failed && e.Status < 400 {
			continue
		}
		d.Requests = append(d.Requests, requestRow{Entry: e, Key: byPrefix[e.KeyPrefix]})
	}
	return d, nil
}
