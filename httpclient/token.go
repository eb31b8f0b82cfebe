package httpclient

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

// Scoped tokens (package scopedtoken). An application's Client issues
// and revokes them; a Client made with Config.Token uses one.

// CodeForbidden is the code of a call a scoped token does not cover.
const CodeForbidden = scopedtoken.CodeForbidden

// CreateToken issues a scoped token: POST /v1/tokens. The answer is the
// only time the token is shown.
func (c *Client) CreateToken(ctx context.Context, params *scopedtoken.Params) (*scopedtoken.Issued, error) {
	if params == nil {
		params = &scopedtoken.Params{}
	}
	return call[scopedtoken.Issued](ctx, c, "POST", nil, params, "/v1/tokens")
}

// RevokeToken ends a scoped token at once: DELETE /v1/tokens/{id}.
func (c *Client) RevokeToken(ctx context.Context, id string) (*unical.Success, error) {
	return call[unical.Success](ctx, c, "DELETE", nil, nil, "/v1/tokens/", id)
}

// CurrentToken returns the grant of the Client's own token (one made
// with Config.Token): GET /v1/tokens/current.
func (c *Client) CurrentToken(ctx context.Context) (*scopedtoken.Current, error) {
	return call[scopedtoken.Current](ctx, c, "GET", nil, nil, "/v1/tokens/current")
}
