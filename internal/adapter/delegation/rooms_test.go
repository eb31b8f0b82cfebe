package delegation_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestGoogleRooms pages through more rooms than one resources.calendars
// page holds (500), as the administrator, and leaves out resources that
// are not rooms.
func TestGoogleRooms(t *testing.T) {
	t.Parallel()
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: "it@corp.example.com"})
	g.SetAdmin("it@corp.example.com")
	sa := googletest.ServiceAccount{Email: "sa@p.iam.gserviceaccount.com", ClientID: "42", Scopes: delegation.GoogleScopes}
	file, err := json.Marshal(googletest.NewServiceAccount(t, &sa))
	if err != nil {
		t.Fatal(err)
	}
	g.AddServiceAccount(sa)
	var want []unical.Room
	for i := range 1203 {
		r := googletest.Room{Email: fmt.Sprintf("c_%04d@resource.calendar.google.com", i), Name: fmt.Sprintf("Room %d", i), Capacity: i % 20, BuildingID: "hq", FloorName: fmt.Sprint(i % 7)}
		if i%100 == 5 {
			r.Category = "OTHER"
		} else {
			want = append(want, unical.Room{Email: r.Email, Name: r.Name, Capacity: r.Capacity, Building: "hq", Floor: r.FloorName})
		}
		g.AddRoom(r)
	}
	secret, err := json.Marshal(delegation.Secret{ServiceAccountKey: file})
	if err != nil {
		t.Fatal(err)
	}
	grant := &unical.DelegationGrant{Credential: unical.Delegation{ClientID: "42", TokenURL: g.TokenURL(), DirectoryURL: g.DirectoryBaseURL(), AdminEmail: "it@corp.example.com"}, Secret: secret}
	got, err := delegation.GoogleRooms(t.Context(), &delegation.Minter{HTTPClient: http.DefaultClient}, grant)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GoogleRooms (-want +got):\n%s", d)
	}
}

// TestGraphRooms follows @odata.nextLink through more rooms than a page
// of List places holds (100), and refuses a next page on another server,
// where the app-only token would go.
func TestGraphRooms(t *testing.T) {
	t.Parallel()
	graph := graphtest.NewServer(t, graphtest.Options{})
	graph.AddClient(graphtest.Client{ID: "daemon", Secret: "s3cret", ApplicationPermissions: []string{"Place.Read.All"}})
	var want []unical.Room
	for i := range 230 {
		r := graphtest.Room{Email: fmt.Sprintf("room%03d@corp.example.org", i), Name: fmt.Sprintf("Room %d", i), Capacity: 4, Building: "B", FloorNumber: i % 5}
		if i%2 == 0 {
			r.FloorLabel = fmt.Sprintf("Level %d", i%5)
		}
		graph.AddRoom(r)
		floor := r.FloorLabel
		if floor == "" {
			floor = fmt.Sprint(r.FloorNumber)
		}
		want = append(want, unical.Room{Email: r.Email, Name: r.Name, Capacity: 4, Building: "B", Floor: floor})
	}
	secret := []byte(`{"clientSecret": "s3cret"}`)
	grant := func(tokenURL, apiBaseURL string) *unical.DelegationGrant {
		return &unical.DelegationGrant{Credential: unical.Delegation{TenantID: graphtest.DefaultTenant, ClientID: "daemon", TokenURL: tokenURL, APIBaseURL: apiBaseURL}, Secret: secret}
	}
	got, err := delegation.GraphRooms(t.Context(), &delegation.Minter{HTTPClient: http.DefaultClient}, grant(graph.TokenURL(), graph.GraphBaseURL()))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GraphRooms (-want +got):\n%s", d)
	}

	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the token went to another server: %s", r.URL)
	}))
	t.Cleanup(elsewhere.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token": "app-token", "token_type": "Bearer", "expires_in": 3600}`)
	})
	mux.HandleFunc("GET /v1.0/places/microsoft.graph.room", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"value": [], "@odata.nextLink": %q}`, elsewhere.URL+"/v1.0/places/microsoft.graph.room?$skip=1")
	})
	sneaky := httptest.NewServer(mux)
	t.Cleanup(sneaky.Close)
	_, err = delegation.GraphRooms(t.Context(), &delegation.Minter{HTTPClient: http.DefaultClient}, grant(sneaky.URL+"/token", sneaky.URL+"/v1.0"))
	if unical.ErrorCode(err) != unical.CodeUpstream {
		t.Errorf("nextLink on another server: %v, want CodeUpstream", err)
	}
}
