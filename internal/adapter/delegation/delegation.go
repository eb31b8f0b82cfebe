// Package delegation mints the tokens of delegation credentials, which act
// for every user of a Google Workspace domain or Microsoft 365 tenant
// without a consent screen, and tries one mailbox with them to say what
// an administrator still has to do.
package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	"golang.org/x/oauth2/jwt"
)

// The providers' own endpoints, used where a credential overrides none.
const (
	GoogleTokenURL   = "https://oauth2.googleapis.com/token"
	GoogleAPIBaseURL = "https://www.googleapis.com/calendar/v3"
	GraphAPIBaseURL  = "https://graph.microsoft.com/v1.0"
	// GraphScope is the one scope of the client credentials grant: every
	// application permission the tenant consented to.
	GraphScope = "https://graph.microsoft.com/.default"
)

// GoogleScopes are the scopes a Google credential asks for, and what the
// Workspace administrator grants its client id.
var GoogleScopes = []string{
	"https://www.googleapis.com/auth/calendar",
	"https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly",
}

// Google is a Workspace credential: a service account's JSON key file.
type Google struct {
	ServiceAccountKey []byte
	ClientID          string // shown to the administrator
	TokenURL          string // "" is GoogleTokenURL
	APIBaseURL        string // "" is GoogleAPIBaseURL
}

// TokenSource mints user's tokens with the JWT bearer grant (RS256, sub =
// user), reusing each until it expires; there is no refresh token.
func (g *Google) TokenSource(ctx context.Context, user string) (oauth2.TokenSource, error) {
	var key struct {
		ClientEmail  string `json:"client_email"`
		PrivateKey   string `json:"private_key"`
		PrivateKeyID string `json:"private_key_id"`
	}
	if err := json.Unmarshal(g.ServiceAccountKey, &key); err != nil {
		return nil, fmt.Errorf("delegation: service account key: %w", err)
	}
	cfg := &jwt.Config{
		Email: key.ClientEmail, PrivateKey: []byte(key.PrivateKey), PrivateKeyID: key.PrivateKeyID,
		Subject: user, Scopes: GoogleScopes, TokenURL: or(g.TokenURL, GoogleTokenURL),
	}
	return oauth2.ReuseTokenSource(nil, cfg.TokenSource(ctx)), nil
}

// Microsoft is a Microsoft 365 credential: an application of the tenant
// with a client secret.
type Microsoft struct {
	TenantID, ClientID, ClientSecret string
	TokenURL                         string // "" is the tenant's token endpoint
	APIBaseURL                       string // "" is GraphAPIBaseURL
}

// TokenSource mints the app-only token of the client credentials grant,
// reused until it expires.
func (m *Microsoft) TokenSource(ctx context.Context) oauth2.TokenSource {
	tokenURL := m.TokenURL
	if tokenURL == "" {
		tokenURL = "https://login.microsoftonline.com/" + url.PathEscape(m.TenantID) + "/oauth2/v2.0/token"
	}
	cfg := &clientcredentials.Config{ClientID: m.ClientID, ClientSecret: m.ClientSecret, TokenURL: tokenURL, Scopes: []string{GraphScope}}
	return cfg.TokenSource(ctx)
}

// Problem is what verification found missing, in words for the
// administrator; Err is the cause, for logs.
type Problem struct {
	Reason string
	Err    error
}

func (p *Problem) Error() string { return p.Reason }
func (p *Problem) Unwrap() error { return p.Err }

// VerifyGoogle mints a token for user and reads the user's primary
// calendar. It returns a *Problem naming what is missing: the delegation
// grant in the Admin console, the user, or the Calendar API in the
// service account's project.
func VerifyGoogle(ctx context.Context, client *http.Client, g *Google, user string) error {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	ts, err := g.TokenSource(ctx, user)
	if err != nil {
		return &Problem{"The service account key cannot be read.", err}
	}
	tok, err := ts.Token()
	if err != nil {
		switch code, desc := tokenError(err); {
		case code == "unauthorized_client":
			return &Problem{fmt.Sprintf("Domain-wide delegation is not granted: in the Google Admin console (Security, API controls, Domain-wide delegation) give client id %s the scopes %s.", g.ClientID, strings.Join(GoogleScopes, ",")), err}
		case code == "invalid_grant" && strings.Contains(desc, "email"):
			return &Problem{fmt.Sprintf("Google does not know the user %s in the Workspace domain.", user), err}
		case code != "":
			return &Problem{fmt.Sprintf("Google's token endpoint refused the service account: %s %s", code, desc), err}
		}
		return &Problem{"Google's token endpoint could not be reached.", err}
	}
	status, body, err := get(ctx, client, tok, or(g.APIBaseURL, GoogleAPIBaseURL)+"/calendars/primary")
	switch {
	case err != nil:
		return &Problem{"The Google Calendar API could not be reached.", err}
	case status == http.StatusForbidden && (strings.Contains(body, "accessNotConfigured") || strings.Contains(body, "SERVICE_DISABLED")):
		return &Problem{"The Google Calendar API is not enabled in the service account's Google Cloud project.", nil}
	case status != http.StatusOK:
		return &Problem{fmt.Sprintf("The Google Calendar API answered %d for %s's calendar.", status, user), nil}
	}
	return nil
}

// VerifyMicrosoft mints the app-only token and reads user's calendar. It
// returns a *Problem naming what is missing: the tenant, the application
// or its secret, the administrator's consent, or the mailbox.
func VerifyMicrosoft(ctx context.Context, client *http.Client, m *Microsoft, user, consentURL string) error {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	tok, err := m.TokenSource(ctx).Token()
	if err != nil {
		switch code, desc := tokenError(err); {
		case code == "invalid_client":
			return &Problem{"Microsoft refused the client secret: it is wrong or has expired; add a new one to the application.", err}
		case code == "unauthorized_client":
			return &Problem{fmt.Sprintf("The application %s is not found in tenant %s.", m.ClientID, m.TenantID), err}
		case code != "":
			return &Problem{fmt.Sprintf("Microsoft's token endpoint refused the application: %s %s", code, firstLine(desc)), err}
		}
		return &Problem{"Microsoft's token endpoint could not be reached.", err}
	}
	status, _, err := get(ctx, client, tok, or(m.APIBaseURL, GraphAPIBaseURL)+"/users/"+url.PathEscape(user)+"/calendar")
	switch {
	case err != nil:
		return &Problem{"Microsoft Graph could not be reached.", err}
	case status == http.StatusForbidden || status == http.StatusUnauthorized:
		return &Problem{"Admin consent is not granted: a tenant administrator must grant the application permissions Calendars.ReadWrite, User.Read.All and Place.Read.All at " + consentURL, nil}
	case status == http.StatusNotFound:
		return &Problem{fmt.Sprintf("Microsoft 365 has no mailbox %s in the tenant.", user), nil}
	case status != http.StatusOK:
		return &Problem{fmt.Sprintf("Microsoft Graph answered %d for %s's calendar.", status, user), nil}
	}
	return nil
}

// tokenError reads the OAuth error of a token request; package jwt leaves
// it in the body rather than in ErrorCode.
func tokenError(err error) (code, description string) {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return "", ""
	}
	if re.ErrorCode != "" {
		return re.ErrorCode, re.ErrorDescription
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(re.Body, &body)
	return body.Error, body.Description
}

// get sends one bounded GET with tok and returns the status and up to
// 64 KiB of the body.
func get(ctx context.Context, client *http.Client, tok *oauth2.Token, u string) (int, string, error) {
	return getUpTo(ctx, client, tok, u, 64<<10)
}

// getUpTo is get with up to limit bytes of the body.
func getUpTo(ctx context.Context, client *http.Client, tok *oauth2.Token, u string, limit int64) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return 0, "", err
	}
	tok.SetAuthHeader(req)
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp.StatusCode, string(b), err
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
