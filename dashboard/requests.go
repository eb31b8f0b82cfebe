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
	d := &requestsData{Failed: r.URL.Query().Get("failed") == "1"}
	list, err := h.admin.ListRequests(r.Context(), app.ID, d.Failed)
	if err != nil {
		return d, err
	}
	d.Kept, d.PerApplication, d.Retention = list.Kept, list.PerApplication, time.Duration(list.RetentionSeconds)*time.Second
	keys, err := h.admin.ListAPIKeyViews(r.Context(), app.ID)
	if err != nil {
		return d, err
	}
	byPrefix := map[string]*admin.APIKeyView{}
	for _, k := range keys {
		byPrefix[k.Prefix] = k
	}
	for _, e := range list.Data {
		d.Requests = append(d.Requests, requestRow{Entry: e, Key: byPrefix[e.KeyPrefix]})
	}
	return d, nil
}
