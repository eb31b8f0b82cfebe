package googletest

import (
	"cmp"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Room is a calendar resource of the Workspace, as the Admin console's
// Buildings and resources page creates it.
type Room struct {
	// Email is the resource's calendar address (resourceEmail).
	Email, Name string
	Capacity    int
	BuildingID  string
	FloorName   string
	// Category is resourceCategory: CONFERENCE_ROOM (the default), OTHER
	// (a projector, a car) or CATEGORY_UNKNOWN for legacy data (Admin SDK
	// Directory API reference, "Resources.calendars", resourceCategory).
	Category string
}

// AddRoom adds a room to the directory (resources.calendars). It makes no
// calendar: add a user with the room's email for that.
func (s *Server) AddRoom(r Room) {
	s.tb.Helper()
	if r.Email == "" || r.Name == "" {
		s.fatalf("AddRoom: Email and Name are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.rooms = append(s.st.rooms, r)
}

// SetAdmin makes the user a Workspace administrator, whom the Directory
// API answers; tokens of other users are refused there.
func (s *Server) SetAdmin(email string) {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userByEmailLocked(email)
	if u == nil {
		s.fatalf("SetAdmin: unknown user %s", email)
	}
	if s.st.admins == nil {
		s.st.admins = map[string]bool{}
	}
	s.st.admins[u.sub] = true
}

// DirectoryBaseURL is the Admin SDK Directory API root, without a
// trailing slash (https://admin.googleapis.com/admin/directory/v1 at
// Google).
func (s *Server) DirectoryBaseURL() string { return s.URL + "/admin/directory/v1" }

// scopesDirectoryResources are the scopes of resources.calendars.list
// (Admin SDK Directory API reference, "Method: resources.calendars.list",
// "Authorization scopes").
var scopesDirectoryResources = scopeSet{
	"https://www.googleapis.com/auth/admin.directory.resource.calendar",
	"https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly",
}

// maxDirectoryPage bounds maxResults. UNVERIFIED: the reference states no
// bound; 500 is the Directory API's bound for its other lists.
const maxDirectoryPage = 500

// resourcesCalendarsList serves GET
// /admin/directory/v1/customer/{customer}/resources/calendars
// ("Method: resources.calendars.list": path parameter customer, which an
// administrator may give as my_customer; query maxResults and pageToken;
// the answer is kind admin#directory#resources#calendars#calendarResourcesList
// with etag, items (CalendarResource) and nextPageToken). The fake takes
// only my_customer, ignores orderBy and query, and answers only
// administrators: "Not Authorized to access this resource/api" is the
// widely quoted refusal (UNVERIFIED against the reference).
func (s *Server) resourcesCalendarsList(c *call) (int, any, error) {
	if !s.st.admins[c.user.sub] {
		return 0, nil, errForbidden("Not Authorized to access this resource/api")
	}
	if c.r.PathValue("customer") != "my_customer" {
		return 0, nil, errNotFound()
	}
	limit := 100
	if v := c.q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxDirectoryPage {
			return 0, nil, errBadRequest(fmt.Sprintf("Invalid value for maxResults: %s", v))
		}
		limit = n
	}
	start := 0
	if tok := c.q.Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "rooms-"))
		if err != nil || !strings.HasPrefix(tok, "rooms-") || n < 0 || n > len(s.st.rooms) {
			return 0, nil, errBadRequest("Invalid page token.")
		}
		start = n
	}
	end := min(start+limit, len(s.st.rooms))
	items := make([]map[string]any, 0, end-start)
	for i, r := range s.st.rooms[start:end] {
		items = append(items, map[string]any{
			"kind":                  "admin#directory#resources#calendars#CalendarResource",
			"etags":                 fmt.Sprintf("\"room-%d\"", start+i),
			"resourceId":            fmt.Sprintf("%d", 1000+start+i),
			"resourceName":          r.Name,
			"generatedResourceName": strings.TrimSpace(r.BuildingID + "-" + r.FloorName + "-" + r.Name + " (" + strconv.Itoa(r.Capacity) + ")"),
			"resourceEmail":         r.Email,
			"capacity":              r.Capacity,
			"buildingId":            r.BuildingID,
			"floorName":             r.FloorName,
			"resourceCategory":      cmp.Or(r.Category, "CONFERENCE_ROOM"),
		})
	}
	resp := map[string]any{"kind": "admin#directory#resources#calendars#calendarResourcesList", "etag": "\"rooms\"", "items": items}
	if end < len(s.st.rooms) {
		resp["nextPageToken"] = "rooms-" + strconv.Itoa(end)
	}
	return http.StatusOK, resp, nil
}
