package seal

// The associated data each sealed secret of the Store is bound to, written
// once for the parts that seal and open them (the root's credentials and
// settings, the operator side's secrets, the engine's webhook signing): a
// sealed value moved to another account, application or provider type
// does not open.

// AccountBinding binds an account's sealed tokens or password.
func AccountBinding(accountID string) []byte { return []byte("account/" + accountID) }

// ClientSecretBinding binds an application's OAuth client secret for a
// provider type.
func ClientSecretBinding(appID, providerType string) []byte {
	return []byte("client-secret/" + appID + "/" + providerType)
}

// DelegationBinding binds the secret of an application's delegation
// credential for a provider type.
func DelegationBinding(appID, providerType string) []byte {
	return []byte("delegation/" + appID + "/" + providerType)
}

// WebhookSecretBinding binds the signing secret of an application's own
// webhook endpoint.
func WebhookSecretBinding(appID string) []byte { return []byte("webhook-secret/" + appID) }

// SubscriptionSecretBinding binds the signing secret of a webhook
// subscription.
func SubscriptionSecretBinding(subscriptionID string) []byte {
	return []byte("subscription/" + subscriptionID)
}

// MailBinding binds an application's invitation mail settings, which
// hold the SMTP password and the inbound secret.
func MailBinding(appID string) []byte { return []byte("mail/" + appID) }
