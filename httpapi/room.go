package httpapi

import (
	"net/http"

	"github.com/unical/unical"
)

func (h *handler) registerRoomRoutes() {
	h.mux.HandleFunc("GET /v1/rooms", h.api(h.handleRoomList))
}

// handleRoomList handles GET /v1/rooms. Its answer is not cached: the
// rooms come from the providers' directories, which change without us.
func (h *handler) handleRoomList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &unical.RoomListParams{PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	page, err := app.ListRooms(r.Context(), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}
