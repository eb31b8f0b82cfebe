package googletest_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

// TestDirectory_RoomsList pages through the rooms of resources.calendars
// with an administrator's token, and refuses another user and a token
// without the directory scope.
func TestDirectory_RoomsList(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	f.srv.SetAdmin(aliceEmail)
	f.srv.AddRoom(googletest.Room{Email: "c_1@resource.calendar.google.com", Name: "Ada", Capacity: 8, BuildingID: "HQ", FloorName: "2"})
	f.srv.AddRoom(googletest.Room{Email: "c_2@resource.calendar.google.com", Name: "Babbage", Capacity: 4, BuildingID: "HQ", FloorName: "3"})
	const directoryScope = "https://www.googleapis.com/auth/admin.directory.resource.calendar.readonly"
	admin := f.srv.IssueAccessToken(testClientID, aliceEmail, directoryScope)
	list := f.srv.DirectoryBaseURL() + "/customer/my_customer/resources/calendars"

	type room struct{ email, name, building, floor string }
	var got []room
	next := ""
	for pages := 0; pages < 5; pages++ {
		u := list + "?maxResults=1"
		if next != "" {
			u += "&pageToken=" + next
		}
		r := call(t, "GET", u, admin, nil)
		if r.status != http.StatusOK || r.body["kind"] != "admin#directory#resources#calendars#calendarResourcesList" {
			t.Fatalf("GET %s = %d %s", u, r.status, r.raw)
		}
		for _, it := range r.body["items"].([]any) {
			m := it.(map[string]any)
			if m["capacity"] == nil || m["resourceCategory"] != "CONFERENCE_ROOM" {
				t.Errorf("item %v lacks capacity or category", m)
			}
			got = append(got, room{m["resourceEmail"].(string), m["resourceName"].(string), m["buildingId"].(string), m["floorName"].(string)})
		}
		next, _ = r.body["nextPageToken"].(string)
		if next == "" {
			break
		}
	}
	want := []room{{"c_1@resource.calendar.google.com", "Ada", "HQ", "2"}, {"c_2@resource.calendar.google.com", "Babbage", "HQ", "3"}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(room{})); d != "" {
		t.Errorf("rooms (-want +got):\n%s", d)
	}

	if r := call(t, "GET", list, f.srv.IssueAccessToken(testClientID, bobEmail, directoryScope), nil); r.status != http.StatusForbidden {
		t.Errorf("a user who is not an administrator = %d, want 403", r.status)
	}
	if r := call(t, "GET", list, f.srv.IssueAccessToken(testClientID, aliceEmail, "https://www.googleapis.com/auth/calendar"), nil); r.status != http.StatusForbidden {
		t.Errorf("a token without the directory scope = %d, want 403", r.status)
	}
	if r := call(t, "GET", f.srv.DirectoryBaseURL()+"/customer/C0other/resources/calendars", admin, nil); r.status != http.StatusNotFound {
		t.Errorf("another customer = %d, want 404", r.status)
	}
}
