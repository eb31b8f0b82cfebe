package dashboard

import (
	"net/http"
	"strings"

	"github.com/unical/unical/admin"
)

// pageMail is the application's invitation mail settings.
var pageMail = appPage{"mail", "mail", "Invitation mail", (*handler).loadMail}

// mailData is the mail page: the settings, and the answer of a test
// message just sent.
type mailData struct {
	Mail     *admin.MailView
	Verified *admin.MailVerified
}

func (h *handler) loadMail(_ *http.Request, app *admin.ApplicationView) (any, error) {
	return &mailData{Mail: app.Mail}, nil
}

// saveMail handles POST /dashboard/apps/{app}/mail: the settings, with
// the password and inbound secret kept when their fields are left empty.
func (h *handler) saveMail(w http.ResponseWriter, r *http.Request, s *session) {
	field := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	if _, err := h.admin.SetApplicationMail(r.Context(), r.PathValue("app"), &admin.MailParams{
		SMTPURL: field("smtpUrl"), Username: field("username"), Password: r.PostFormValue("password"),
		From: field("from"), InboundSecret: r.PostFormValue("inboundSecret"),
	}); err != nil {
		h.failed(w, r, s, pageMail, err)
		return
	}
	done(w, r, "/mail", "mail-saved", nil)
}

// removeMail handles POST /dashboard/apps/{app}/mail/remove.
func (h *handler) removeMail(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.admin.RemoveApplicationMail(r.Context(), r.PathValue("app")); err != nil {
		h.failed(w, r, s, pageMail, err)
		return
	}
	done(w, r, "/mail", "mail-removed", nil)
}

// verifyMail handles POST /dashboard/apps/{app}/mail/verify: it sends the
// test message and shows what the SMTP server answered.
func (h *handler) verifyMail(w http.ResponseWriter, r *http.Request, s *session) {
	v, err := h.admin.VerifyApplicationMail(r.Context(), r.PathValue("app"), &admin.MailVerifyParams{To: strings.TrimSpace(r.PostFormValue("to"))})
	if err != nil {
		h.failed(w, r, s, pageMail, err)
		return
	}
	h.show(w, r, s, pageMail, http.StatusOK, "", func(data any) { data.(*mailData).Verified = v })
}
