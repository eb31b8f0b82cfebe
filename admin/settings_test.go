package admin_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// jsonNames lists the JSON names of a struct's fields.
func jsonNames(v any) []string {
	var names []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

// TestSettingsTable holds the admin API to the table of provider
// settings: the body of PUT .../providers/{provider} takes exactly the
// table's settings, the view shows each (the secret as clientSecretSet),
// each is a field of unical.ProviderSettings that Set and Get carry, and
// the flags are distinct.
func TestSettingsTable(t *testing.T) {
	t.Parallel()
	var table []string
	flags := map[string]bool{}
	for _, s := range admin.ProviderSettings {
		table = append(table, s.Name)
		if flags[s.Flag] {
			t.Errorf("flag --%s twice", s.Flag)
		}
		flags[s.Flag] = true
	}
	if d := cmp.Diff(table, jsonNames(admin.ProviderSettingsParams{}), cmpSorted); d != "" {
		t.Errorf("ProviderSettingsParams fields (-table +params):\n%s", d)
	}
	if d := cmp.Diff(table, jsonNames(unical.ProviderSettings{}), cmpSorted); d != "" {
		t.Errorf("unical.ProviderSettings fields (-table +settings):\n%s", d)
	}
	view := strings.Join(jsonNames(admin.ProviderSettingsView{}), " ")
	for _, s := range admin.ProviderSettings {
		name := s.Name
		if s.Kind == admin.SettingSecret {
			name = "clientSecretSet"
		}
		if !strings.Contains(" "+view+" ", " "+name+" ") {
			t.Errorf("ProviderSettingsView has no %s", name)
		}
		var set unical.ProviderSettings
		s.Set(&set, "value-"+s.Name)
		back := s.Get(&set)
		if s.Kind == admin.SettingSecret {
			back = set.ClientSecret
		}
		if back != "value-"+s.Name {
			t.Errorf("setting %s: Set then Get = %q", s.Name, back)
		}
		// The admin API's body carries it to the settings.
		if got := admin.ParamsOf(set); s.Kind != admin.SettingSecret && s.Get(ptr(paramsSettings(got))) != "value-"+s.Name {
			t.Errorf("setting %s is lost by ParamsOf", s.Name)
		}
	}
}

var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
})

func ptr[T any](v T) *T { return &v }

// paramsSettings reads the admin API body back as settings.
func paramsSettings(p *admin.ProviderSettingsParams) unical.ProviderSettings {
	return unical.ProviderSettings{ClientID: p.ClientID, Scopes: p.Scopes, AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL,
		APIBaseURL: p.APIBaseURL, RevokeURL: p.RevokeURL, ServerURL: p.ServerURL, Tenant: p.Tenant}
}
