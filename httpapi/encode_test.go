package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
)

// encodingJSON is what json.Encoder writes for v, the reference the hand
// written encoding must match byte for byte.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return buf.String()
}

// everyField returns an account with every field set by reflection, so
// that a field added to unical.Account later shows up in encoding/json's
// output and fails TestAppendJSON until appendAccount writes it too.
func everyField(t *testing.T) *unical.Account {
	t.Helper()
	var a unical.Account
	v := reflect.ValueOf(&a).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Interface().(type) {
		case time.Time:
			f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC).Add(time.Duration(i) * time.Hour)))
		case []string:
			f.Set(reflect.ValueOf([]string{"calendar", v.Type().Field(i).Name}))
		case *string:
			s := "value of " + v.Type().Field(i).Name
			f.Set(reflect.ValueOf(&s))
		case *unical.RoomDetails:
			f.Set(reflect.ValueOf(&unical.RoomDetails{Name: "Salle <Curie>", Capacity: 12, Building: "B\"2", Floor: "3"}))
		case bool:
			f.SetBool(true)
		default:
			if f.Kind() != reflect.String {
				t.Fatalf("unical.Account.%s is a %s, which appendAccount and this test do not know: teach them", v.Type().Field(i).Name, f.Type())
			}
			f.SetString("value of " + v.Type().Field(i).Name)
		}
	}
	return &a
}

func TestAppendJSON(t *testing.T) {
	full := everyField(t)
	withString := func(s string) *unical.Account {
		a := *full
		a.Email, a.ExternalID, a.AuthorizedScopes = s, s+s, []string{s}
		return &a
	}
	withTimes := func(created, updated time.Time) *unical.Account {
		a := *full
		a.CreatedAt, a.UpdatedAt = created, updated
		return &a
	}
	token := "tok<en>&\"/"
	cases := []struct {
		name string
		v    any
	}{
		{"every field", full},
		{"nil scopes and provider account id", func() any { a := *full; a.AuthorizedScopes, a.ProviderAccountID = nil, nil; return &a }()},
		{"empty scopes", func() any { a := *full; a.AuthorizedScopes = []string{}; return &a }()},
		{"empty strings", &unical.Account{CreatedAt: full.CreatedAt, UpdatedAt: full.UpdatedAt}},
		{"quote and backslash", withString(`a"b\c`)},
		{"HTML characters", withString("<script>&amp;</script>")},
		{"control characters", withString("tab\tnew\nline\x00\x1f\x7f")},
		{"non-ASCII", withString("Zoë 日本 🙂")},
		{"line and paragraph separators", withString("a\u2028b\u2029c")},
		{"invalid UTF-8", withString("bad\xff\xfe")},
		{"zero times", withTimes(time.Time{}, time.Time{})},
		{"whole seconds", withTimes(time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC), time.Date(2026, 5, 6, 7, 8, 9, 100_000_000, time.UTC))},
		{"time outside UTC", withTimes(time.Date(2026, 5, 6, 7, 8, 9, 0, time.FixedZone("CEST", 2*3600)), full.UpdatedAt)},
		{"local time", withTimes(time.Date(2026, 5, 6, 7, 8, 9, 0, time.Local), full.UpdatedAt)},
		{"nil account", (*unical.Account)(nil)},
		{"page", &unical.Page[*unical.Account]{Data: []*unical.Account{full, withString("x<y"), full}, NextPageToken: &token}},
		{"last page", &unical.Page[*unical.Account]{Data: []*unical.Account{full}}},
		{"empty page", &unical.Page[*unical.Account]{Data: []*unical.Account{}}},
		{"page with nil data", &unical.Page[*unical.Account]{}},
		{"page with a nil account", &unical.Page[*unical.Account]{Data: []*unical.Account{nil, full}}},
		{"page with a time outside UTC", &unical.Page[*unical.Account]{Data: []*unical.Account{full, withTimes(time.Date(2026, 5, 6, 7, 8, 9, 0, time.FixedZone("", -3600)), full.UpdatedAt)}}},
		{"year 10000", withTimes(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), full.UpdatedAt)},
		{"other value", map[string]any{"ok": true, "message": "<b>"}},
	}
	// slow names the values appendJSON leaves to encoding/json.
	slow := map[string]bool{"year 10000": true, "other value": true}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := encodingJSON(t, tc.v)
			got, err := appendJSON([]byte("prefix"), tc.v)
			if err != nil {
				t.Fatalf("appendJSON: %v", err)
			}
			if d := cmp.Diff("prefix"+want, string(got)); d != "" {
				t.Errorf("appendJSON differs from encoding/json (-want +got):\n%s", d)
			}
			// The same bytes must come from the hand-written path itself,
			// not from appendJSON falling back to encoding/json.
			var fast []byte
			ok := false
			switch v := tc.v.(type) {
			case *unical.Account:
				fast, ok = appendAccount(nil, v)
			case *unical.Page[*unical.Account]:
				fast, ok = appendAccountPage(nil, v)
			}
			if ok == slow[tc.name] {
				t.Fatalf("hand-written encoding used: %v, want %v", ok, !slow[tc.name])
			}
			if ok {
				if d := cmp.Diff(want, string(fast)+"\n"); d != "" {
					t.Errorf("hand-written encoding differs from encoding/json (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestAppendJSON_Error: a value encoding/json refuses is an error, as it
// was before (writeJSON answers 500 then).
func TestAppendJSON_Error(t *testing.T) {
	for _, v := range []any{map[string]any{"f": func() {}}} {
		if _, err := appendJSON(nil, v); err == nil {
			t.Errorf("appendJSON(%T) succeeded, want the error encoding/json gives", v)
		}
	}
}
