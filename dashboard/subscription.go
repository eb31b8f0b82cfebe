package dashboard

import "net/http"

// pauseSubscription handles POST /dashboard/apps/{app}/subscriptions/{sub}/pause.
func (h *handler) pauseSubscription(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.PauseSubscription(r.Context(), r.PathValue("app"), r.PathValue("sub")); err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	done(w, r, "/webhooks", "subscription-paused", nil)
}

// resumeSubscription handles POST /dashboard/apps/{app}/subscriptions/{sub}/resume.
func (h *handler) resumeSubscription(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.ResumeSubscription(r.Context(), r.PathValue("app"), r.PathValue("sub")); err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	done(w, r, "/webhooks", "subscription-resumed", nil)
}

// deleteSubscription handles POST /dashboard/apps/{app}/subscriptions/{sub}/delete.
func (h *handler) deleteSubscription(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.DeleteSubscription(r.Context(), r.PathValue("app"), r.PathValue("sub")); err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	done(w, r, "/webhooks", "subscription-deleted", nil)
}
