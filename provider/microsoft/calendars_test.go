package microsoft

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// graphCalendar reads a calendar straight from the fake, as Graph stores it.
func (f *fixture) graphCalendar(t *testing.T, id string) calendar {
	t.Helper()
	req, _ := http.NewRequest("GET", f.srv.GraphBaseURL()+"/me/calendars/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+f.srv.IssueAccessToken("app", f.userID))
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var g calendar
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCalendarColour: Graph's hexColor is read-only, so a colour is
// written as the nearest calendarColor preset and read back as that
// preset's colour; clearing it writes auto.
func TestCalendarColour(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	tests := []struct {
		hex        string
		wantPreset string
		wantHex    string
	}{
		{"#0000ff", "lightBlue", "#8daed9"},
		{"#FF0000", "lightRed", "#d39696"},
		{"#ffff00", "lightYellow", "#ffdf86"},
		{"#33aa55", "lightGreen", "#9cbf8b"},
		{"#f0b27a", "lightOrange", "#f0b27a"}, // a preset's own colour stays
		{"#8bbfae", "lightTeal", "#8bbfae"},
	}
	for _, tc := range tests {
		t.Run(tc.hex, func(t *testing.T) {
			cal, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Colour " + tc.hex), HexColor: unical.Some(tc.hex)})
			if err != nil {
				t.Fatal(err)
			}
			g := f.graphCalendar(t, cal.ID)
			if g.Color != tc.wantPreset || g.HexColor != "" {
				t.Errorf("Graph stores color %q, hexColor %q; want %q and an untouched hexColor", g.Color, g.HexColor, tc.wantPreset)
			}
			got, err := f.p.GetCalendar(t.Context(), s, cal.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.wantHex, tc.wantHex}, []string{cal.HexColor, got.HexColor}); diff != "" {
				t.Errorf("hexColor from create and read (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("update and clear", func(t *testing.T) {
		cal, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Recoloured")})
		if err != nil {
			t.Fatal(err)
		}
		if cal.HexColor != "" {
			t.Errorf("a calendar created without a colour shows %q", cal.HexColor)
		}
		upd, err := f.p.UpdateCalendar(t.Context(), s, cal.ID, &unical.CalendarParams{HexColor: unical.Some("#ff0000")})
		if err != nil {
			t.Fatal(err)
		}
		if upd.HexColor != "#d39696" || f.graphCalendar(t, cal.ID).Color != "lightRed" {
			t.Errorf("after recolouring: hexColor %q, Graph color %q", upd.HexColor, f.graphCalendar(t, cal.ID).Color)
		}
		cleared, err := f.p.UpdateCalendar(t.Context(), s, cal.ID, &unical.CalendarParams{HexColor: unical.Null[string]()})
		if err != nil {
			t.Fatal(err)
		}
		if cleared.HexColor != "" || f.graphCalendar(t, cal.ID).Color != "auto" {
			t.Errorf("after clearing: hexColor %q, Graph color %q", cleared.HexColor, f.graphCalendar(t, cal.ID).Color)
		}
	})
}
