package dashboard

import (
	"net/http"

	"github.com/unical/unical/admin"
)

// auditPage handles GET /dashboard/audit: the audit log of every
// application, newest first, a page at a time (?page= continues).
func (h *handler) auditPage(w http.ResponseWriter, r *http.Request, s *session) {
	status, errMsg := http.StatusOK, ""
	page, err := h.admin.ListAudit(r.Context(), &admin.AuditListParams{PageToken: r.URL.Query().Get("page")})
	if err != nil {
		errMsg, status = h.message(r, err), statusOf(err)
	}
	h.render(w, r, status, "audit", &view{Session: s, Title: "Audit log", Error: errMsg, Section: "audit", Data: page})
}
