package httpclient_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/internal/apisuite"
	"github.com/unical/unical/internal/apitest"
)

// TestAPI runs the one API suite against the in-process App and against
// the HTTP client over the real httpapi server the same stack serves.
func TestAPI(t *testing.T) {
	t.Run("App", func(t *testing.T) {
		apisuite.Run(t, func(t *testing.T, st *apitest.Stack, appID, _ string) unical.API {
			app, err := st.Client.App(t.Context(), appID)
			if err != nil {
				t.Fatal(err)
			}
			return app
		})
	})
	t.Run("HTTP", func(t *testing.T) {
		apisuite.Run(t, func(t *testing.T, st *apitest.Stack, appID, apiKey string) unical.API {
			c, err := httpclient.New(st.URL, apiKey, &httpclient.Options{ApplicationID: appID})
			if err != nil {
				t.Fatal(err)
			}
			return c
		})
	})
}
