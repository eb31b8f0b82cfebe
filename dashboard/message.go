package dashboard

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// pageMessage is the payload viewer: one attempt of a webhook message as
// it was sent, its signed body and its headers.
var pageMessage = appPage{"webhooks", "message", "Webhook message", (*handler).loadMessage}

// messageData is the payload viewer's page.
type messageData struct {
	*admin.SentMessage
	// Indented is Body indented for reading; the signed bytes are Body.
	Indented string
}

// loadMessage reads message {message} as the attempt at the at query
// parameter (Unix seconds, the attempt's webhook-timestamp) sent it.
func (h *handler) loadMessage(r *http.Request, app *admin.ApplicationView) (any, error) {
	secs, err := strconv.ParseInt(r.URL.Query().Get("at"), 10, 64)
	if err != nil {
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "at", Message: "at must be the attempt's time in Unix seconds."}
	}
	sent, err := h.admin.SentMessage(r.Context(), app.ID, r.PathValue("message"), time.Unix(secs, 0))
	if err != nil {
		return nil, err
	}
	d := &messageData{SentMessage: sent}
	var buf bytes.Buffer
	if json.Indent(&buf, sent.Body, "", "  ") == nil {
		d.Indented = buf.String()
	}
	return d, nil
}
