package adminapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/smtptest"
)

func TestMail(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	s := startServer(t, nil)
	app := s.createApp(t, "Rooms").Application.ID
	path := "/admin/v1/applications/" + app + "/mail"

	wantError(t, s.admin(t, "GET", path, nil), http.StatusNotFound, "not_found", "mail")
	wantError(t, s.admin(t, "POST", path+"/verify", map[string]string{"to": "ops@example.org"}), http.StatusConflict, "conflict", "mail")

	good := admin.MailParams{SMTPURL: mta.URL, Username: mta.Username, Password: mta.Password, From: "rooms@example.com", InboundSecret: "inbound-secret-0123456789"}
	for _, tc := range []struct {
		name  string
		edit  func(p *admin.MailParams)
		field string
	}{
		{"ErrScheme", func(p *admin.MailParams) { p.SMTPURL = "https://mail.example.com" }, "mail.smtpUrl"},
		{"ErrUserInURL", func(p *admin.MailParams) { p.SMTPURL = "smtp://u:p@mail.example.com" }, "mail.smtpUrl"},
		{"ErrFrom", func(p *admin.MailParams) { p.From = "Rooms <rooms@example.com>" }, "mail.from"},
		{"ErrPasswordWithoutUser", func(p *admin.MailParams) { p.Username = "" }, "mail.password"},
		{"ErrShortInboundSecret", func(p *admin.MailParams) { p.InboundSecret = "short" }, "mail.inboundSecret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			tc.edit(&p)
			wantError(t, s.admin(t, "PUT", path, p), http.StatusBadRequest, "invalid_request", tc.field)
		})
	}
	wantError(t, s.admin(t, "GET", path, nil), http.StatusNotFound, "not_found", "mail")

	var view admin.MailView
	s.must(t, "PUT", path, good, &view)
	want := admin.MailView{SMTPURL: mta.URL, Username: mta.Username, From: "rooms@example.com", PasswordSet: true, InboundSecretSet: true, InboundPath: "/v1/imip/" + app}
	if d := cmp.Diff(want, view); d != "" {
		t.Errorf("PUT mail mismatch (-want +got):\n%s", d)
	}
	// Secrets left out are kept.
	s.must(t, "PUT", path, admin.MailParams{SMTPURL: mta.URL, Username: mta.Username, From: "rooms@example.com"}, &view)
	if d := cmp.Diff(want, view); d != "" {
		t.Errorf("PUT mail without secrets mismatch (-want +got):\n%s", d)
	}
	var got admin.ApplicationView
	s.must(t, "GET", "/admin/v1/applications/"+app, nil, &got)
	if got.Mail == nil || *got.Mail != want {
		t.Errorf("application's mail = %+v, want %+v", got.Mail, want)
	}

	var verified admin.MailVerified
	s.must(t, "POST", path+"/verify", map[string]string{"to": "ops@example.org"}, &verified)
	if !verified.Accepted || !strings.HasPrefix(verified.Reply, "250 ") {
		t.Fatalf("verify = %+v, want accepted with a 250 reply", verified)
	}
	msgs := mta.Wait(t, 1)
	if msgs[0].To != "ops@example.org" || !strings.Contains(msgs[0].Header.Get("Subject"), "mail settings test") {
		t.Errorf("delivered to %q with subject %q", msgs[0].To, msgs[0].Header.Get("Subject"))
	}
	wantError(t, s.admin(t, "POST", path+"/verify", map[string]string{"to": "not an address"}), http.StatusBadRequest, "invalid_request", "to")

	// A wrong password is the server's answer, not an error of ours.
	s.must(t, "PUT", path, admin.MailParams{SMTPURL: mta.URL, Username: mta.Username, Password: "wrong", From: "rooms@example.com"}, &view)
	s.must(t, "POST", path+"/verify", map[string]string{"to": "ops@example.org"}, &verified)
	if verified.Accepted || !strings.HasPrefix(verified.Reply, "535") {
		t.Errorf("verify with a wrong password = %+v, want refused with 535", verified)
	}

	s.must(t, "DELETE", path, nil, nil)
	wantError(t, s.admin(t, "GET", path, nil), http.StatusNotFound, "not_found", "mail")
	if strings.Contains(s.logs.String(), mta.Password) || strings.Contains(s.logs.String(), "inbound-secret-0123456789") {
		t.Error("a mail secret reached the logs")
	}
}
