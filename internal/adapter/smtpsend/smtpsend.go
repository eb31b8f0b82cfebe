// Package smtpsend submits mail to an application's SMTP server (RFC 6409
// submission): smtp:// with STARTTLS (RFC 3207), or smtps:// with TLS from
// the first byte (RFC 8314), AUTH PLAIN when a user is set (RFC 4616).
//
// It uses emersion/go-smtp, since the standard library's net/smtp is
// frozen: go-smtp keeps the server's reply to DATA (what the verify
// action shows) and types the server's errors, so a 4xx answer is retried
// and a 5xx one is not.
package smtpsend

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/internal/seal"
)

// defaultTimeout bounds one submission, connection to QUIT.
const defaultTimeout = 30 * time.Second

// Server is an SMTP submission server and how to log in to it.
type Server struct {
	// URL is smtp://host[:port] (port 587 by default, STARTTLS) or
	// smtps://host[:port] (465, implicit TLS).
	URL string
	// Username and Password log in with AUTH PLAIN; no Username, no AUTH.
	Username, Password string
	// AllowPrivate is Config.AllowPrivateTargets: it allows private and
	// loopback addresses and, on a loopback host only, a connection
	// without TLS.
	AllowPrivate bool
	// Timeout bounds one submission; 0 means 30 seconds.
	Timeout time.Duration
	// RootCAs verifies the server's certificate; nil means the system's.
	RootCAs *x509.CertPool
}

// CheckURL refuses a submission URL that cannot be used: another scheme,
// no host, a path, query or user in it, or a private address without
// allowPrivate. field names it in the error.
func CheckURL(field, raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, unical.FieldError(field, "%s must be smtp://host[:port] or smtps://host[:port].", field)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, unical.FieldError(field, "%s takes no user, path or query: set the user and password on their own.", field)
	}
	if !allowPrivate && addrpolicy.ForbiddenHost(u.Hostname()) {
		return nil, unical.FieldError(field, "%s points at a private or loopback address; the server refuses those unless started with --allow-private-targets.", field)
	}
	return u, nil
}

// plainAllowed reports whether a connection to u may go without TLS:
// only to a loopback host, and only with allowPrivate.
func plainAllowed(u *url.URL, allowPrivate bool) bool {
	return allowPrivate && u.Scheme == "smtp" && addrpolicy.LoopbackHost(u.Hostname())
}

// Error is a submission that failed. Temporary says whether trying again
// later may succeed: a network failure or a 4xx reply is, a 5xx reply or
// a refused configuration is not.
type Error struct {
	Temporary bool
	// Reply is the server's answer ("535 5.7.8 ..."), or what failed
	// before there was one.
	Reply string
}

func (e *Error) Error() string { return "smtpsend: " + e.Reply }

// Send submits data from the envelope sender from to the recipients to
// and returns the server's reply to the message ("250 OK id=...").
// Errors are *Error.
func (s *Server) Send(ctx context.Context, from string, to []string, data []byte) (string, error) {
	u, err := CheckURL("smtpUrl", s.URL, s.AllowPrivate)
	if err != nil {
		return "", &Error{Reply: unical.ErrorMessage(err)}
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	port := u.Port()
	if port == "" {
		port = map[string]string{"smtp": "587", "smtps": "465"}[u.Scheme]
	}
	conn, err := dial(ctx, net.JoinHostPort(u.Hostname(), port), s.AllowPrivate)
	if err != nil {
		return "", &Error{Temporary: !errors.Is(err, addrpolicy.ErrForbidden), Reply: "could not connect: " + err.Error()}
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	tlsConfig := &tls.Config{ServerName: u.Hostname(), RootCAs: s.RootCAs, MinVersion: tls.VersionTLS12}
	var c *smtp.Client
	switch {
	case u.Scheme == "smtps":
		c = smtp.NewClient(tls.Client(conn, tlsConfig))
	case plainAllowed(u, s.AllowPrivate):
		c = smtp.NewClient(conn)
	default:
		// Mail goes out encrypted or not at all: a server without
		// STARTTLS is refused.
		if c, err = smtp.NewClientStartTLS(conn, tlsConfig); err != nil {
			return "", startTLSError(err)
		}
	}
	defer c.Close()
	c.CommandTimeout, c.SubmissionTimeout = timeout, timeout
	if err := c.Hello("localhost"); err != nil {
		return "", replyError(err)
	}
	if s.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.Username, s.Password)); err != nil {
			return "", replyError(err)
		}
	}
	if err := c.Mail(from, nil); err != nil {
		return "", replyError(err)
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return "", replyError(err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return "", replyError(err)
	}
	if _, err := w.Write(data); err != nil {
		return "", replyError(err)
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return "", replyError(err)
	}
	_ = c.Quit()
	return "250 " + strings.TrimSpace(resp.StatusText), nil
}

// dial connects to addr through the outbound-address policy: private,
// loopback and reserved addresses only with allowPrivate, checked on the
// address actually dialled, so a name that resolves to one is refused
// too. It is the one place the SMTP connection is made.
func dial(ctx context.Context, addr string, allowPrivate bool) (net.Conn, error) {
	return addrpolicy.Dialer(defaultTimeout, allowPrivate).DialContext(ctx, "tcp", addr)
}

// replyError turns a go-smtp failure into an *Error.
func replyError(err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		reply := fmt.Sprintf("%d", se.Code)
		if se.EnhancedCode != smtp.NoEnhancedCode && se.EnhancedCode != (smtp.EnhancedCode{}) {
			reply += fmt.Sprintf(" %d.%d.%d", se.EnhancedCode[0], se.EnhancedCode[1], se.EnhancedCode[2])
		}
		return &Error{Temporary: se.Code < 500, Reply: reply + " " + se.Message}
	}
	return &Error{Temporary: true, Reply: err.Error()}
}

// startTLSError classifies a failed STARTTLS: a lost connection may be
// retried; a server without STARTTLS or with a certificate that does not
// verify will not change by itself.
func startTLSError(err error) error {
	var se *smtp.SMTPError
	var ne net.Error
	if errors.As(err, &se) || errors.As(err, &ne) || errors.Is(err, io.EOF) {
		return replyError(err)
	}
	return &Error{Reply: "STARTTLS failed (mail is only sent encrypted; smtps:// connects with TLS at once): " + err.Error()}
}

// Settings are an application's invitation mail settings, kept sealed
// whole in Application.SealedMail.
type Settings struct {
	SMTPURL       string `json:"smtpUrl"`
	Username      string `json:"username,omitempty"`
	Password      string `json:"password,omitempty"`
	From          string `json:"from"`
	InboundSecret string `json:"inboundSecret,omitempty"`
}

// LoadSettings returns app's mail settings, nil when it has none.
// Returns CodeInternal when they do not open with c's master key.
func LoadSettings(c *unical.Client, app *unical.Application) (*Settings, error) {
	if app.SealedMail == nil {
		return nil, nil
	}
	data, err := c.Keys().MailSealer().Open(app.SealedMail, seal.MailBinding(app.ID))
	var set Settings
	if err == nil {
		err = json.Unmarshal(data, &set)
	}
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "The mail settings cannot be unsealed with the server's master key; set them again.")
	}
	return &set, nil
}

// SaveSettings seals set into app.SealedMail; nil removes the settings.
func SaveSettings(c *unical.Client, app *unical.Application, set *Settings) error {
	if set == nil {
		app.SealedMail = nil
		return nil
	}
	data, err := json.Marshal(set)
	if err != nil {
		return err
	}
	app.SealedMail = c.Keys().MailSealer().Seal(data, seal.MailBinding(app.ID))
	return nil
}

// ForApplication returns app's mail settings and the submission server
// they name, under c's outbound-address policy. Returns CodeConflict
// naming mail when app has no mail settings.
func ForApplication(c *unical.Client, app *unical.Application) (*Server, *Settings, error) {
	set, err := LoadSettings(c, app)
	if err != nil {
		return nil, nil, err
	}
	if set == nil {
		return nil, nil, &unical.Error{Code: unical.CodeConflict, Field: "mail", Message: "The application has no mail settings; set them first (docs/operations.md)."}
	}
	return &Server{URL: set.SMTPURL, Username: set.Username, Password: set.Password, AllowPrivate: c.Config().AllowPrivateTargets}, set, nil
}
