package admin

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
	"github.com/unical/unical/internal/addrpolicy/httpguard"
)

// The states of a delegation credential.
const (
	// DelegationPending is a credential not verified since it was set.
	DelegationPending = "pending"
	// DelegationActive is a credential whose last verification worked.
	DelegationActive = "active"
	// DelegationFailing is a credential whose last verification failed;
	// its statusReason says what is missing.
	DelegationFailing = "failing"
)

// MaxDelegationDomains bounds the domains of one delegation credential.
const MaxDelegationDomains = 50

// GoogleDelegationScopes are the scopes an administrator grants the
// service account in the Google Admin console's domain-wide delegation:
// the calendars, and the room directory.
var GoogleDelegationScopes = slices.Clone(delegation.GoogleScopes)

// verifyTimeout bounds each request of [Service.VerifyDelegation] to a
// provider that does not answer.
const verifyTimeout = 30 * time.Second

// DelegationParams set an application's delegation credential for one
// provider type. provider_a takes ServiceAccountKey (Google's JSON key
// file, as an object); provider_b takes TenantID, ClientID and
// ClientSecret. Both take Domains and the optional endpoint overrides.
type DelegationParams struct {
	ServiceAccountKey json.RawMessage `json:"serviceAccountKey,omitempty"`
	TenantID          string          `json:"tenantId,omitempty"`
	ClientID          string          `json:"clientId,omitempty"`
	ClientSecret      string          `json:"clientSecret,omitempty"`
	Domains           []string        `json:"domains"`
	TokenURL          string          `json:"tokenUrl,omitempty"`
	APIBaseURL        string          `json:"apiBaseUrl,omitempty"`
	DirectoryURL      string          `json:"directoryUrl,omitempty"`
	// AdminEmail (provider_a) is a Workspace administrator in Domains:
	// Google's room directory answers only administrators, so without it
	// GET /v1/rooms lists no Google rooms.
	AdminEmail string `json:"adminEmail,omitempty"`
}

// DelegationView is an application's delegation credential for one
// provider type, without its secret.
type DelegationView struct {
	Provider unical.ProviderType `json:"provider"`
	// ClientID is the service account's client id (the one to enter in
	// Google's domain-wide delegation) or Microsoft's application id.
	ClientID string `json:"clientId"`
	// ServiceAccount is the service account's email (Google).
	ServiceAccount string   `json:"serviceAccount,omitempty"`
	TenantID       string   `json:"tenantId,omitempty"`
	Domains        []string `json:"domains"`
	TokenURL       string   `json:"tokenUrl,omitempty"`
	APIBaseURL     string   `json:"apiBaseUrl,omitempty"`
	DirectoryURL   string   `json:"directoryUrl,omitempty"`
	AdminEmail     string   `json:"adminEmail,omitempty"`
	// RoomDirectory says whether GET /v1/rooms lists the organisation's
	// rooms, and what to do when it does not.
	RoomDirectory string `json:"roomDirectory"`
	// Status is pending, active or failing; StatusReason says why it
	// fails.
	Status       string    `json:"status"`
	StatusReason string    `json:"statusReason,omitempty"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// Scopes are what the Google administrator grants the client id.
	Scopes []string `json:"scopes,omitempty"`
	// AdminConsentURL is where a Microsoft 365 administrator grants the
	// application its permissions for the tenant.
	AdminConsentURL string `json:"adminConsentUrl,omitempty"`
}

// delegationSecret is the sealed part of a delegation credential; the
// providers open it to mint the tokens of delegated accounts.
type delegationSecret = delegation.Secret

// serviceAccountKey holds the fields of Google's JSON key file that we
// read; the whole file is sealed as it came.
type serviceAccountKey struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	ClientID     string `json:"client_id"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

// checkDelegationProvider refuses a provider type without delegation
// (DelegationProviders: CalDAV has no organisation-wide grant), naming
// provider and the types that have it.
func (s *Service) checkDelegationProvider(t unical.ProviderType) error {
	var allowed []string
	for _, info := range s.DelegationProviders() {
		if info.Type == t {
			return nil
		}
		allowed = append(allowed, info.Type.PathName())
	}
	return &unical.Error{Code: unical.CodeInvalid, Field: "provider", Allowed: allowed,
		Message: "provider must be a provider type that delegates for a whole organisation: " + strings.Join(allowed, ", ") + "."}
}

// checkDelegation validates p for t and returns the credential to store,
// without its sealed part, and the secret to seal.
func checkDelegation(t unical.ProviderType, p *DelegationParams) (unical.Delegation, *delegationSecret, error) {
	d := unical.Delegation{TokenURL: p.TokenURL, APIBaseURL: p.APIBaseURL, DirectoryURL: p.DirectoryURL, Status: DelegationPending}
	domains, err := checkDomains(p.Domains)
	if err != nil {
		return d, nil, err
	}
	d.Domains = domains
	switch t {
	case unical.ProviderGoogle:
		for _, f := range []struct{ name, value string }{{"tenantId", p.TenantID}, {"clientId", p.ClientID}, {"clientSecret", p.ClientSecret}} {
			if f.value != "" {
				return d, nil, unical.FieldError(f.name, "%s is for provider_b; provider_a takes serviceAccountKey.", f.name)
			}
		}
		key, err := checkServiceAccountKey(p.ServiceAccountKey)
		if err != nil {
			return d, nil, err
		}
		if p.AdminEmail != "" {
			email := strings.ToLower(p.AdminEmail)
			_, domain, _ := strings.Cut(email, "@")
			if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || !slices.Contains(domains, domain) {
				return d, nil, unical.FieldError("adminEmail", "adminEmail must be the address of a Workspace administrator in the credential's domains.")
			}
			d.AdminEmail = email
		}
		d.ClientID = key.ClientID
		return d, &delegationSecret{ServiceAccountKey: p.ServiceAccountKey}, nil
	default:
		if p.AdminEmail != "" {
			return d, nil, unical.FieldError("adminEmail", "adminEmail is for provider_a; provider_b reads its rooms with the application's own permission Place.Read.All.")
		}
		if len(p.ServiceAccountKey) > 0 {
			return d, nil, unical.FieldError("serviceAccountKey", "serviceAccountKey is for provider_a; provider_b takes tenantId, clientId and clientSecret.")
		}
		for _, f := range []struct{ name, value string }{{"tenantId", p.TenantID}, {"clientId", p.ClientID}, {"clientSecret", p.ClientSecret}} {
			if f.value == "" {
				return d, nil, unical.FieldError(f.name, "%s is required for provider_b.", f.name)
			}
			if strings.IndexFunc(f.value, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
				return d, nil, unical.FieldError(f.name, "%s must not hold spaces or control characters.", f.name)
			}
		}
		// A tenant is a GUID or a verified domain name: both fit a path
		// segment of the token URL as they are.
		if strings.ContainsAny(p.TenantID, "/?#%") {
			return d, nil, unical.FieldError("tenantId", "tenantId must be the directory (tenant) id or a domain name of the tenant.")
		}
		d.TenantID, d.ClientID = p.TenantID, p.ClientID
		return d, &delegationSecret{ClientSecret: p.ClientSecret}, nil
	}
}

// checkDomains returns the domains lower-cased, refusing an empty list,
// duplicates and what is not a domain name.
func checkDomains(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, unical.FieldError("domains", "domains must name at least one email domain, such as corp.example.com.")
	}
	if len(in) > MaxDelegationDomains {
		return nil, unical.FieldError("domains", "domains may name at most %d domains.", MaxDelegationDomains)
	}
	out := make([]string, 0, len(in))
	for i, raw := range in {
		d := strings.ToLower(raw)
		if !isDomain(d) {
			return nil, unical.FieldError("domains", "domains[%d] %q is not a domain name such as corp.example.com.", i, raw)
		}
		if slices.Contains(out, d) {
			return nil, unical.FieldError("domains", "domains names %q twice.", d)
		}
		out = append(out, d)
	}
	return out, nil
}

// isDomain reports whether d is dot-separated labels of ASCII letters,
// digits and inner hyphens, at least two of them.
func isDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 || len(d) > 253 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// checkServiceAccountKey reads Google's JSON key file and checks that it
// is a service account's, with an RSA private key.
func checkServiceAccountKey(raw json.RawMessage) (*serviceAccountKey, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, unical.FieldError("serviceAccountKey", "serviceAccountKey is required for provider_a: the service account's JSON key file, as an object.")
	}
	var key serviceAccountKey
	if err := json.Unmarshal(raw, &key); err != nil {
		return nil, unical.FieldError("serviceAccountKey", "serviceAccountKey must be the service account's JSON key file, as an object.")
	}
	if key.Type != "service_account" {
		return nil, unical.FieldError("serviceAccountKey.type", "serviceAccountKey.type must be service_account: create a key for a service account in the Google Cloud console.")
	}
	if _, err := mail.ParseAddress(key.ClientEmail); err != nil || key.ClientID == "" {
		return nil, unical.FieldError("serviceAccountKey.client_email", "serviceAccountKey needs the service account's client_email and client_id.")
	}
	block, _ := pem.Decode([]byte(key.PrivateKey))
	if block == nil {
		return nil, unical.FieldError("serviceAccountKey.private_key", "serviceAccountKey.private_key must be a PEM private key.")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		parsed, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	if _, isRSA := parsed.(*rsa.PrivateKey); err != nil || !isRSA {
		// The JWT bearer grant is signed with RS256.
		return nil, unical.FieldError("serviceAccountKey.private_key", "serviceAccountKey.private_key must be an RSA private key.")
	}
	return &key, nil
}

// delegationView builds the view of app's credential for t; nil when it
// has none.
func (s *Service) delegationView(app *unical.Application, t unical.ProviderType) *DelegationView {
	d, ok := app.Delegations[t]
	if !ok {
		return nil
	}
	v := &DelegationView{
		Provider: t, ClientID: d.ClientID, TenantID: d.TenantID, Domains: slices.Clone(d.Domains),
		TokenURL: d.TokenURL, APIBaseURL: d.APIBaseURL, DirectoryURL: d.DirectoryURL, AdminEmail: d.AdminEmail,
		Status: d.Status, StatusReason: d.StatusReason, UpdatedAt: d.UpdatedAt,
	}
	switch t {
	case unical.ProviderGoogle:
		v.Scopes = slices.Clone(GoogleDelegationScopes)
		v.RoomDirectory = "Rooms are listed through the Directory API as " + d.AdminEmail + "."
		if d.AdminEmail == "" {
			v.RoomDirectory = "Rooms are not listed: set adminEmail to a Workspace administrator, whom Google's Directory API requires."
		}
		if secret, err := s.openDelegation(app, t); err == nil {
			var key serviceAccountKey
			if json.Unmarshal(secret.ServiceAccountKey, &key) == nil {
				v.ServiceAccount = key.ClientEmail
			}
		}
	case unical.ProviderMicrosoft:
		v.RoomDirectory = "Rooms are listed through Graph's places API, with the application permission Place.Read.All."
		v.AdminConsentURL = "https://login.microsoftonline.com/" + url.PathEscape(d.TenantID) + "/adminconsent?client_id=" + url.QueryEscape(d.ClientID)
	}
	return v
}

// openDelegation opens the sealed part of app's credential for t.
func (s *Service) openDelegation(app *unical.Application, t unical.ProviderType) (*delegationSecret, error) {
	plain, err := s.client.Keys().OpenDelegation(app.ID, string(t), app.Delegations[t].Sealed)
	if err != nil {
		return nil, err
	}
	var secret delegationSecret
	if err := json.Unmarshal(plain, &secret); err != nil {
		return nil, err
	}
	return &secret, nil
}

// GetDelegation returns an application's delegation credential for one
// provider type, without its secret. CodeNotFound when it has none.
func (s *Service) GetDelegation(ctx context.Context, appID string, t unical.ProviderType) (*DelegationView, error) {
	if err := s.checkDelegationProvider(t); err != nil {
		return nil, err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	v := s.delegationView(app, t)
	if v == nil {
		return nil, unical.Errorf(unical.CodeNotFound, "Application %s has no %s delegation credential.", appID, t.PathName())
	}
	return v, nil
}

// SetDelegation replaces an application's delegation credential for one
// provider type. It starts pending: nothing is tried until it is
// verified. Returns CodeInvalid naming the field at fault and
// CodeNotFound for an unknown application; nothing changes on error.
func (s *Service) SetDelegation(ctx context.Context, appID string, t unical.ProviderType, p *DelegationParams) (*DelegationView, error) {
	if err := s.checkDelegationProvider(t); err != nil {
		return nil, err
	}
	if err := s.checkOutboundURLs(namedURL{"tokenUrl", p.TokenURL}, namedURL{"apiBaseUrl", p.APIBaseURL}, namedURL{"directoryUrl", p.DirectoryURL}); err != nil {
		return nil, err
	}
	d, secret, err := checkDelegation(t, p)
	if err != nil {
		return nil, err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(secret)
	if err != nil {
		return nil, err
	}
	d.Sealed = s.client.Keys().SealDelegation(app.ID, string(t), plain)
	d.UpdatedAt = s.now().UTC()
	if app.Delegations == nil {
		app.Delegations = map[unical.ProviderType]unical.Delegation{}
	}
	app.Delegations[t] = d
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "delegation.set", appID, t.PathName())
	return s.delegationView(app, t), nil
}

// RemoveDelegation removes an application's delegation credential for
// one provider type and expires the accounts connected through it, with
// statusReason delegation_revoked. CodeNotFound when it has none.
func (s *Service) RemoveDelegation(ctx context.Context, appID string, t unical.ProviderType) error {
	if err := s.checkDelegationProvider(t); err != nil {
		return err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return err
	}
	if _, ok := app.Delegations[t]; !ok {
		return unical.Errorf(unical.CodeNotFound, "Application %s has no %s delegation credential.", appID, t.PathName())
	}
	delete(app.Delegations, t)
	if err := s.saveApplication(ctx, app); err != nil {
		return err
	}
	s.record(ctx, "delegation.remove", appID, t.PathName())
	// The accounts it connected stop working now, and their application
	// hears of it (enduseraccount.updated).
	a, err := s.client.App(ctx, appID)
	if err != nil {
		return err
	}
	return s.expireDelegatedAccounts(ctx, a, t)
}

// expireDelegatedAccounts makes every ACTIVE account of a that was
// connected through its delegation credential for t EXPIRED, with
// statusReason delegation_revoked, and queues enduseraccount.updated for
// each. An account whose write fails is logged, and expires at its next
// use, as the credential is gone.
func (s *Service) expireDelegatedAccounts(ctx context.Context, a *unical.App, t unical.ProviderType) error {
	revoked := &unical.Error{Code: unical.CodeAccountExpired, Reason: unical.StatusReasonDelegationRevoked, Message: "The application's delegation credential was removed."}
	after := ""
	for {
		recs, err := s.store.ListAccounts(ctx, a.ID(), unical.AccountFilter{Status: unical.AccountStatusActive, After: after, Limit: unical.MaxPageSize})
		if err != nil || len(recs) == 0 {
			return err
		}
		for _, rec := range recs {
			if rec.Delegated && rec.ProviderType == t {
				a.ExpireAccount(ctx, rec.ID, revoked)
			}
		}
		after = recs[len(recs)-1].ID
	}
}

// VerifyParams name the mailbox [Service.VerifyDelegation] tries.
type VerifyParams struct {
	Email string `json:"email"`
}

// VerifyDelegation tries an application's delegation credential on one
// mailbox of its domains: it mints a token for it and reads its calendar,
// then reads the room directory (Google: only with an AdminEmail).
// The credential becomes active, or failing with a statusReason that
// says what the administrator still has to do (grant domain-wide
// delegation, enable the Calendar API, grant admin consent, ...); that
// is part of a successful answer. Returns CodeInvalid naming email for an
// address outside the credential's domains, CodeNotFound when there is
// no credential.
func (s *Service) VerifyDelegation(ctx context.Context, appID string, t unical.ProviderType, p *VerifyParams) (*DelegationView, error) {
	if err := s.checkDelegationProvider(t); err != nil {
		return nil, err
	}
	if t != unical.ProviderGoogle && t != unical.ProviderMicrosoft {
		// Verification speaks Google's and Graph's APIs; another
		// provider's credential is tried by connecting an account.
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "provider", Allowed: []string{"provider_a", "provider_b"},
			Message: "Only provider_a and provider_b credentials are verified here; try a " + t.PathName() + " credential by connecting an account through it."}
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	d, ok := app.Delegations[t]
	if !ok {
		return nil, unical.Errorf(unical.CodeNotFound, "Application %s has no %s delegation credential.", appID, t.PathName())
	}
	email := strings.ToLower(strings.TrimSpace(p.Email))
	_, domain, found := strings.Cut(email, "@")
	if _, err := mail.ParseAddress(email); err != nil || !found || !slices.Contains(d.Domains, domain) {
		return nil, unical.FieldError("email", "email must be an address in the credential's domains (%s).", strings.Join(d.Domains, ", "))
	}
	secret, err := s.openDelegation(app, t)
	if err != nil {
		return nil, err
	}
	view := s.delegationView(app, t)
	// The room directory is tried once the calendars work, with tokens
	// of its own: a verification keeps none.
	plain, err := json.Marshal(secret)
	if err != nil {
		return nil, err
	}
	// The credential's URLs were checked when it was saved; the guarded
	// client refuses internal addresses again when it connects, so that
	// a name resolving to one, or a credential saved under another
	// policy, reaches nothing the address policy forbids.
	verifyClient := httpguard.Client(verifyTimeout, s.client.Config().AllowPrivateTargets)
	minter, grant := &delegation.Minter{HTTPClient: verifyClient}, &unical.DelegationGrant{Credential: d, Secret: plain}
	if t == unical.ProviderGoogle {
		g := &delegation.Google{ServiceAccountKey: secret.ServiceAccountKey, ClientID: d.ClientID, TokenURL: d.TokenURL, APIBaseURL: d.APIBaseURL}
		err = delegation.VerifyGoogle(ctx, verifyClient, g, email)
		if err == nil && d.AdminEmail != "" {
			err = delegation.VerifyRooms(func() ([]unical.Room, error) { return delegation.GoogleRooms(ctx, minter, grant) })
		}
	} else {
		m := &delegation.Microsoft{TenantID: d.TenantID, ClientID: d.ClientID, ClientSecret: secret.ClientSecret, TokenURL: d.TokenURL, APIBaseURL: d.APIBaseURL}
		err = delegation.VerifyMicrosoft(ctx, verifyClient, m, email, view.AdminConsentURL)
		if err == nil {
			err = delegation.VerifyRooms(func() ([]unical.Room, error) { return delegation.GraphRooms(ctx, minter, grant) })
		}
	}
	var problem *delegation.Problem
	switch {
	case err == nil:
		d.Status, d.StatusReason = DelegationActive, ""
	case errors.As(err, &problem):
		d.Status, d.StatusReason = DelegationFailing, problem.Reason
		s.log.InfoContext(ctx, "delegation verification failed", "app", appID, "provider", t.PathName(), "reason", problem.Reason, "err", problem.Err)
	default:
		return nil, err
	}
	if ctx.Err() != nil {
		// The caller gave up: what was found may be the timeout's doing.
		return nil, unical.WrapError(unical.CodeUnavailable, ctx.Err(), "The verification did not finish in time.")
	}
	app.Delegations[t] = d
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "delegation.verify", appID, t.PathName())
	return s.delegationView(app, t), nil
}
