package graphtest

import (
	"net/http"
	"net/url"
	"strconv"
)

// Room is a room mailbox of the tenant, as an Exchange administrator
// creates it.
type Room struct {
	Email, Name string
	Capacity    int
	Building    string
	FloorNumber int
	FloorLabel  string
}

// AddRoom adds a room to the tenant's places. It makes no mailbox: add a
// user with the room's address for its calendar.
func (s *Server) AddRoom(r Room) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rooms = append(s.rooms, r)
}

// maxPlacesPage is the page size of List places: "By default, this
// operation returns 100 places per page" (https://learn.microsoft.com/graph/api/place-list).
const maxPlacesPage = 100

// listRooms serves GET /v1.0/places/microsoft.graph.room ("List places",
// with the Place.Read.All permission, delegated or application): the
// room resource's id, displayName, emailAddress, capacity, building,
// floorNumber and floorLabel (https://learn.microsoft.com/graph/api/resources/room),
// paged with $top and an @odata.nextLink that carries $skip. UNVERIFIED:
// that nextLink uses $skip; the page only promises a nextLink.
func (c *call) listRooms() {
	q := c.r.URL.Query()
	top, skip := maxPlacesPage, 0
	if v := q.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			c.fail(http.StatusBadRequest, "BadRequest", "Invalid value '%s' for $top.", v)
			return
		}
		top = min(n, maxPlacesPage)
	}
	if v := q.Get("$skip"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			c.fail(http.StatusBadRequest, "BadRequest", "Invalid value '%s' for $skip.", v)
			return
		}
		skip = min(n, len(c.s.rooms))
	}
	end := min(skip+top, len(c.s.rooms))
	value := make([]map[string]any, 0, end-skip)
	for i, r := range c.s.rooms[skip:end] {
		value = append(value, map[string]any{
			"id":           "3162F1E1-C4C0-604B-51D8-91DA78989EB" + strconv.Itoa(skip+i),
			"emailAddress": r.Email,
			"displayName":  r.Name,
			"capacity":     r.Capacity,
			"building":     r.Building,
			"floorNumber":  r.FloorNumber,
			"floorLabel":   r.FloorLabel,
			"bookingType":  "standard",
		})
	}
	body := map[string]any{"@odata.context": c.s.URL + "/v1.0/$metadata#places/microsoft.graph.room", "value": value}
	if end < len(c.s.rooms) {
		next := url.Values{"$top": {strconv.Itoa(top)}, "$skip": {strconv.Itoa(end)}}
		body["@odata.nextLink"] = c.s.URL + "/v1.0/places/microsoft.graph.room?" + next.Encode()
	}
	c.reply(http.StatusOK, body)
}
