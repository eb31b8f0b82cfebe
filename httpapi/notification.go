package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/subscriptions"
)

// registerNotificationRoutes adds the address providers push to. It takes
// no API key: providers have none; the watch token in each notification
// authenticates it (see subscriptions.HandleNotification).
func (h *handler) registerNotificationRoutes() {
	h.mux.HandleFunc("POST /v1/notifications/{provider}/{appID}/{subscriptionID}", h.handleNotification)
}

// handleNotification handles
// POST /v1/notifications/{provider}/{applicationId}/{subscriptionId}.
func (h *handler) handleNotification(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.writeError(w, r, unical.Errorf(unical.CodeTooLarge, "The request body is larger than 1 MiB."))
			return
		}
		h.writeError(w, r, unical.Errorf(unical.CodeInvalid, "The request body could not be read."))
		return
	}
	n := &unical.Notification{Method: r.Method, Header: r.Header, Query: r.URL.Query(), Body: body}
	res, err := subscriptions.HandleNotification(r.Context(), h.client, r.PathValue("provider"), r.PathValue("appID"), r.PathValue("subscriptionID"), n)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if res.ContentType != "" {
		w.Header().Set("Content-Type", res.ContentType)
	}
	status := res.Status
	if status == 0 {
		status = http.StatusAccepted
	}
	w.WriteHeader(status)
	_, _ = w.Write(res.Body)
}
