package oauthflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/unical/unical/provider/kit"
	"golang.org/x/oauth2"
)

// checkCode is the made-up authorization code CheckClient redeems: no
// server can have issued it, so a token endpoint that knows the client
// refuses it with invalid_grant, and one that does not refuses the client.
const checkCode = "unical-settings-check"

// CheckClient tries the flow's client id and secret at its token endpoint
// without an account, by redeeming a code that cannot be valid, and says
// what the answer shows (for the admin API's provider check):
//   - invalid_grant: the endpoint answers and took the client id and
//     secret (it refused only the code);
//   - invalid_client, unauthorized_client and the provider's Client codes:
//     the client id or secret is wrong, told apart by the provider's
//     description where it says which (ClientProblem);
//   - redirect_uri_mismatch: the callback URL is not registered;
//   - no answer, or not an OAuth answer: the token URL is wrong.
//
// It is never retried and never logs: the request carries the secret.
func (f *Flow) CheckClient(ctx context.Context, classify func(code, description string) (field string)) (passed []string, problems []kit.SettingsProblem) {
	tokenURL := f.Config.Endpoint.TokenURL
	problem := func(field, format string, args ...any) {
		problems = append(problems, kit.SettingsProblem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	_, err := f.Config.Exchange(f.ctx(ctx), checkCode)
	if err == nil {
		problem("tokenUrl", "The token endpoint %s accepted a made-up authorization code; it is not %s's token endpoint.", tokenURL, f.Name)
		return passed, problems
	}
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		var netErr interface{ Timeout() bool }
		if errors.As(err, &netErr) || ctx.Err() != nil {
			problem("tokenUrl", "The token endpoint %s cannot be reached: %s.", tokenURL, describeNetError(err))
		} else {
			problem("tokenUrl", "The token endpoint %s did not answer like an OAuth 2.0 token endpoint.", tokenURL)
		}
		return passed, problems
	}
	status := 0
	if re.Response != nil {
		status = re.Response.StatusCode
	}
	desc := firstLine(re.ErrorDescription)
	said := re.ErrorCode
	if desc != "" {
		said += ": " + desc
	}
	if classify != nil {
		if field := classify(re.ErrorCode, re.ErrorDescription); field != "" {
			problem(field, "%s refused the application's %s (%s).", f.Name, field, said)
			return passed, problems
		}
	}
	switch {
	case re.ErrorCode == "invalid_grant":
		passed = append(passed, fmt.Sprintf("The token endpoint %s answered and accepted the client id and secret.", tokenURL))
	case re.ErrorCode == "invalid_client" || f.Errors.Client[re.ErrorCode] != "":
		problem("clientSecret", "%s refused the client id or secret (%s); copy both again from the provider's console.", f.Name, said)
	case re.ErrorCode == "unauthorized_client":
		problem("clientId", "%s does not let this client id redeem authorization codes (%s); check the client id and that it is a web application client.", f.Name, said)
	case re.ErrorCode == "redirect_uri_mismatch":
		problem("callbackUrl", "%s does not have the callback URL %s registered for this client (%s).", f.Name, f.Config.RedirectURL, said)
	case re.ErrorCode == "" && status == http.StatusNotFound:
		problem("tokenUrl", "The token endpoint %s answered 404; the URL is wrong.", tokenURL)
	case re.ErrorCode == "":
		problem("tokenUrl", "The token endpoint %s answered HTTP %d without an OAuth error; is it %s's token endpoint?", tokenURL, status, f.Name)
	case status >= 500 || re.ErrorCode == "temporarily_unavailable":
		problem("tokenUrl", "The token endpoint %s is failing (%d %s); try again later.", tokenURL, status, said)
	default:
		problem("tokenUrl", "The token endpoint %s refused the check in an unexpected way (%s).", tokenURL, said)
	}
	return passed, problems
}

// firstLine keeps the first line of a provider's description (Microsoft
// appends trace and correlation ids on further lines).
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(strings.TrimSuffix(s, "\r"))
}

// describeNetError is the part of a transport error worth showing: the
// last cause, without the URL it repeats.
func describeNetError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
