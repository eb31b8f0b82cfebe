package graphtest_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestClientCredentials mints an app-only token with the client
// credentials grant as golang.org/x/oauth2/clientcredentials sends it and
// uses it under /users/{id}: on any user of the tenant with the consented
// permissions, never on /me, and refused without consent.
func TestClientCredentials(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	grace := f.srv.AddUser(graphtest.User{DisplayName: "Grace Hopper", UserPrincipalName: "grace@contoso.test"})
	f.srv.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon", ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All"}})
	f.srv.AddClient(graphtest.Client{ID: "unconsented", Secret: "x"})
	token := func(clientID, secret, scope string) (*oauth2.Token, error) {
		cfg := clientcredentials.Config{ClientID: clientID, ClientSecret: secret, TokenURL: f.srv.TokenURL(), Scopes: []string{scope}}
		return cfg.Token(t.Context())
	}
	tok, err := token("daemon", "d43mon", "https://graph.microsoft.com/.default")
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	if tok.RefreshToken != "" {
		t.Errorf("an app-only token came with a refresh token")
	}
	for _, who := range []string{"ada@contoso.test", grace} {
		if r := doWith(t, f.srv, tok.AccessToken, "GET", "/v1.0/users/"+who+"/calendar", nil); r.status != http.StatusOK {
			t.Errorf("GET /users/%s/calendar = %d %s", who, r.status, r.raw)
		}
	}
	created := doWith(t, f.srv, tok.AccessToken, "POST", "/v1.0/users/grace@contoso.test/events", map[string]any{
		"subject": "Planning",
		"start":   map[string]string{"dateTime": "2025-03-04T10:00:00", "timeZone": "UTC"},
		"end":     map[string]string{"dateTime": "2025-03-04T11:00:00", "timeZone": "UTC"},
	})
	if created.status != http.StatusCreated {
		t.Fatalf("POST /users/grace/events = %d %s", created.status, created.raw)
	}
	if r := doWith(t, f.srv, tok.AccessToken, "GET", "/v1.0/me/calendar", nil); r.status != http.StatusBadRequest || r.errorCode() != "BadRequest" {
		t.Errorf("GET /me with an app-only token = %d %s, want 400 BadRequest", r.status, r.raw)
	}
	if r := doWith(t, f.srv, tok.AccessToken, "GET", "/v1.0/users/nobody@contoso.test/calendar", nil); r.status != http.StatusNotFound || r.errorCode() != "ErrorInvalidUser" {
		t.Errorf("GET /users/nobody/calendar = %d %s, want 404 ErrorInvalidUser", r.status, r.raw)
	}

	// Without the administrator's consent the token carries no permission.
	bare, err := token("unconsented", "x", "https://graph.microsoft.com/.default")
	if err != nil {
		t.Fatalf("Token without consent: %v", err)
	}
	if r := doWith(t, f.srv, bare.AccessToken, "GET", "/v1.0/users/"+grace+"/calendar", nil); r.status != http.StatusForbidden || r.errorCode() != "ErrorAccessDenied" {
		t.Errorf("GET without consent = %d %s, want 403 ErrorAccessDenied", r.status, r.raw)
	}

	var re *oauth2.RetrieveError
	if _, err := token("daemon", "d43mon", "Calendars.ReadWrite"); !errors.As(err, &re) || re.ErrorCode != "invalid_scope" {
		t.Errorf("a scope without /.default: %v, want invalid_scope", err)
	}
	if _, err := token("daemon", "wrong", "https://graph.microsoft.com/.default"); !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Errorf("a wrong secret: %v, want invalid_client", err)
	}
}

// TestPlaces_Rooms pages through the tenant's rooms with an app-only
// token holding Place.Read.All, and refuses one without it.
func TestPlaces_Rooms(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	f.srv.AddRoom(graphtest.Room{Email: "hopper@contoso.test", Name: "Hopper", Capacity: 10, Building: "HQ", FloorNumber: 2, FloorLabel: "2nd"})
	f.srv.AddRoom(graphtest.Room{Email: "turing@contoso.test", Name: "Turing", Capacity: 4, Building: "HQ", FloorNumber: 3, FloorLabel: "3rd"})
	f.srv.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon", ApplicationPermissions: []string{"Calendars.ReadWrite", "Place.Read.All"}})
	f.srv.AddClient(graphtest.Client{ID: "calendars-only", Secret: "x", ApplicationPermissions: []string{"Calendars.ReadWrite"}})
	token := func(id, secret string) string {
		t.Helper()
		cfg := clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: f.srv.TokenURL(), Scopes: []string{"https://graph.microsoft.com/.default"}}
		tok, err := cfg.Token(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return tok.AccessToken
	}
	app := token("daemon", "d43mon")
	var got []string
	next := "/v1.0/places/microsoft.graph.room?$top=1"
	for pages := 0; next != "" && pages < 5; pages++ {
		r := doWith(t, f.srv, app, "GET", next, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", next, r.status, r.raw)
		}
		for _, v := range r.values() {
			got = append(got, v["emailAddress"].(string)+" "+v["displayName"].(string)+" "+v["building"].(string)+" "+v["floorLabel"].(string))
		}
		next, _ = r.body["@odata.nextLink"].(string)
	}
	if d := cmp.Diff([]string{"hopper@contoso.test Hopper HQ 2nd", "turing@contoso.test Turing HQ 3rd"}, got); d != "" {
		t.Errorf("rooms (-want +got):\n%s", d)
	}
	if r := doWith(t, f.srv, token("calendars-only", "x"), "GET", "/v1.0/places/microsoft.graph.room", nil); r.status != http.StatusForbidden {
		t.Errorf("without Place.Read.All = %d, want 403", r.status)
	}
}

// TestClientCredentials_Subscriptions: an app-only token subscribes to a
// user's events under users/{id}/events and manages the subscription by
// id; me/events names no user for it and is refused, as every /me path.
func TestClientCredentials_Subscriptions(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{AllowHTTPNotificationURLs: true})
	grace := f.srv.AddUser(graphtest.User{DisplayName: "Grace Hopper", UserPrincipalName: "grace@contoso.test"})
	f.srv.AddClient(graphtest.Client{ID: "daemon", Secret: "d43mon", ApplicationPermissions: []string{"Calendars.Read"}})
	cfg := clientcredentials.Config{ClientID: "daemon", ClientSecret: "d43mon", TokenURL: f.srv.TokenURL(), Scopes: []string{"https://graph.microsoft.com/.default"}}
	tok, err := cfg.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, false)
	subscribe := func(resource string) response {
		return doWith(t, f.srv, tok.AccessToken, "POST", "/v1.0/subscriptions", map[string]any{
			"changeType": "created,updated,deleted", "notificationUrl": rc.srv.URL + "/notify", "resource": resource,
			"expirationDateTime": epoch.Add(time.Hour).Format(time.RFC3339), "clientState": "s3cret-state",
		})
	}
	if r := subscribe("me/events"); r.status != http.StatusBadRequest {
		t.Errorf("subscribing an app-only token to me/events = %d %s, want 400", r.status, r.raw)
	}
	if r := subscribe("users/nobody@contoso.test/events"); r.status != http.StatusNotFound {
		t.Errorf("subscribing to an unknown user = %d %s, want 404", r.status, r.raw)
	}
	created := subscribe("users/" + grace + "/events")
	if created.status != http.StatusCreated {
		t.Fatalf("subscribing to users/{id}/events = %d %s", created.status, created.raw)
	}
	id, _ := created.body["id"].(string)
	if subs := f.srv.Subscriptions(); len(subs) != 1 || subs[0].UserID != grace {
		t.Errorf("subscriptions = %+v, want one on grace's mailbox", subs)
	}
	if r := doWith(t, f.srv, tok.AccessToken, "GET", "/v1.0/subscriptions/"+id, nil); r.status != http.StatusOK {
		t.Errorf("GET the subscription = %d %s", r.status, r.raw)
	}
	// Another application's token does not see it.
	if r := f.do(t, "GET", "/v1.0/subscriptions/"+id, nil); r.status != http.StatusNotFound {
		t.Errorf("GET with another application's token = %d, want 404", r.status)
	}
	if r := doWith(t, f.srv, tok.AccessToken, "DELETE", "/v1.0/subscriptions/"+id, nil); r.status != http.StatusNoContent {
		t.Errorf("DELETE the subscription = %d %s", r.status, r.raw)
	}
}
