package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/kit"
)

// TestProviderNamedEverywhere: the ICS feed provider, wired by one line
// of defaultProviders, is named by the admin API, both served OpenAPI
// documents and the help of unicald apps, none of which names it itself.
func TestProviderNamedEverywhere(t *testing.T) {
	t.Parallel()
	srv := MustRunMain(t, t.TempDir(), nil)
	token := adminTokenFrom(t, srv.Stdout.String())
	get := func(path string, auth bool) []byte {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+path, nil)
		if auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, resp.StatusCode, body)
		}
		return body
	}
	var infos struct{ Data []kit.ProviderInfo }
	if err := json.Unmarshal(get("/admin/v1/providers", true), &infos); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(infos.Data, func(in kit.ProviderInfo) bool { return in.Type == "ICS_FEED" })
	if i < 0 {
		t.Fatalf("GET /admin/v1/providers does not list ICS_FEED: %+v", infos.Data)
	}
	if d := cmp.Diff(kit.ProviderInfo{Type: "ICS_FEED", DisplayName: "ICS feed", Settings: []string{}, Credential: unical.CredentialURL}, infos.Data[i]); d != "" {
		t.Errorf("ICS_FEED (-want +got):\n%s", d)
	}
	enum := func(doc []byte, schema, property string) []string {
		t.Helper()
		var d struct {
			Components struct {
				Schemas map[string]struct {
					Properties map[string]struct{ Enum []string }
				}
			}
		}
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		return d.Components.Schemas[schema].Properties[property].Enum
	}
	v1, adm := get("/v1/openapi.json", false), get("/admin/v1/openapi.json", false)
	for _, c := range []struct {
		doc              []byte
		schema, property string
		want             string
	}{
		{v1, "AccountCreate", "providerType", "ICS_FEED"},
		{v1, "Account", "providerType", "ICS_FEED"},
		{v1, "Account", "providerId", "ics_feed"},
		{v1, "Capabilities", "providerType", "ICS_FEED"},
		{adm, "Account", "providerType", "ICS_FEED"},
		{adm, "ProviderInfo", "providerType", "ICS_FEED"},
	} {
		if got := enum(c.doc, c.schema, c.property); !slices.Contains(got, c.want) {
			t.Errorf("%s.%s enum = %v, want it to hold %s", c.schema, c.property, got, c.want)
		}
	}
	if got := enum(adm, "ProviderSettings", "provider"); slices.Contains(got, "ICS_FEED") {
		t.Errorf("ProviderSettings.provider enum = %v: ICS_FEED takes no settings", got)
	}
	help := appsUpdateHelp(t)
	if !strings.Contains(help, "ics_feed (ICS feed) take no settings") {
		t.Errorf("apps update --help does not name the ICS feed provider:\n%s", help)
	}
}

// appsUpdateHelp is the help of unicald apps update with the shipped
// providers.
func appsUpdateHelp(t *testing.T) string {
	t.Helper()
	var out bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	_ = m.Run(t.Context(), []string{"apps", "update", "--help"})
	return out.String()
}

// TestSettingsTable_CLI holds unicald apps to the table of provider
// settings: each setting has its flag in the help, and a value given to
// the flag reaches the application's settings (--revoke-url among them).
func TestSettingsTable_CLI(t *testing.T) {
	t.Parallel()
	help := appsUpdateHelp(t)
	for _, s := range admin.ProviderSettings {
		if !strings.Contains(help, "--"+s.Flag+" ") && !strings.Contains(help, "--"+s.Flag+"\n") {
			t.Errorf("apps update --help has no --%s for %s:\n%s", s.Flag, s.Name, help)
		}
	}
	dir := t.TempDir()
	out, errOut, err := runCommand(t, nil, "apps", "create", "--data", dir, "--name", "shop", "--json",
		"--provider", "provider_a", "--client-id", "cid", "--scopes", "openid email",
		"--revoke-url", "https://accounts.example.com/revoke", "--api-base-url", "https://api.example.com/")
	if err != nil {
		t.Fatalf("apps create: %v\n%s", err, errOut)
	}
	var created struct{ ApplicationID string }
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = runCommand(t, nil, "apps", "list", "--data", dir, "--json")
	if err != nil {
		t.Fatalf("apps list: %v\n%s", err, errOut)
	}
	var apps []*admin.ApplicationView
	if err := json.Unmarshal([]byte(out), &apps); err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || apps[0].Providers[0].Provider != unical.ProviderGoogle {
		t.Fatalf("apps list = %s", out)
	}
	g := apps[0].Providers[0]
	got := []string{g.ClientID, strings.Join(g.Scopes, " "), g.RevokeURL, g.APIBaseURL}
	if d := cmp.Diff([]string{"cid", "openid email", "https://accounts.example.com/revoke", "https://api.example.com/"}, got); d != "" {
		t.Errorf("settings set by flags (-want +got):\n%s", d)
	}
	// A setting the provider does not take is refused, naming it.
	_, _, err = runCommand(t, nil, "apps", "update", "--data", dir, "--id", created.ApplicationID, "--provider", "provider_c", "--tenant", "contoso")
	if err == nil || !strings.Contains(err.Error(), "tenant") {
		t.Errorf("apps update --provider provider_c --tenant = %v, want a refusal naming tenant", err)
	}
}

// TestShippedProviders holds admin.Shipped, which describes the shipped
// providers to a server built without one of them, to their own Info.
func TestShippedProviders(t *testing.T) {
	t.Parallel()
	providers, err := defaultProviders(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range admin.Shipped {
		i := slices.IndexFunc(providers, func(p unical.Provider) bool { return p.Type() == want.Type })
		if i < 0 {
			t.Errorf("no shipped provider of type %s", want.Type)
			continue
		}
		got := kit.Describe(providers[i])
		want.Credential = ""
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("admin.Shipped for %s (-Shipped +Info):\n%s", want.Type, d)
		}
	}
}
