package httpapi_test

import (
	"net/url"
	"regexp"
	"testing"
)

// milliseconds is the one timestamp format of the API.
var milliseconds = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// TestTimestampsMilliseconds reads an account, its credentials, a
// subscription and an event, and checks that every timestamp is UTC with
// milliseconds, and that expiresAt is null where there is no token.
func TestTimestampsMilliseconds(t *testing.T) {
	t.Parallel()
	st, acct := mustVirtualAccount(t)
	var ev struct{ ID string }
	st.Must(t, "POST", "/v1/events/"+acct+"/primary", sentBackEvent).Into(t, &ev)
	st.Must(t, "POST", "/v1/calendarSubscriptions/"+acct, `{"calendarId":"primary","webhookUrl":"https://hooks.example.com/in"}`)

	account := st.Must(t, "GET", "/v1/endUserAccounts/"+acct, nil).Object(t)
	accounts := st.Must(t, "GET", "/v1/endUserAccounts", nil).Object(t)["data"].([]any)[0].(map[string]any)
	creds := st.Must(t, "GET", "/v1/endUserAccounts/"+acct+"/credentials", nil).Object(t)
	sub := st.Must(t, "GET", "/v1/calendarSubscriptions/"+acct, nil).Object(t)["data"].([]any)[0].(map[string]any)
	event := st.Must(t, "GET", "/v1/events/"+acct+"/primary/"+url.PathEscape(ev.ID), nil).Object(t)
	for _, c := range []struct {
		what   string
		object map[string]any
		fields []string
	}{
		{"account", account, []string{"createdAt", "updatedAt"}},
		{"listed account", accounts, []string{"createdAt", "updatedAt"}},
		{"credentials", creds, []string{"createdAt", "updatedAt"}},
		{"subscription", sub, []string{"createdAt", "updatedAt"}},
		{"event", event, []string{"createdAt", "updatedAt"}},
	} {
		for _, f := range c.fields {
			if s, _ := c.object[f].(string); !milliseconds.MatchString(s) {
				t.Errorf("%s %s = %v, want UTC with milliseconds", c.what, f, c.object[f])
			}
		}
	}
	if v, ok := creds["expiresAt"]; !ok || v != nil {
		t.Errorf("credentials expiresAt = %v (present %v), want null: a VIRTUAL account has no token", v, ok)
	}
}

// TestCredentialsExpiresAtGoogle: an OAuth account's token has an expiry,
// written like every timestamp.
func TestCredentialsExpiresAtGoogle(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	acct := st.connect(t)
	creds := st.Must(t, "GET", "/v1/endUserAccounts/"+acct+"/credentials", nil).Object(t)
	for _, f := range []string{"expiresAt", "createdAt", "updatedAt"} {
		if s, _ := creds[f].(string); !milliseconds.MatchString(s) {
			t.Errorf("credentials %s = %v, want UTC with milliseconds", f, creds[f])
		}
	}
}
