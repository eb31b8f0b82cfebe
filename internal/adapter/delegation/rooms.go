package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"golang.org/x/oauth2"

	"github.com/unical/unical"
)

// GoogleDirectoryURL is the Admin SDK Directory API root, used where a
// credential overrides none.
const GoogleDirectoryURL = "https://admin.googleapis.com/admin/directory/v1"

// The bounds of one directory walk: a page is as large as the provider
// allows, and a walk reads at most unical.MaxRooms rooms.
const (
	googleRoomsPage = 500 // resources.calendars.list maxResults, at most 500
	graphRoomsPage  = 100 // List places: 100 a page by default
	maxRoomPages    = unical.MaxRooms/graphRoomsPage + 1
)

// GoogleRooms lists the calendar resources of g's Workspace with the
// Admin SDK Directory API, resources.calendars.list on customer
// my_customer, acting as g's AdminEmail (the API answers only
// administrators), with tokens of m. The building is the resource's
// buildingId: Google keeps building names in a separate list.
func GoogleRooms(ctx context.Context, m *Minter, g *unical.DelegationGrant) ([]unical.Room, error) {
	admin := g.Credential.AdminEmail
	token := func(ctx context.Context, force bool) (unical.Token, error) {
		return m.GoogleToken(ctx, g, admin, force)
	}
	refusal := "adminEmail " + admin + " must be a Workspace administrator allowed to read calendar resources, and the client id granted " + GoogleScopes[1] + "."
	var rooms []unical.Room
	q := url.Values{"maxResults": {strconv.Itoa(googleRoomsPage)}}
	for range maxRoomPages {
		var page struct {
			Items []struct {
				ResourceEmail    string `json:"resourceEmail"`
				ResourceName     string `json:"resourceName"`
				Capacity         int    `json:"capacity"`
				BuildingID       string `json:"buildingId"`
				FloorName        string `json:"floorName"`
				ResourceCategory string `json:"resourceCategory"`
			} `json:"items"`
			NextPageToken string `json:"nextPageToken"`
		}
		if err := getJSON(ctx, m.HTTPClient, token, "Google's room directory", refusal, or(g.Credential.DirectoryURL, GoogleDirectoryURL)+"/customer/my_customer/resources/calendars?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			// Resources of category OTHER (projectors, cars) are not
			// rooms; legacy ones are CATEGORY_UNKNOWN, and kept.
			if it.ResourceEmail != "" && it.ResourceCategory != "OTHER" {
				rooms = append(rooms, unical.Room{Email: it.ResourceEmail, Name: it.ResourceName, Capacity: it.Capacity, Building: it.BuildingID, Floor: it.FloorName})
			}
		}
		if page.NextPageToken == "" || len(rooms) >= unical.MaxRooms {
			return rooms, nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
	return rooms, nil
}

// GraphRooms lists the rooms of g's tenant with Graph's List places,
// GET /places/microsoft.graph.room, following @odata.nextLink, with the
// app-only token of m. The floor is floorLabel, else floorNumber.
func GraphRooms(ctx context.Context, m *Minter, g *unical.DelegationGrant) ([]unical.Room, error) {
	token := func(ctx context.Context, force bool) (unical.Token, error) { return m.MicrosoftToken(ctx, g, force) }
	var rooms []unical.Room
	next := or(g.Credential.APIBaseURL, GraphAPIBaseURL) + "/places/microsoft.graph.room?$top=" + strconv.Itoa(graphRoomsPage)
	for range maxRoomPages {
		var page struct {
			Value []struct {
				EmailAddress string `json:"emailAddress"`
				DisplayName  string `json:"displayName"`
				Capacity     *int   `json:"capacity"`
				Building     string `json:"building"`
				FloorLabel   string `json:"floorLabel"`
				FloorNumber  *int   `json:"floorNumber"`
			} `json:"value"`
			NextLink string `json:"@odata.nextLink"`
		}
		if err := getJSON(ctx, m.HTTPClient, token, "Microsoft Graph's places", "a tenant administrator must grant the application permission Place.Read.All.", next, &page); err != nil {
			return nil, err
		}
		for _, v := range page.Value {
			r := unical.Room{Email: v.EmailAddress, Name: v.DisplayName, Building: v.Building, Floor: v.FloorLabel}
			if v.Capacity != nil {
				r.Capacity = *v.Capacity
			}
			if r.Floor == "" && v.FloorNumber != nil {
				r.Floor = strconv.Itoa(*v.FloorNumber)
			}
			if r.Email != "" {
				rooms = append(rooms, r)
			}
		}
		if page.NextLink == "" || len(rooms) >= unical.MaxRooms {
			return rooms, nil
		}
		// The token goes only where the first page was asked.
		if !sameOrigin(page.NextLink, next) {
			return nil, unical.Errorf(unical.CodeUpstream, "Microsoft Graph's places answered a next page on another server.")
		}
		next = page.NextLink
	}
	return rooms, nil
}

// getJSON sends one GET with a token of token and decodes the answer
// into v. A 401 or 403 is tried once more with a new token, since the
// kept one may predate the administrator's change. Failures are
// CodeUpstream naming what failed (CodeUnavailable when it could not be
// reached); a 401 or 403 adds refusal, what the administrator has to do.
// A refused token is CodeUpstream too: the directory is the
// application's, not an account that could expire.
func getJSON(ctx context.Context, client *http.Client, token func(ctx context.Context, force bool) (unical.Token, error), what, refusal, u string, v any) error {
	var status int
	var body string
	for _, force := range []bool{false, true} {
		tok, err := token(ctx, force)
		if unical.ErrorCode(err) == unical.CodeAccountExpired {
			return unical.WrapError(unical.CodeUpstream, err, "%s: %s", what, unical.ErrorMessage(err))
		}
		if err != nil {
			return err
		}
		// A page of 500 Google resources is some 200 KiB.
		status, body, err = getUpTo(ctx, client, &oauth2.Token{AccessToken: tok.AccessToken, TokenType: "Bearer"}, u, 8<<20)
		if err != nil {
			return unical.WrapError(unical.CodeUnavailable, err, "%s could not be reached.", what)
		}
		if status != http.StatusUnauthorized && status != http.StatusForbidden {
			break
		}
	}
	switch {
	case status == http.StatusForbidden || status == http.StatusUnauthorized:
		return unical.WrapError(unical.CodeUpstream, errors.New(body), "%s refused the delegation credential (%d): %s", what, status, refusal)
	case status == http.StatusTooManyRequests:
		return unical.WrapError(unical.CodeRateLimited, errors.New(body), "%s is throttling the room directory; try again later.", what)
	case status != http.StatusOK:
		return unical.WrapError(unical.CodeUpstream, errors.New(body), "%s answered %d.", what, status)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return unical.WrapError(unical.CodeUpstream, err, "%s answered what is not a list of rooms.", what)
	}
	return nil
}

func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// VerifyRooms reads the room directory of a verified credential, with
// list (GoogleRooms or GraphRooms), and returns a *Problem saying what
// the administrator still has to do when it fails.
func VerifyRooms(list func() ([]unical.Room, error)) error {
	if _, err := list(); err != nil {
		return &Problem{Reason: "The room directory failed: " + unical.ErrorMessage(err), Err: err}
	}
	return nil
}
