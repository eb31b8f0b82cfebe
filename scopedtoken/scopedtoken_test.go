package scopedtoken_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

func validParams() *scopedtoken.Params {
	return &scopedtoken.Params{
		EndUserAccountIDs: []string{"acc_a", "acc_b"},
		CalendarIDs:       map[string][]string{"acc_b": {"cal_1"}},
		BookingTypeIDs:    []string{"bt_1"},
		Scopes:            []scopedtoken.Scope{scopedtoken.FreeBusyRead, scopedtoken.SlotsRead},
		TTLSeconds:        3600,
		AllowedOrigins:    []string{"https://shop.example", "http://localhost:8080"},
	}
}

// TestValidate checks that each bad request is refused naming its field.
func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(p *scopedtoken.Params)
		field  string // "" for valid
	}{
		{"valid", func(*scopedtoken.Params) {}, ""},
		{"no accounts", func(p *scopedtoken.Params) { p.EndUserAccountIDs, p.CalendarIDs = nil, nil }, "endUserAccountIds"},
		{"empty account id", func(p *scopedtoken.Params) { p.EndUserAccountIDs[1] = "" }, "endUserAccountIds[1]"},
		{"calendars of an account not granted", func(p *scopedtoken.Params) { p.CalendarIDs["acc_c"] = []string{"x"} }, "calendarIds.acc_c"},
		{"no calendars listed", func(p *scopedtoken.Params) { p.CalendarIDs["acc_b"] = nil }, "calendarIds.acc_b"},
		{"empty booking type", func(p *scopedtoken.Params) { p.BookingTypeIDs = []string{""} }, "bookingTypeIds"},
		{"no scopes", func(p *scopedtoken.Params) { p.Scopes = nil }, "scopes"},
		{"unknown scope", func(p *scopedtoken.Params) { p.Scopes = append(p.Scopes, "admin") }, "scopes[2]"},
		{"zero ttl", func(p *scopedtoken.Params) { p.TTLSeconds = 0 }, "ttlSeconds"},
		{"ttl over a day", func(p *scopedtoken.Params) { p.TTLSeconds = 86401 }, "ttlSeconds"},
		{"ttl of a day", func(p *scopedtoken.Params) { p.TTLSeconds = 86400 }, ""},
		{"origin with a path", func(p *scopedtoken.Params) { p.AllowedOrigins = []string{"https://shop.example/"} }, "allowedOrigins[0]"},
		{"origin without scheme", func(p *scopedtoken.Params) { p.AllowedOrigins = []string{"shop.example"} }, "allowedOrigins[0]"},
		{"origin of another scheme", func(p *scopedtoken.Params) { p.AllowedOrigins = []string{"ftp://shop.example"} }, "allowedOrigins[0]"},
		{"wildcard origin", func(p *scopedtoken.Params) { p.AllowedOrigins = []string{"*"} }, "allowedOrigins[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validParams()
			tt.change(p)
			err := p.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var e *unical.Error
			ok := errors.As(err, &e)
			if !ok || e.Code != unical.CodeInvalid || e.Field != tt.field {
				t.Fatalf("Validate = %#v, want invalid naming %s", err, tt.field)
			}
		})
	}
}

// TestNewAndSplit checks that an issued token splits into the grant's id
// and a secret that matches its hash until it expires, and that the grant
// holds no plaintext secret.
func TestNewAndSplit(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	g, issued := scopedtoken.Issue("app_1", validParams(), now)
	if issued.ID != g.ID || !issued.ExpiresAt.Equal(now.Add(time.Hour)) || !strings.HasPrefix(issued.Token, scopedtoken.Prefix) {
		t.Fatalf("issued %+v for grant %s", issued, g.ID)
	}
	id, secret, ok := scopedtoken.Split(issued.Token)
	if !ok || id != g.ID {
		t.Fatalf("Split(%q) = %q, %v", issued.Token, id, ok)
	}
	if strings.Contains(string(g.Hash), secret) {
		t.Fatal("the grant holds the secret")
	}
	tests := []struct {
		name   string
		secret string
		at     time.Time
		want   bool
	}{
		{"right secret, live", secret, now.Add(time.Hour - time.Second), true},
		{"right secret, at expiry", secret, now.Add(time.Hour), false},
		{"wrong secret", secret + "x", now, false},
		{"empty secret", "", now, false},
	}
	for _, tt := range tests {
		if got := g.Matches(tt.secret, tt.at); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, bad := range []string{"", "uk_key_secret", "ust_", "ust_tok", "ust_tok_abc", "ust_tok_abc_", "ust_tok_abc_de_f"} {
		if _, _, ok := scopedtoken.Split(bad); ok {
			t.Errorf("Split(%q) accepted", bad)
		}
	}
}

// TestAllow checks what a grant covers, and that each refusal is a 403
// naming the scope or resource it lacks.
func TestAllow(t *testing.T) {
	g, _ := scopedtoken.Issue("app_1", validParams(), time.Now())
	tests := []struct {
		name  string
		use   scopedtoken.Use
		field string // "" when allowed
	}{
		{"free/busy of an account", scopedtoken.Use{Scope: scopedtoken.FreeBusyRead, AccountID: "acc_a"}, ""},
		{"any calendar of an account not narrowed", scopedtoken.Use{Scope: scopedtoken.FreeBusyRead, AccountID: "acc_a", CalendarID: "cal_9"}, ""},
		{"a listed calendar", scopedtoken.Use{Scope: scopedtoken.FreeBusyRead, AccountID: "acc_b", CalendarID: "cal_1"}, ""},
		{"another calendar of a narrowed account", scopedtoken.Use{Scope: scopedtoken.FreeBusyRead, AccountID: "acc_b", CalendarID: "cal_2"}, "calendarId"},
		{"a scope not granted", scopedtoken.Use{Scope: scopedtoken.EventsRead, AccountID: "acc_a"}, "scope"},
		{"another account", scopedtoken.Use{Scope: scopedtoken.FreeBusyRead, AccountID: "acc_z"}, "endUserAccountId"},
		{"a listed booking type", scopedtoken.Use{Scope: scopedtoken.SlotsRead, BookingType: "bt_1"}, ""},
		{"another booking type", scopedtoken.Use{Scope: scopedtoken.SlotsRead, BookingType: "bt_2"}, "bookingTypeId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.Allow(tt.use)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Allow: %v", err)
				}
				return
			}
			var e *unical.Error
			ok := errors.As(err, &e)
			if !ok || e.Code != scopedtoken.CodeForbidden || e.Field != tt.field {
				t.Fatalf("Allow = %#v, want forbidden naming %s", err, tt.field)
			}
		})
	}
}

// TestAllowsOrigin checks that only the listed origins, spelled exactly,
// are allowed.
func TestAllowsOrigin(t *testing.T) {
	g, _ := scopedtoken.Issue("app_1", validParams(), time.Now())
	got := map[string]bool{}
	for _, o := range []string{"https://shop.example", "http://shop.example", "https://evil.example", "http://localhost:8080", "null", ""} {
		got[o] = g.AllowsOrigin(o)
	}
	want := map[string]bool{"https://shop.example": true, "http://shop.example": false, "https://evil.example": false, "http://localhost:8080": true, "null": false, "": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("AllowsOrigin (-want +got):\n%s", diff)
	}
}
