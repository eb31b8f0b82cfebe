package httpapi

import (
	"mime"
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/invite"
)

func (h *handler) registerInvitationRoutes() {
	h.mux.HandleFunc("GET /v1/events/{accountID}/{calendarID}/{eventID}/invitations", h.api(h.handleInvitationList))
	h.mux.HandleFunc("POST /v1/imip/{applicationID}", h.handleIMIP)
}

// handleInvitationList handles
// GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/invitations.
func (h *handler) handleInvitationList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	list, err := invite.ListInvitations(r.Context(), app, r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"))
	if err != nil {
		return err
	}
	return ok(w, list)
}

// handleIMIP handles POST /v1/imip/{applicationId}: one inbound mail
// message, authorized by the application's inbound secret, not an API key.
func (h *handler) handleIMIP(w http.ResponseWriter, r *http.Request) {
	if media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); media != "message/rfc822" {
		h.writeError(w, r, unical.FieldError("Content-Type", "The body must be one mail message sent as message/rfc822."))
		return
	}
	secret, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	body := http.MaxBytesReader(w, r.Body, imip.MaxMessageSize+1)
	got, err := invite.Receive(r.Context(), h.client, r.PathValue("applicationID"), secret, body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	_ = ok(w, got)
}
