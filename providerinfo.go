package unical

import "slices"

// Credential is what the accounts of a provider type connect with
// ([Client.Credential]): "oauth" ([OAuthProvider]: refreshToken or the
// browser flow), "password" ([PasswordConnector]: password, with optional
// username and serverUrl), "url" ([URLConnector]: serverUrl alone, such
// as a published feed's) or "none" (the email alone, as VIRTUAL).
type Credential string

// The credentials.
const (
	CredentialOAuth    Credential = "oauth"
	CredentialPassword Credential = "password"
	CredentialURL      Credential = "url"
	CredentialNone     Credential = "none"
)

// PasswordConnector and URLConnector are Providers whose accounts connect
// with [ConnectParams.Password] (CalDAV), or with [ConnectParams.ServerURL]
// alone, when their method says true.
type (
	PasswordConnector interface{ ConnectsWithPassword() bool }
	URLConnector      interface{ ConnectsWithURL() bool }
)

// Credential returns what accounts of type t connect with, "" when the
// Client has no provider of type t.
func (c *Client) Credential(t ProviderType) Credential {
	u, ok := c.providers[t]
	if u = unwrapped(u); !ok {
		return ""
	} else if pc, ok := u.(PasswordConnector); ok && pc.ConnectsWithPassword() {
		return CredentialPassword
	} else if uc, ok := u.(URLConnector); ok && uc.ConnectsWithURL() {
		return CredentialURL
	} else if _, ok := u.(OAuthProvider); ok {
		return CredentialOAuth
	}
	return CredentialNone
}

// ProviderTypes returns the types of the Client's providers: those of
// [ProviderTypes] in its order, then the others in Config's order.
func (c *Client) ProviderTypes() []ProviderType { return slices.Clone(c.types) }

// typesWith lists the Client's types with credential k (all for "").
func (c *Client) typesWith(k Credential) (names []string) {
	for _, t := range c.types {
		if k == "" || c.Credential(t) == k {
			names = append(names, string(t))
		}
	}
	return names
}
