package admin

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/smtpsend"
)

// minInboundSecret is the shortest inbound secret accepted, in bytes.
const minInboundSecret = 16

// MailView is an application's invitation mail settings as the operator
// sees them: secrets replaced by whether they are set.
type MailView struct {
	SMTPURL          string `json:"smtpUrl"`
	Username         string `json:"username"`
	From             string `json:"from"`
	PasswordSet      bool   `json:"passwordSet"`
	InboundSecretSet bool   `json:"inboundSecretSet"`
	// InboundPath is where the application's inbound mail is posted, with
	// the inbound secret as a bearer token.
	InboundPath string `json:"inboundPath"`
}

// mailView returns the view of app's mail settings, nil when it has
// none (or they cannot be opened, which ApplicationMail reports).
func (s *Service) mailView(app *unical.Application) *MailView {
	set, err := smtpsend.LoadSettings(s.client, app)
	if err != nil || set == nil {
		return nil
	}
	return &MailView{SMTPURL: set.SMTPURL, Username: set.Username, From: set.From, PasswordSet: set.Password != "",
		InboundSecretSet: set.InboundSecret != "", InboundPath: "/v1/imip/" + app.ID}
}

// MailParams set an application's mail settings. Password and
// InboundSecret left empty keep the stored ones.
type MailParams struct {
	SMTPURL       string `json:"smtpUrl"`
	Username      string `json:"username,omitempty"`
	Password      string `json:"password,omitempty"`
	From          string `json:"from"`
	InboundSecret string `json:"inboundSecret,omitempty"`
}

// ApplicationMail returns an application's mail settings. Returns
// CodeNotFound naming mail when it has none.
func (s *Service) ApplicationMail(ctx context.Context, appID string) (*MailView, error) {
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	if _, err := smtpsend.LoadSettings(s.client, app); err != nil {
		return nil, err
	}
	if app.SealedMail == nil {
		return nil, &unical.Error{Code: unical.CodeNotFound, Field: "mail", Message: "The application has no mail settings."}
	}
	return s.mailView(app), nil
}

// SetApplicationMail sets an application's mail settings. Returns
// CodeInvalid naming the field (mail.smtpUrl, mail.from, mail.password,
// mail.inboundSecret) for a value that cannot be used.
func (s *Service) SetApplicationMail(ctx context.Context, appID string, p *MailParams) (*MailView, error) {
	if _, err := smtpsend.CheckURL("mail.smtpUrl", p.SMTPURL, s.client.Config().AllowPrivateTargets); err != nil {
		return nil, err
	}
	if a, err := mail.ParseAddress(p.From); err != nil || a.Name != "" || a.Address != p.From {
		return nil, unical.FieldError("mail.from", "mail.from must be a bare email address, such as invites@example.com.")
	}
	if p.Password != "" && p.Username == "" {
		return nil, unical.FieldError("mail.password", "mail.password needs mail.username.")
	}
	if p.InboundSecret != "" && len(p.InboundSecret) < minInboundSecret {
		return nil, unical.FieldError("mail.inboundSecret", "mail.inboundSecret must be at least %d characters long.", minInboundSecret)
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	set := &smtpsend.Settings{SMTPURL: p.SMTPURL, Username: p.Username, Password: p.Password, From: strings.ToLower(p.From), InboundSecret: p.InboundSecret}
	// Secrets left out are kept; a password only for the same user. Old
	// settings that no longer open are replaced whole.
	if old, _ := smtpsend.LoadSettings(s.client, app); old != nil {
		if set.Password == "" && old.Username == p.Username {
			set.Password = old.Password
		}
		if set.InboundSecret == "" {
			set.InboundSecret = old.InboundSecret
		}
	}
	if err := smtpsend.SaveSettings(s.client, app, set); err != nil {
		return nil, err
	}
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "mail.set", appID, "")
	return s.mailView(app), nil
}

// RemoveApplicationMail removes an application's mail settings: no
// invitation is mailed or received for it from then on.
func (s *Service) RemoveApplicationMail(ctx context.Context, appID string) error {
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return err
	}
	app.SealedMail = nil
	if err := s.saveApplication(ctx, app); err != nil {
		return err
	}
	s.record(ctx, "mail.remove", appID, "")
	return nil
}

// MailVerifyParams name the address [Service.VerifyApplicationMail]
// sends its test message to.
type MailVerifyParams struct {
	To string `json:"to"`
}

// MailVerified is what the SMTP server answered to the test message.
type MailVerified struct {
	// Accepted says whether the server took the message.
	Accepted bool `json:"accepted"`
	// Reply is the server's answer, or why there was none.
	Reply string `json:"reply"`
}

// VerifyApplicationMail sends a test message through an application's
// SMTP server and says what the server answered; a refusal by the
// server is an answer (Accepted false), not an error. Returns CodeInvalid
// naming to for a bad address, CodeConflict naming mail when the
// application has no mail settings.
func (s *Service) VerifyApplicationMail(ctx context.Context, appID string, p *MailVerifyParams) (*MailVerified, error) {
	to, err := mail.ParseAddress(p.To)
	if err != nil || to.Name != "" {
		return nil, unical.FieldError("to", "to must be a bare email address.")
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	srv, set, err := smtpsend.ForApplication(s.client, app)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	msg := fmt.Sprintf("From: <%s>\r\nTo: <%s>\r\nSubject: unical mail settings test\r\nDate: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThis message checks the invitation mail settings of application %s.\r\n",
		set.From, to.Address, now.Format("Mon, 02 Jan 2006 15:04:05 -0700"), app.ID)
	reply, err := srv.Send(ctx, set.From, []string{to.Address}, []byte(msg))
	s.record(ctx, "mail.verify", appID, "")
	if se := (*smtpsend.Error)(nil); errors.As(err, &se) {
		return &MailVerified{Reply: se.Reply}, nil
	}
	if err != nil {
		return nil, err
	}
	return &MailVerified{Accepted: true, Reply: reply}, nil
}
