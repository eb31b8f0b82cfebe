package httpclient_test

import (
	"testing"

	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/internal/testkit/apisuite"
	"github.com/unical/unical/internal/testkit/apitest"
)

// TestAPI runs the one API suite against the HTTP client over the real
// httpapi server; the root package's TestApp runs it against the
// in-process App, so that the two cannot drift.
func TestAPI(t *testing.T) {
	apisuite.Run(t, func(t *testing.T, st *apitest.Stack, appID, apiKey string) apisuite.API {
		c, err := httpclient.New(httpclient.Config{BaseURL: st.URL, APIKey: apiKey, ApplicationID: appID})
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}
