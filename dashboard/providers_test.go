package dashboard_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/icsfeed"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/provider/microsoft"
)

// inputName finds the named inputs of a form.
var inputName = regexp.MustCompile(`<input id="[^"]*" name="([^"]+)"`)

// TestProvidersPage_SettingsTable holds the providers page to the table
// of settings: each provider's form has an input for exactly the
// settings its Info names (a table entry each), and a provider without
// settings is listed by name; a provider added to the Client needs no
// change here.
func TestProvidersPage_SettingsTable(t *testing.T) {
	t.Parallel()
	g, _ := google.New(google.Config{})
	ms, _ := microsoft.New(microsoft.Config{})
	dav, _ := caldav.New(caldav.Config{})
	feeds, _ := icsfeed.New(icsfeed.Config{})
	f := newFixture(t, "https://unical.example.com", g, ms, dav, feeds)
	b := f.browser(t)
	b.mustLogin()
	created, err := admin.Of(f.client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("shop")})
	if err != nil {
		t.Fatal(err)
	}
	p := b.get("/dashboard/apps/" + created.ApplicationID + "/providers")
	if p.status != 200 {
		t.Fatalf("providers page = %d", p.status)
	}
	for _, prov := range []unical.Provider{g, ms, dav} {
		info := kit.Describe(prov)
		path := info.Type.PathName()
		start := strings.Index(p.body, `action="/dashboard/apps/`+created.ApplicationID+`/providers/`+path+`"`)
		if start < 0 {
			t.Fatalf("no settings form for %s", path)
		}
		form := p.body[start : start+strings.Index(p.body[start:], "</form>")]
		var got []string
		for _, m := range inputName.FindAllStringSubmatch(form, -1) {
			if m[1] != "csrf" && m[1] != "removeSecret" {
				got = append(got, m[1])
			}
		}
		if d := cmp.Diff(info.Settings, got); d != "" {
			t.Errorf("%s form inputs (-Info().Settings +form):\n%s", path, d)
		}
		for _, name := range info.Settings {
			if _, ok := admin.SettingNamed(name); !ok {
				t.Errorf("%s takes setting %q, which the table lacks", path, name)
			}
		}
	}
	if !strings.Contains(p.body, "ICS feed (ICS_FEED)") {
		t.Errorf("the providers page does not name the ICS feed provider:\n%s", p.body)
	}
	// Every setting of the table is some shipped provider's.
	var taken []string
	for _, prov := range []unical.Provider{g, ms, dav} {
		taken = append(taken, kit.Describe(prov).Settings...)
	}
	for _, s := range admin.ProviderSettings {
		if !slices.Contains(taken, s.Name) {
			t.Errorf("setting %q is no provider's", s.Name)
		}
	}
}

// TestProvidersPage_DelegationFromInfo: the Providers page offers a
// delegation credential for each provider whose Info says it delegates,
// a new one included, and for the shipped ones the server runs without;
// never for one without delegation.
func TestProvidersPage_DelegationFromInfo(t *testing.T) {
	t.Parallel()
	const orgType unical.ProviderType = "ORG_DIRECTORY"
	org := delegatingProvider{memory.New(memory.Config{Type: orgType})}
	dav := memory.New(memory.Config{Type: unical.ProviderCalDAV})
	f := newFixture(t, "", org, dav)
	b := f.browser(t)
	b.mustLogin()
	created, err := admin.Of(f.client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("org")})
	if err != nil {
		t.Fatal(err)
	}
	p := b.get("/dashboard/apps/" + created.ApplicationID + "/providers")
	if p.status != 200 {
		t.Fatalf("providers page = %d:\n%s", p.status, p.body)
	}
	var got []string
	for _, m := range regexp.MustCompile(`<section class="card delegation" id="delegation-([a-z0-9_]+)"`).FindAllStringSubmatch(p.body, -1) {
		got = append(got, m[1])
	}
	want := []string{"provider_a", "provider_b", "org_directory"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delegation sections (-want +got):\n%s", diff)
	}
}
