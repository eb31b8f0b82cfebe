package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/httpapi"
)

// TestGoogleE2E_AuthorizeFloodBlocksNoSignIn floods the authorize endpoint
// of an application from 2,000 client addresses, twice the cap of pending
// flows the server used to have, each call passing the per-address limit
// of the front door. The flood is answered with redirects and leaves
// nothing behind, so a real user's sign-in through the fake Google
// completes right after it.
func TestGoogleE2E_AuthorizeFloodBlocksNoSignIn(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	// The same Client behind a front door with unicald's limits; the flood
	// goes to it in-process, so that each call can come from its own
	// address without a socket each.
	front := httpapi.NewHandler(httpapi.Config{Client: st.Client, IPRateLimit: httpapi.RateLimit{PerSecond: httpapi.DefaultIPRate}})
	q := url.Values{"redirectUrl": {e2eBack}, "state": {strings.Repeat("s", 2048)}, "loginHint": {strings.Repeat("l", 320)}}
	path := "/v1/oauth/authorize/" + st.AppID + "/provider_a?" + q.Encode()
	statuses := map[int]int{}
	for i := range 2000 {
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = fmt.Sprintf("198.18.%d.%d:5555", i>>8, i&255)
		w := httptest.NewRecorder()
		front.ServeHTTP(w, req)
		statuses[w.Code]++
	}
	if d := cmp.Diff(map[int]int{http.StatusFound: 2000}, statuses); d != "" {
		t.Errorf("statuses of the flood (-want +got):\n%s", d)
	}
	accountID, _, _ := st.connectVia(t)
	var acct struct{ Email string }
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil, &acct)
	if acct.Email != e2eUser {
		t.Errorf("account after the flood is %q, want %q", acct.Email, e2eUser)
	}
}
